import { describe, expect, it } from 'vitest'
import { fidelityFake } from './setup.js'
import { e2eSubscriber } from './subscribers.js'

const SOURCE = 'apps/api/src/app/events/e2e/delay-events.e2e.ts'

describe(`fidelity: ${SOURCE}`, () => {
  it(`holds the steps after a delay until it is due [${SOURCE}: "should delay event for time interval"]`, async () => {
    const { fake, client, wait } = fidelityFake({
      subscribers: [e2eSubscriber()],
      workflows: [
        {
          identifier: 'delay',
          steps: [{ type: 'in_app' }, { type: 'delay', amount: 2 }, { type: 'in_app' }],
        },
      ],
    })
    await client.events.trigger({ name: 'delay', to: 'sub-1', payload: { customVar: 'Not Delayed' } })
    expect(fake.notifications[0]?.jobs[1]?.status).toBe('delayed')
    expect(fake.messages('sub-1')).toHaveLength(1)
    wait(2_000)
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ])
    expect(fake.messages('sub-1')).toHaveLength(2)
  })

  it(`waits as long as the trigger's overrides.delay says, not the step [${SOURCE}: "should override delay parameters"]`, async () => {
    const { fake, client, wait } = fidelityFake({
      subscribers: [e2eSubscriber()],
      workflows: [{ identifier: 'delay', steps: [{ type: 'delay', amount: 0.1 }, { type: 'sms' }] }],
    })
    await client.events.trigger({
      name: 'delay',
      to: 'sub-1',
      payload: { customVar: 'Testing of User Name' },
      overrides: { delay: { amount: 2, unit: 'seconds' } },
    })
    wait(1_000)
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual(['delayed', 'pending'])
    wait(1_000)
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual(['completed', 'completed'])
  })

  it(`digests events that come out of a delay together [${SOURCE}: "should not include delayed event in digested sent message"]`, async () => {
    const { fake, client, wait } = fidelityFake({
      subscribers: [e2eSubscriber()],
      workflows: [
        {
          identifier: 'delay-digest',
          steps: [{ type: 'delay', amount: 0.1 }, { type: 'digest', amount: 2 }, { type: 'sms' }],
        },
      ],
    })
    await client.events.trigger({ name: 'delay-digest', to: 'sub-1', payload: { customVar: 'first' } })
    await client.events.trigger({ name: 'delay-digest', to: 'sub-1', payload: { customVar: 'second' } })
    wait(100)
    expect(fake.notifications.map((n) => n.jobs[1]?.status)).toEqual(['delayed', 'merged'])
    wait(2_000)
    const sent = fake.notifications.flatMap((n) =>
      n.jobs.filter((job) => job.type === 'sms' && job.status === 'completed'),
    )
    expect(sent).toHaveLength(1)
    expect(sent[0]?.digest?.events.map((e) => e.customVar)).toEqual(['first', 'second'])
  })

  it(`releases delays in time order, so the earlier one's digest is the one the later joins [${SOURCE}: "should not include delayed event in digested sent message"]`, async () => {
    const { fake, client, wait } = fidelityFake({
      subscribers: [e2eSubscriber()],
      workflows: [
        {
          identifier: 'delay-digest',
          steps: [
            { type: 'delay', amount: 1 },
            { type: 'digest', amount: 10 },
          ],
        },
      ],
    })
    const later = { delay: { amount: 2, unit: 'seconds' } }
    await client.events.trigger({ name: 'delay-digest', to: 'sub-1', payload: { n: 1 }, overrides: later })
    await client.events.trigger({ name: 'delay-digest', to: 'sub-1', payload: { n: 2 } })
    wait(3_000)
    expect(fake.notifications.map((n) => [n.payload.n, n.jobs[1]?.status])).toEqual([
      [1, 'merged'],
      [2, 'delayed'],
    ])
  })
})
