import { describe, expect, it } from 'vitest'
import { BadRequestError, NotFoundError, type Preferences } from '../../../src/index.js'
import { API_KEY } from '../../helpers/fake.js'
import { fakeWithClient as setup } from './setup.js'

// PATCH /v2/subscribers/:subscriberId/preferences, checked against the server's
// apps/api/src/app/subscribers-v2/e2e/patch-subscriber-preferences.e2e.ts and the use case it runs
// (apps/api/src/app/inbox/usecases/update-preferences/update-preferences.usecase.ts).

const E2E = 'subscribers-v2/e2e/patch-subscriber-preferences.e2e.ts'
const USE_CASE = 'inbox/usecases/update-preferences/update-preferences.usecase.ts'

describe(`preferences, as ${E2E}`, () => {
  it(`${E2E}: "should patch workflow channel preferences" (by identifier and by internal id)`, async () => {
    const { fake, client } = setup()
    const byIdentifier = await client.subscribers.preferences.update('alice', {
      workflowId: 'welcome',
      channels: { email: false, in_app: true },
    })
    expect(byIdentifier.global?.channels).toMatchObject({ in_app: true, email: true })
    const welcome = byIdentifier.workflows?.find((w) => w.workflow?.identifier === 'welcome')
    expect(welcome?.channels).toEqual({ in_app: true, email: false })
    expect(welcome?.workflow).toMatchObject({ name: 'Welcome', identifier: 'welcome' })

    await client.events.trigger({ name: 'welcome', to: 'alice' })
    const internalId = fake.notifications[0]?._templateId ?? ''
    const byId = await client.subscribers.preferences.update('alice', {
      workflowId: internalId,
      channels: { email: true, in_app: false },
    })
    expect(byId.workflows?.find((w) => w.workflow?.identifier === 'welcome')?.channels).toEqual({
      in_app: false,
      email: true,
    })
  })

  it(`${E2E}: "should patch global channel preferences" (the workflows follow them)`, async () => {
    const { client } = setup()
    const prefs = await client.subscribers.preferences.update('alice', {
      channels: { email: false, in_app: false },
    })
    expect(prefs.global?.channels).toMatchObject({ in_app: false, email: false })
    expect(prefs.workflows?.find((w) => w.workflow?.identifier === 'welcome')?.channels).toEqual({
      in_app: false,
      email: false,
    })
  })

  it(`${E2E}: "should return 404 when patching non-existent subscriber preferences" (${USE_CASE}: its text)`, async () => {
    const { client } = setup()
    const error = await client.subscribers.preferences
      .update('non-existent-1a2b', { channels: { email: false } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).message).toContain('Subscriber with id: non-existent-1a2b is not found')
  })

  it(`${E2E}: "should return 400 when patching with invalid workflow id" (the test accepts any error; the fake answers 404)`, async () => {
    const { client } = setup()
    await expect(
      client.subscribers.preferences.update('alice', {
        workflowId: 'invalid-workflow-id',
        channels: { email: false },
      }),
    ).rejects.toBeInstanceOf(Error)
  })
})

describe(`preferences, as ${USE_CASE}`, () => {
  it(`${USE_CASE}: a critical workflow is 400 "Critical workflow with id: <id> can not be updated"`, async () => {
    const { client } = setup()
    const error = await client.subscribers.preferences
      .update('alice', { workflowId: 'security', channels: { email: false } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BadRequestError)
    expect((error as BadRequestError).message).toContain(
      'Critical workflow with id: security can not be updated',
    )
  })

  it(`${USE_CASE}: the subscriber is looked up before the workflow`, async () => {
    const { client } = setup()
    const error = await client.subscribers.preferences
      .update('ghost', { workflowId: 'security', channels: { email: false } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NotFoundError)
  })

  it(`${USE_CASE} (storePreferences): a schedule is stored at the global level only, never with workflowId; none is listed until one is stored [ca3c6447cf, #9078: global.schedule optional]`, async () => {
    const { fake, client } = setup()
    const schedule = {
      isEnabled: true,
      weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] } },
    }
    // The client refuses a schedule beside workflowId; the fake's answer to one is reached raw.
    const response = await fake.fetch('https://fake.test/v2/subscribers/alice/preferences', {
      method: 'PATCH',
      headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workflowId: 'welcome', channels: { email: false }, schedule }),
    })
    const withWorkflow = ((await response.json()) as { data: Preferences }).data
    expect(withWorkflow.global).not.toHaveProperty('schedule')
    expect(fake.preferences('alice')?.global).not.toHaveProperty('schedule')
    const global = await client.subscribers.preferences.update('alice', { schedule })
    expect(global.global?.schedule).toEqual(schedule)
  })
})
