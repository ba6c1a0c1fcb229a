import { describe, expect, it } from 'vitest'
import { NotFoundError } from '../../../src/index.js'
import { fidelityFake, fakeWithClient as setup } from './setup.js'

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

const V2 =
  'apps/api/src/app/subscribers-v2/usecases/get-subscriber-preferences/get-subscriber-preferences.usecase.ts'
const V2_E2E = 'apps/api/src/app/subscribers-v2/e2e/get-subscriber-preferences.e2e.ts'
const INBOX_E2E = 'apps/api/src/app/inbox/e2e/update-preferences.e2e.ts'

describe(`listing preferences, as ${V2}`, () => {
  const listed = () =>
    fidelityFake({
      workflows: [
        { identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] },
        { identifier: 'paused', active: false, steps: [{ type: 'sms' }] },
        { identifier: 'security', critical: true, steps: [{ type: 'push' }] },
      ],
      subscribers: [{ subscriberId: 'sub-1' }],
    })

  it(`${V2}: workflows[] lists the active workflows that are not critical, and global channels those they use (getActiveWorkflows, 92342022a0, #10021)`, async () => {
    const { client } = listed()
    const prefs = await client.subscribers.preferences.update('sub-1', {})
    expect(prefs.workflows?.map((w) => w.workflow?.identifier)).toEqual(['welcome'])
    expect(prefs.global?.channels).toEqual({ in_app: true, email: true, push: true })
  })

  it(`${V2}: a workflow's updatedAt is there only where the subscriber set preferences for it (990dc187ac, #9798), beside the workflow's own`, async () => {
    const { fake, send, wait } = listed()
    fake.addWorkflow({ identifier: 'digest', steps: [{ type: 'digest' }, { type: 'in_app' }] })
    wait(60_000)
    const answer = await send('PATCH', '/v2/subscribers/sub-1/preferences', {
      workflowId: 'welcome',
      channels: { email: false },
    })
    type Listed = { updatedAt?: string; workflow?: { identifier?: string; updatedAt?: string } }
    const [welcome, digest] = (answer.body.data as { workflows: Listed[] }).workflows
    expect(welcome?.updatedAt).toBe(new Date(Date.UTC(2026, 0, 5, 12, 1)).toISOString())
    expect(welcome?.workflow?.updatedAt).not.toBe(welcome?.updatedAt)
    expect(digest).not.toHaveProperty('updatedAt')
    expect(digest?.workflow?.identifier).toBe('digest')
  })

  it(`${INBOX_E2E}: "should update existing schedule" (a second schedule replaces the first whole); an update without one keeps it`, async () => {
    const { client } = listed()
    const hours = (start: string, end: string) => ({ isEnabled: true, hours: [{ start, end }] })
    await client.subscribers.preferences.update('sub-1', {
      schedule: { isEnabled: true, weeklySchedule: { monday: hours('09:00 AM', '05:00 PM') } },
    })
    const second = {
      isEnabled: true,
      weeklySchedule: { tuesday: hours('10:00 AM', '06:00 PM'), wednesday: hours('08:00 AM', '04:00 PM') },
    }
    const replaced = await client.subscribers.preferences.update('sub-1', { schedule: second })
    expect(replaced.global?.schedule).toEqual(second)
    const kept = await client.subscribers.preferences.update('sub-1', { channels: { email: false } })
    expect(kept.global?.schedule).toEqual(second)
  })

  it(`${V2_E2E}: "should inherit channel preferences from global settings when no workflow override exists"`, async () => {
    const { fake, client } = listed()
    await client.subscribers.preferences.update('sub-1', { channels: { email: false, in_app: true } })
    fake.addWorkflow({ identifier: 'new', steps: [{ type: 'in_app' }, { type: 'email' }] })
    const prefs = await client.subscribers.preferences.update('sub-1', {})
    expect(prefs.workflows?.find((w) => w.workflow?.identifier === 'new')?.channels).toEqual({
      email: false,
      in_app: true,
    })
  })
})
