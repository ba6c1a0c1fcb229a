import { describe, expect, it } from 'vitest'
import type { FakeNotification, FakeWorkflowStep } from '../../../src/testing/index.js'
import { fidelityFake } from './setup.js'

const SOURCE = 'apps/api/src/app/events/e2e/digest-events.e2e.ts'
const MERGE = 'apps/worker/src/app/workflow/usecases/add-job/merge-or-create-digest.usecase.ts'
const JOBS =
  'libs/application-generic/src/usecases/create-notification-jobs/create-notification-jobs.usecase.ts'

const setup = (steps: FakeWorkflowStep[]) =>
  fidelityFake({
    workflows: [{ identifier: 'digest', steps }],
    subscribers: [{ subscriberId: 'sub-1', phone: '+15550100' }],
  })

const digestJobs = (notifications: FakeNotification[]) =>
  notifications.flatMap((n) => n.jobs.filter((job) => job.type === 'digest'))

function statusCount(statuses: string[]): Record<string, number> {
  const count: Record<string, number> = {}
  for (const status of statuses) count[status] = (count[status] ?? 0) + 1
  return count
}

describe(`fidelity: ${SOURCE}`, () => {
  it(`merges a second trigger into the pending digest, which then sends both events [${SOURCE}: "should digest events within time interval"]`, async () => {
    const { fake, client, wait } = setup([
      { type: 'sms' },
      { type: 'digest', amount: 2, unit: 'seconds' },
      { type: 'sms' },
    ])
    await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'Testing of User Name' },
    })
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'digest' } })
    const pending = digestJobs(fake.notifications)
    expect(pending.map((job) => job.status)).toEqual(['delayed', 'merged'])
    expect(pending[0]?.digest).toMatchObject({ amount: 2, unit: 'seconds' })
    wait(2_000)
    const done = digestJobs(fake.notifications)
    expect(done.map((job) => job.status)).toEqual(['completed', 'merged'])
    expect(done[0]?.digest?.events).toHaveLength(2)
    expect(fake.notifications[1]?.jobs.map((job) => job.status)).toEqual(['completed', 'merged', 'merged'])
  })

  it(`gives a job no digest when the workflow has no digest step [${SOURCE}: "should not have digest prop when not running a digest"]`, async () => {
    const { fake, client } = setup([{ type: 'sms' }])
    await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'Testing of User Name' },
    })
    expect(fake.notifications[0]?.jobs[0]).not.toHaveProperty('digest')
  })

  it(`hands the digested events to the step after the digest [${SOURCE}: "should add a digest prop to template compilation"]`, async () => {
    const { fake, client, wait } = setup([{ type: 'digest', amount: 2 }, { type: 'sms' }])
    await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'Testing of User Name' },
    })
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'digest' } })
    wait(2_000)
    expect(digestJobs(fake.notifications).map((job) => job.status)).toEqual(['completed', 'merged'])
    const sms = fake.notifications[0]?.jobs[1]
    expect(sms?.status).toBe('completed')
    expect(sms?.digest?.events.map((e) => e.customVar)).toEqual(['Testing of User Name', 'digest'])
  })

  it(`digests by the value of the digest key; a trigger without it digests apart [${SOURCE}: "should digest based on digestKey within time interval"]`, async () => {
    const { fake, client, wait } = setup([
      { type: 'sms' },
      { type: 'digest', amount: 2, digestKey: 'id' },
      { type: 'sms' },
    ])
    await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'Testing of User Name', id: 'x' },
    })
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'digest' } })
    await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: 'haj', id: 'x' } })
    expect(statusCount(digestJobs(fake.notifications).map((job) => job.status))).toEqual({
      delayed: 2,
      merged: 1,
    })
    wait(2_000)
    const jobs = fake.notifications.flatMap((n) => n.jobs)
    expect(digestJobs(fake.notifications).filter((job) => job.digest?.digestKey === 'id')).toHaveLength(3)
    const smsWithEvents = jobs.filter((job) => job.type === 'sms' && (job.digest?.events.length ?? 0) > 0)
    expect(smsWithEvents).toHaveLength(2)
  })

  it(`sends one batch per digest key value [${SOURCE}: "should digest based on same digestKey within time interval"]`, async () => {
    const { fake, client, wait } = setup([{ type: 'digest', amount: 2, digestKey: 'id' }, { type: 'in_app' }])
    for (const id of ['digest-key-one', 'digest-key-one', 'digest-key-two']) {
      await client.events.trigger({ name: 'digest', to: 'sub-1', payload: { id } })
    }
    wait(2_000)
    expect(statusCount(digestJobs(fake.notifications).map((job) => job.status))).toEqual({
      completed: 2,
      merged: 1,
    })
    expect(fake.messages('sub-1').map((m) => m.payload.id)).toEqual(['digest-key-one', 'digest-key-two'])
  })

  it(`completes every job once the digest is due [${SOURCE}: "should digest delayed events"]`, async () => {
    const { fake, client, wait } = setup([
      { type: 'in_app' },
      { type: 'digest', amount: 2 },
      { type: 'in_app' },
    ])
    await client.events.trigger({
      name: 'digest',
      to: 'sub-1',
      payload: { customVar: 'Testing of User Name' },
    })
    wait(1_999)
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual(['completed', 'delayed', 'pending'])
    wait(1)
    expect(fake.notifications[0]?.jobs.map((job) => job.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ])
    expect(fake.messages('sub-1')).toHaveLength(2)
  })

  it.each([
    ['postId', (value: string | undefined) => (value === undefined ? {} : { postId: value })],
    [
      'nested.postId',
      (value: string | undefined) => (value === undefined ? {} : { nested: { postId: value } }),
    ],
  ])(
    `creates one digest per value of the key %s, triggers without it digesting together [${SOURCE}: "should create multiple digest based on different digestKeys", "should create multiple digests based on different nested digestKeys"]`,
    async (digestKey, payloadFor) => {
      const { fake, client, wait } = setup([{ type: 'digest', amount: 2, digestKey }, { type: 'in_app' }])
      for (const value of [undefined, 'post-1', 'post-2', undefined, 'post-1']) {
        await client.events.trigger({ name: 'digest', to: 'sub-1', payload: payloadFor(value) })
      }
      const statuses = digestJobs(fake.notifications).map((job) => job.status)
      expect(statuses).toEqual(['delayed', 'delayed', 'delayed', 'merged', 'merged'])
      wait(2_000)
      expect(fake.messages('sub-1')).toHaveLength(3)
    },
  )

  it(`keeps one pending digest and merges every later trigger [${SOURCE}: "should merge digest events when sequential calls", "should merge digest events accordingly when concurrent calls"]`, async () => {
    const { fake, client } = setup([{ type: 'digest', amount: 2 }, { type: 'in_app' }])
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.events.trigger({ name: 'digest', to: 'sub-1', payload: { customVar: `calls-${i + 1}` } }),
      ),
    )
    expect(statusCount(digestJobs(fake.notifications).map((job) => job.status))).toEqual({
      delayed: 1,
      merged: 9,
    })
  })

  it(`digests each subscriber of a trigger apart, every later trigger merging into its own subscriber's digest [${MERGE}: getExistingDelayedJobWithTheSameDigestValue by subscriber]`, async () => {
    const { fake, client, wait } = fidelityFake({
      workflows: [{ identifier: 'digest', steps: [{ type: 'digest', amount: 2 }, { type: 'in_app' }] }],
    })
    await client.events.trigger({ name: 'digest', to: ['sub-1', 'sub-2'], payload: { n: 1 } })
    await client.events.trigger({ name: 'digest', to: ['sub-2'], payload: { n: 2 } })
    await client.events.trigger({ name: 'digest', to: ['sub-1', 'sub-2'], payload: { n: 3 } })
    const merged = fake.notifications.map((n) => [n.subscriber.subscriberId, n.jobs[0]?.status])
    expect(merged).toEqual([
      ['sub-1', 'delayed'],
      ['sub-2', 'delayed'],
      ['sub-2', 'merged'],
      ['sub-1', 'merged'],
      ['sub-2', 'merged'],
    ])
    wait(2_000)
    const events = (id: string) => fake.messages(id).map((m) => m.payload.n)
    expect([events('sub-1'), events('sub-2')]).toEqual([[1], [1]])
    const runs = fake.notifications.filter((n) => n.jobs[0]?.status === 'completed')
    expect(runs.map((n) => n.jobs[1]?.digest?.events.map((e) => e.n))).toEqual([
      [1, 3],
      [1, 2, 3],
    ])
  })

  it(`digests a trigger whose key value is empty or zero with those that have none [${JOBS}: buildStepMetadata, a missing value filed as "No-Value-Provided"]`, async () => {
    const { fake, client } = setup([{ type: 'digest', amount: 2, digestKey: 'id' }, { type: 'in_app' }])
    for (const payload of [{}, { id: '' }, { id: 0 }, { id: 'x' }]) {
      await client.events.trigger({ name: 'digest', to: 'sub-1', payload })
    }
    expect(digestJobs(fake.notifications).map((job) => job.status)).toEqual([
      'delayed',
      'merged',
      'merged',
      'delayed',
    ])
  })
})
