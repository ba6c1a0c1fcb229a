import { describe, expect, it } from 'vitest'
import { NotFoundError } from '../../../src/index.js'
import { fakeWithClient as setup } from './setup.js'

// The server's apps/api/src/app/subscribers/e2e/get-preferences.e2e.ts, read through the v2 route
// GET /v2/subscribers/:subscriberId/preferences.

const E2E = 'subscribers/e2e/get-preferences.e2e.ts'

describe(`reading preferences, as ${E2E}`, () => {
  it(`${E2E}: "should get subscriber preferences" (every channel on by default)`, async () => {
    const { client } = setup()
    const prefs = await client.subscribers.preferences.get('alice')
    expect(prefs.workflows?.find((w) => w.workflow?.identifier === 'welcome')?.channels).toEqual({
      email: true,
      in_app: true,
    })
  })

  it(`${E2E}: "should handle un existing subscriberId"`, async () => {
    const { client } = setup()
    const error = await client.subscribers.preferences.get('ghost').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).message).toContain('not found')
  })
})
