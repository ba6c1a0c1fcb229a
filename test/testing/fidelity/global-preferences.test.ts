import { describe, expect, it } from 'vitest'
import { changedBy, rawFetch, fakeWithClient as setup } from './setup.js'

// The server's apps/api/src/app/subscribers/e2e/update-global-preference.e2e.ts tests the v1 route
// PATCH /v1/subscribers/:subscriberId/preferences; each behaviour that the v2 route (without
// workflowId) shares is checked here through it.

const E2E = 'subscribers/e2e/update-global-preference.e2e.ts'

describe(`global preferences, as ${E2E}`, () => {
  it(`${E2E}: "should validate the payload", in its v2 form: \`channels\` is not checked as a whole, each switch is, by the update's command ${changedBy('preferencesV2')}`, async () => {
    const { fake } = setup()
    const before = fake.preferences('alice')
    const whole = await rawFetch(fake, 'PATCH', '/v2/subscribers/alice/preferences', { channels: false })
    expect(whole.status).toBe(200)
    expect(fake.preferences('alice')).toEqual(before)
    const one = await rawFetch(fake, 'PATCH', '/v2/subscribers/alice/preferences', {
      channels: { sms: 'off' },
    })
    expect(one.status).toBe(422)
    expect(one.body).toMatchObject({
      message: 'Validation failed for UpdatePreferencesCommand: sms: sms must be a boolean value',
      errors: { sms: { messages: ['sms must be a boolean value'], value: 'off' } },
    })
  })

  it(`${E2E}: "should update user global preferences" (the other channels stay on)`, async () => {
    const { client } = setup()
    const prefs = await client.subscribers.preferences.update('alice', { channels: { email: true } })
    expect(prefs.global?.channels).toEqual({ in_app: true, email: true, sms: true })
  })

  it(`${E2E}: "should update user global preferences for multiple channels"`, async () => {
    const { client } = setup()
    const prefs = await client.subscribers.preferences.update('alice', {
      channels: { push: true, in_app: false, sms: true },
    })
    expect(prefs.global?.channels).toEqual({ in_app: false, email: true, sms: true, push: true })
  })
})
