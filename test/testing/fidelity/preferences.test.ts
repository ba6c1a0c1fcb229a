import { describe, expect, it } from 'vitest'
import { NotFoundError } from '../../../src/index.js'
import { changedBy, rawFetch, fakeWithClient as setup } from './setup.js'

// The server's apps/api/src/app/subscribers/e2e/update-preference.e2e.ts tests the v1 route
// PATCH /v1/subscribers/:subscriberId/preferences/:templateId; each behaviour that the v2 route
// (PATCH /v2/subscribers/:subscriberId/preferences with workflowId) shares is checked here through it.

const E2E = 'subscribers/e2e/update-preference.e2e.ts'
const PATH = '/v2/subscribers/alice/preferences'

const welcomeChannels = (prefs: {
  workflows?: { workflow?: { identifier?: string }; channels?: unknown }[]
}) => prefs.workflows?.find((w) => w.workflow?.identifier === 'welcome')?.channels

describe(`one workflow's preferences, as ${E2E}`, () => {
  it(`${E2E}: "should send a Bad Request error if channel property in payload is not right" and "should fail on invalid "enabled" param (string)", as the update's command checks them ${changedBy('preferencesV2')}`, async () => {
    const { fake } = setup()
    // The SDK refuses these before sending; sent raw, the server's update command refuses them.
    for (const email of ['', 2]) {
      const answer = await rawFetch(fake, 'PATCH', PATH, { workflowId: 'welcome', channels: { email } })
      expect(answer.status).toBe(422)
      expect(answer.body).toMatchObject({
        message: 'Validation failed for UpdatePreferencesCommand: email: email must be a boolean value',
        errors: { email: { messages: ['email must be a boolean value'], value: email } },
      })
    }
    // A channel the server does not know is ignored, not refused.
    expect(
      (await rawFetch(fake, 'PATCH', PATH, { workflowId: 'welcome', channels: { fax: 'x' } })).status,
    ).toBe(200)
    const stored = fake.preferences('alice')
    expect(stored && welcomeChannels(stored)).toEqual({ in_app: true, email: true })
  })

  it(`${E2E}: "should send a Not Found Request error if template id is wrong"`, async () => {
    const { client } = setup()
    const error = await client.subscribers.preferences
      .update('alice', { workflowId: '63cc6e0b561e0a609f223e27', channels: { email: false } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NotFoundError)
  })

  it(`${E2E}: "should not do any action or error when sending an empty channels property"`, async () => {
    const { client } = setup()
    const prefs = await client.subscribers.preferences.update('alice', {
      workflowId: 'welcome',
      channels: {},
    })
    expect(welcomeChannels(prefs)).toEqual({ in_app: true, email: true })
  })

  it(`${E2E}: "should be able to update the subscriber preference for an active channel of the template"`, async () => {
    const { client } = setup()
    const off = await client.subscribers.preferences.update('alice', {
      workflowId: 'welcome',
      channels: { email: false },
    })
    expect(welcomeChannels(off)).toEqual({ in_app: true, email: false })
    const on = await client.subscribers.preferences.update('alice', {
      workflowId: 'welcome',
      channels: { email: true },
    })
    expect(welcomeChannels(on)).toEqual({ in_app: true, email: true })
  })

  it(`${E2E}: "should ignore the channel update if channel not being used in the notification template"`, async () => {
    const { client } = setup()
    const prefs = await client.subscribers.preferences.update('alice', {
      workflowId: 'welcome',
      channels: { sms: false },
    })
    expect(welcomeChannels(prefs)).toEqual({ in_app: true, email: true })
  })

  it(`${E2E}: "should have no problems with a digest step in the notification template"`, async () => {
    const { client } = setup()
    const prefs = await client.subscribers.preferences.update('alice', {
      workflowId: 'digest',
      channels: { email: false },
    })
    expect(prefs.workflows?.find((w) => w.workflow?.identifier === 'digest')?.channels).toEqual({
      in_app: true,
      email: false,
    })
  })
})
