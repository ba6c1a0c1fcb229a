import { describe, expect, it } from 'vitest'
import { fidelityFake, notSent } from './setup.js'

// A repeated transactionId is the worker's business: the API acknowledges the trigger `processed`,
// then the worker's trigger-event use case refuses it when a job of the environment already carries
// that transactionId, and nothing is created. So a transactionId is taken only by a trigger that
// created jobs (an empty workflow still creates its trigger job); one that was refused at the API
// or reached no one leaves it free.
const TRIGGER_EVENT = 'libs/application-generic/src/usecases/trigger-event/trigger-event.usecase.ts'
const PARSE = 'apps/api/src/app/events/usecases/parse-event-request/parse-event-request.usecase.ts'
const JOBS =
  'libs/application-generic/src/usecases/create-notification-jobs/create-notification-jobs.usecase.ts'
const MULTICAST = 'libs/application-generic/src/usecases/trigger-multicast/trigger-multicast.usecase.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'welcome', steps: [{ type: 'in_app' }] },
      { identifier: 'paused', active: false, steps: [{ type: 'in_app' }] },
      { identifier: 'empty', steps: [] },
    ],
  })

const reached = (notifications: { subscriber: { subscriberId: string } }[]) =>
  notifications.map((n) => n.subscriber.subscriberId)

describe(`fidelity: a repeated transactionId [${TRIGGER_EVENT}: validateTransactionIdProperty]`, () => {
  it(`acknowledges the repeat processed, with the same transactionId, and creates nothing [${TRIGGER_EVENT}]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'welcome', to: 'sub-1', transactionId: 'tx-1' })
    const again = await client.events.trigger({ name: 'welcome', to: 'sub-2', transactionId: 'tx-1' })
    expect(again).toMatchObject({ acknowledged: true, status: 'processed', transactionId: 'tx-1' })
    expect(reached(fake.notifications)).toEqual(['sub-1'])
    expect(fake.subscriber('sub-2')).toBeUndefined()
  })

  it(`leaves the transactionId free after a trigger that reached no one or was refused [${TRIGGER_EVENT}: a job carrying it; ${PARSE}: trigger_not_active before the worker]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'welcome',
      to: { type: 'Topic', topicKey: 'nobody' },
      transactionId: 'tx-1',
    })
    await notSent(client.events.trigger({ name: 'paused', to: 'sub-1', transactionId: 'tx-1' }))
    await client.events.trigger({ name: 'welcome', to: 'sub-2', transactionId: 'tx-1' })
    expect(reached(fake.notifications)).toEqual(['sub-2'])
  })

  it(`answers the API's own statuses before the worker sees the repeat [${PARSE}]`, async () => {
    const { client } = setup()
    await client.events.trigger({ name: 'welcome', to: 'sub-1', transactionId: 'tx-1' })
    const paused = await notSent(
      client.events.trigger({ name: 'paused', to: 'sub-1', transactionId: 'tx-1' }),
    )
    expect(paused).toMatchObject({ status: 'trigger_not_active', transactionId: 'tx-1' })
  })

  it(`takes the transactionId with a workflow without steps, whose notification has its trigger job [${JOBS}: createATriggerJobIfMissing]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'empty', to: 'sub-1', transactionId: 'tx-1' })
    await client.events.trigger({ name: 'welcome', to: 'sub-2', transactionId: 'tx-1' })
    expect(reached(fake.notifications)).toEqual(['sub-1'])
  })

  it(`ignores the second of two bulk events with one transactionId [${TRIGGER_EVENT}: the events run one after the other]`, async () => {
    const { fake, client } = setup()
    const results = await client.events.triggerBulk([
      { name: 'welcome', to: 'sub-1', transactionId: 'tx-1', payload: {} },
      { name: 'welcome', to: 'sub-2', transactionId: 'tx-1', payload: {} },
    ])
    expect(results.map((r) => r.status)).toEqual(['processed', 'processed'])
    expect(reached(fake.notifications)).toEqual(['sub-1'])
  })
})

describe(`fidelity: many recipients [${MULTICAST}: subscribers queued in chunks of 100]`, () => {
  it(`reaches each of a topic's 250 subscribers once, in one transaction [${MULTICAST}: QUEUE_CHUNK_SIZE, SUBSCRIBER_TOPIC_DISTINCT_BATCH_SIZE]`, async () => {
    const ids = Array.from({ length: 250 }, (_, i) => `sub-${i}`)
    const { fake, client } = fidelityFake({
      workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
      topics: [{ topicKey: 'everyone', subscribers: ids }],
    })
    const result = await client.events.trigger({
      name: 'welcome',
      to: ['sub-7', { type: 'Topic', topicKey: 'everyone' }],
    })
    expect(reached(fake.notifications)).toEqual(['sub-7', ...ids.filter((id) => id !== 'sub-7')])
    expect(new Set(fake.notifications.map((n) => n.transactionId))).toEqual(new Set([result.transactionId]))
  })
})
