import { describe, expect, it } from 'vitest'
import { NotificationClient } from '../../../src/index.js'
import { createFakeService, type FakeServiceOptions } from '../../../src/testing/index.js'
import { API_KEY } from '../../helpers/fake.js'

// The fake's model on its own clock: how long a delay waits, what a pending digest shows, and what
// a trigger changes on a subscriber.

function clocked(options: FakeServiceOptions) {
  const clock = { time: Date.UTC(2026, 0, 5, 12) }
  const fake = createFakeService({ apiKey: API_KEY, now: () => clock.time, ...options })
  const client = new NotificationClient({ apiKey: API_KEY, baseUrl: 'https://fake.test', fetch: fake.fetch })
  return { fake, client, clock }
}

describe('the fake engine: waits', () => {
  it.each([
    ['seconds', 1_000],
    ['minutes', 60_000],
    ['hours', 3_600_000],
    ['days', 86_400_000],
    ['weeks', 604_800_000],
    ['months', 30 * 86_400_000],
  ])('a delay of 2 %s waits exactly that long', async (unit, ms) => {
    const { fake, client, clock } = clocked({
      workflows: [{ identifier: 'later', steps: [{ type: 'delay', amount: 2, unit }, { type: 'in_app' }] }],
    })
    await client.events.trigger({ name: 'later', to: 'u1' })
    clock.time += 2 * ms - 1
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual(['delayed', 'pending'])
    clock.time += 1
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual(['completed', 'completed'])
  })

  it('waits 5 seconds for a delay seeded without an amount or unit', async () => {
    const { fake, client, clock } = clocked({
      workflows: [{ identifier: 'later', steps: [{ type: 'delay' }, { type: 'in_app' }] }],
    })
    await client.events.trigger({ name: 'later', to: 'u1' })
    clock.time += 4_999
    expect(fake.messages('u1')).toEqual([])
    clock.time += 1
    expect(fake.messages('u1')).toHaveLength(1)
  })
})

describe('the fake engine: a pending digest', () => {
  it("shows the events merged so far, and drops a cancelled trigger's at once", async () => {
    const { fake, client } = clocked({
      workflows: [
        { identifier: 'digest', steps: [{ type: 'digest', amount: 1, unit: 'minutes' }, { type: 'in_app' }] },
      ],
    })
    await client.events.trigger({ name: 'digest', to: 'u1', payload: { n: 1 } })
    const second = await client.events.trigger({ name: 'digest', to: 'u1', payload: { n: 2 } })
    await client.events.trigger({ name: 'digest', to: 'u1', payload: { n: 3 } })
    const pending = () => fake.notifications[0]?.jobs[0]?.digest?.events.map((e) => e.n)
    expect(pending()).toEqual([1, 2, 3])
    await client.events.cancel(second.transactionId ?? '')
    expect(pending()).toEqual([1, 3])
  })
})

describe('the fake engine: subscribers a trigger names', () => {
  it('moves updatedAt only when the trigger gives the subscriber a field', async () => {
    const { fake, client, clock } = clocked({
      workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
      subscribers: [{ subscriberId: 'u1', email: 'u1@example.com' }],
    })
    const seeded = fake.subscriber('u1')?.updatedAt
    clock.time += 1_000
    await client.events.trigger({ name: 'welcome', to: 'u1' })
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'u1' } })
    expect(fake.subscriber('u1')?.updatedAt).toBe(seeded)
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'u1', firstName: 'Ada' } })
    expect(fake.subscriber('u1')?.updatedAt).toBe(new Date(clock.time).toISOString())
  })
})
