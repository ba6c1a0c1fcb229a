import { describe, expect, it } from 'vitest'
import type { FakeJob, FakeNotification } from '../../../src/testing/index.js'
import { fidelityFake } from './setup.js'

const SOURCE = 'apps/api/src/app/events/e2e/cancel-event.e2e.ts'
// The digest tests of the e2e file are skipped since 563b70124b (#7823, for stability); the use case
// they test is unchanged, and so are these checks.
const CANCEL = 'apps/api/src/app/events/usecases/cancel-delayed/cancel-delayed.usecase.ts'
const RUN_JOB = 'apps/worker/src/app/workflow/usecases/run-job/run-job.usecase.ts'

/** The cancel tests' digest workflow: a digest of one second keyed on `id`, then an in-app step. */
const digestThenInApp = () =>
  fidelityFake({
    workflows: [
      {
        identifier: 'digest',
        steps: [{ type: 'digest', amount: 1, unit: 'seconds', digestKey: 'id' }, { type: 'in_app' }],
      },
    ],
    subscribers: [{ subscriberId: 'sub-1' }],
  })

const digestJob = (notification: FakeNotification | undefined): FakeJob | undefined =>
  notification?.jobs.find((job) => job.type === 'digest')

/** Each trigger's digest job: its status and the `customVar` of its events. */
function digests(notifications: FakeNotification[]): [unknown, string, unknown[]][] {
  return notifications.map((n) => {
    const job = digestJob(n)
    return [n.payload.customVar, job?.status ?? 'none', (job?.digest?.events ?? []).map((e) => e.customVar)]
  })
}

describe(`fidelity: ${SOURCE}`, () => {
  it(`cancels a pending digest and the steps after it [${SOURCE}: "should be able to cancel digest"]`, async () => {
    const { fake, client } = fidelityFake({
      workflows: [
        {
          identifier: 'digest',
          steps: [{ type: 'in_app' }, { type: 'digest', amount: 2, digestKey: 'id' }, { type: 'in_app' }],
        },
      ],
    })
    await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      transactionId: 'tx-1',
      payload: { customVar: 'x' },
    })
    expect(await client.events.cancel('tx-1')).toBe(true)
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual([
      'completed',
      'canceled',
      'canceled',
    ])
  })

  it(`cancels a pending delay for every subscriber of the trigger, leaving nothing pending [${SOURCE}: "should be able to cancel delay"]`, async () => {
    const { fake, client, wait } = fidelityFake({
      workflows: [
        {
          identifier: 'delay',
          steps: [{ type: 'in_app' }, { type: 'delay', amount: 5 }, { type: 'in_app' }],
        },
      ],
    })
    await client.events.trigger({ name: 'delay', to: ['sub-1', 'sub-2'], transactionId: 'tx-1' })
    expect(await client.events.cancel('tx-1')).toBe(true)
    wait(10_000)
    const jobs = fake.notifications.flatMap((n) => n.jobs)
    expect(jobs.filter((job) => job.type === 'delay').map((job) => job.status)).toEqual([
      'canceled',
      'canceled',
    ])
    expect(jobs.filter((job) => job.status === 'pending')).toEqual([])
    expect(fake.messages('sub-1')).toHaveLength(1)
  })

  it(`cancels a merged trigger without touching the digest it joined [${SOURCE}: "should be able to cancel not 1st digest (e.x 2nd,3rd,etc..)"]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'trigger_1_data' } })
    const second = await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'trigger_2_data' },
    })
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'trigger_3_data' } })
    expect(await client.events.cancel(second.transactionId ?? '')).toBe(true)
    wait(1_000)
    expect(digests(fake.notifications)).toEqual([
      ['trigger_1_data', 'completed', ['trigger_1_data', 'trigger_3_data']],
      ['trigger_2_data', 'canceled', []],
      ['trigger_3_data', 'merged', []],
    ])
  })

  it(`hands a cancelled main digest over to the trigger merged into it first [${SOURCE}: "should be able to cancel 1st main digest"]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const first = await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'trigger_1_data' },
    })
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'trigger_2_data' } })
    expect(await client.events.cancel(first.transactionId ?? '')).toBe(true)
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'trigger_3_data' } })
    wait(1_000)
    expect(digests(fake.notifications)).toEqual([
      ['trigger_1_data', 'canceled', []],
      ['trigger_2_data', 'completed', ['trigger_2_data', 'trigger_3_data']],
      ['trigger_3_data', 'merged', []],
    ])
    expect(fake.messages('sub-1').map((m) => m.payload.customVar)).toEqual(['trigger_2_data'])
  })

  it(`hands over to the oldest of several merged triggers, the others merging into it [${CANCEL}: assignNextDigestJob sorts the followers by createdAt and points the rest at the new one]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const trigger = (customVar: string) =>
      client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar } })
    const first = await trigger('trigger_1_data')
    await trigger('trigger_2_data')
    await trigger('trigger_3_data')
    await client.events.cancel(first.transactionId ?? '')
    wait(1_000)
    expect(digests(fake.notifications)).toEqual([
      ['trigger_1_data', 'canceled', []],
      ['trigger_2_data', 'completed', ['trigger_2_data', 'trigger_3_data']],
      ['trigger_3_data', 'merged', []],
    ])
  })

  it(`runs the follower when the cancelled digest would have run [apps/worker/src/app/workflow/usecases/run-job/run-job.usecase.ts: the cancelled digest's timer runs its active follower (assignNewDigestExecutor)]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const first = await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'trigger_1_data' },
    })
    wait(500)
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'trigger_2_data' } })
    await client.events.cancel(first.transactionId ?? '')
    wait(499)
    expect(digestJob(fake.notifications[1])?.status).toBe('delayed')
    wait(1)
    expect(digestJob(fake.notifications[1])?.status).toBe('completed')
    expect(fake.messages('sub-1').map((m) => m.payload.customVar)).toEqual(['trigger_2_data'])
  })

  it(`hands over twice when the follower is cancelled in turn [${SOURCE}: "should be able to cancel 1st main digest and then its follower"]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const trigger = (customVar: string) =>
      client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar } })
    const first = await trigger('trigger_1_data')
    const second = await trigger('trigger_2_data')
    expect(await client.events.cancel(first.transactionId ?? '')).toBe(true)
    await trigger('trigger_3_data')
    expect(await client.events.cancel(second.transactionId ?? '')).toBe(true)
    await trigger('trigger_4_data')
    wait(1_000)
    expect(digests(fake.notifications)).toEqual([
      ['trigger_1_data', 'canceled', []],
      ['trigger_2_data', 'canceled', []],
      ['trigger_3_data', 'completed', ['trigger_3_data', 'trigger_4_data']],
      ['trigger_4_data', 'merged', []],
    ])
  })

  it(`cancels the last merged trigger, leaving the follower to send its own event [${SOURCE}: "should be able to cancel 1st main digest and then its follower and last merged notification"]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const trigger = (customVar: string) =>
      client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar } })
    const first = await trigger('trigger_1_data')
    const second = await trigger('trigger_2_data')
    await client.events.cancel(first.transactionId ?? '')
    await trigger('trigger_3_data')
    await client.events.cancel(second.transactionId ?? '')
    const fourth = await trigger('trigger_4_data')
    expect(await client.events.cancel(fourth.transactionId ?? '')).toBe(true)
    wait(1_000)
    expect(digests(fake.notifications)).toEqual([
      ['trigger_1_data', 'canceled', []],
      ['trigger_2_data', 'canceled', []],
      ['trigger_3_data', 'completed', ['trigger_3_data']],
      ['trigger_4_data', 'canceled', []],
    ])
    expect(await client.events.cancel(fourth.transactionId ?? '')).toBe(false)
  })

  it(`with two subscribers, hands over only the first one's digest; the second one's merged trigger stays merged and never sends [${CANCEL}: jobs.find(isMainDigest), one assignNextDigestJob per cancel; ${RUN_JOB}: activeDigestMainFollowerExist finds none for the second]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const first = await client.events.trigger({
      name: 'digest',
      to: ['sub-1', 'sub-2'],
      payload: { customVar: 'trigger_1_data' },
    })
    await client.events.trigger({
      name: 'digest',
      to: ['sub-1', 'sub-2'],
      payload: { customVar: 'trigger_2_data' },
    })
    expect(await client.events.cancel(first.transactionId ?? '')).toBe(true)
    wait(1_000)
    const bySubscriber = (id: string) =>
      digests(fake.notifications.filter((n) => n.subscriber.subscriberId === id))
    expect(bySubscriber('sub-1')).toEqual([
      ['trigger_1_data', 'canceled', []],
      ['trigger_2_data', 'completed', ['trigger_2_data']],
    ])
    expect(bySubscriber('sub-2')).toEqual([
      ['trigger_1_data', 'canceled', []],
      ['trigger_2_data', 'merged', []],
    ])
    expect(fake.messages('sub-1').map((m) => m.payload.customVar)).toEqual(['trigger_2_data'])
    expect(fake.messages('sub-2')).toEqual([])
  })

  it(`runs a digest started after the cancel at the cancelled one's time [${RUN_JOB}: the cancelled digest's timer runs the delayed digest of the same subscriber, workflow and key value]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const first = await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'trigger_1_data' },
    })
    await client.events.cancel(first.transactionId ?? '')
    wait(600)
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'trigger_2_data' } })
    wait(400)
    expect(digests(fake.notifications)).toEqual([
      ['trigger_1_data', 'canceled', []],
      ['trigger_2_data', 'completed', ['trigger_2_data']],
    ])
  })

  it(`leaves the digest of another key value alone when the cancelled one had a value [${RUN_JOB}: the follower query filters on the cancelled job's key value]`, async () => {
    const { fake, client, wait } = digestThenInApp()
    const first = await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { id: 'a', customVar: 'a' },
    })
    await client.events.cancel(first.transactionId ?? '')
    wait(600)
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { id: 'b', customVar: 'b' } })
    wait(400)
    expect(digestJob(fake.notifications[1])?.status).toBe('delayed')
    wait(600)
    expect(digestJob(fake.notifications[1])?.status).toBe('completed')
  })

  it(`cancels a delay for one transaction only, and for all its subscribers [${CANCEL}: the transaction's delayed, merged and pending jobs]`, async () => {
    const { fake, client, wait } = fidelityFake({
      workflows: [{ identifier: 'delay', steps: [{ type: 'delay', amount: 5 }, { type: 'in_app' }] }],
    })
    const cancelled = await client.events.trigger({ name: 'delay', to: ['sub-1', 'sub-2'] })
    await client.events.trigger({ name: 'delay', to: ['sub-1'] })
    await client.events.cancel(cancelled.transactionId ?? '')
    wait(5_000)
    expect(fake.notifications.map((n) => n.jobs.map((job) => job.status))).toEqual([
      ['canceled', 'canceled'],
      ['canceled', 'canceled'],
      ['completed', 'completed'],
    ])
  })
})
