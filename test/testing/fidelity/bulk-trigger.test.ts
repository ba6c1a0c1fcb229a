import { describe, expect, it } from 'vitest'
import { fidelityFake, IN_APP_AND_EMAIL } from './setup.js'
import { e2eSubscriber } from './subscribers.js'

const SOURCE = 'apps/api/src/app/events/e2e/bulk-trigger.e2e.ts'
const USE_CASE = 'apps/api/src/app/events/usecases/process-bulk-trigger/process-bulk-trigger.usecase.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'first', steps: IN_APP_AND_EMAIL },
      { identifier: 'second', steps: [{ type: 'sms' }] },
    ],
    subscribers: [e2eSubscriber('sub-1'), e2eSubscriber('sub-2')],
  })

describe(`fidelity: ${SOURCE}`, () => {
  it(`answers one result per event, in order [${SOURCE}: "should return the response array in correct order"]`, async () => {
    const { client } = setup()
    const results = await client.events.triggerBulk(
      ['1111', '2222', '3333'].map((transactionId) => ({ transactionId, name: 'first', to: 'sub-1' })),
    )
    expect(results).toEqual(
      ['1111', '2222', '3333'].map((transactionId) => ({
        acknowledged: true,
        status: 'processed',
        transactionId,
      })),
    )
  })

  it(`runs each event's workflow for its own subscribers [${SOURCE}: "should generate message and notification based on a bulk event"]`, async () => {
    const { fake, client } = setup()
    await client.events.triggerBulk([
      { name: 'first', to: { subscriberId: 'sub-1' }, payload: { firstName: 'Testing of User Name' } },
      { name: 'second', to: { subscriberId: 'sub-2' }, payload: { firstName: 'This is a second template' } },
    ])
    const bySubscriber = fake.notifications.map((n) => [
      n.subscriber.subscriberId,
      n.template.triggers[0]?.identifier,
    ])
    expect(bySubscriber).toEqual([
      ['sub-1', 'first'],
      ['sub-2', 'second'],
    ])
    expect(fake.messages('sub-1')).toHaveLength(1)
    expect(fake.messages('sub-1')[0]?.payload.attachments).toBeUndefined()
    expect(fake.notifications[1]?.jobs.map((job) => [job.type, job.status])).toEqual([['sms', 'completed']])
  })

  it(`refuses more than 100 events as a whole [${SOURCE}: "should throw an error when sending more than 100 events"]`, async () => {
    const { fake, send } = setup()
    const event = { transactionId: '2222', name: 'first', to: 'sub-1' }
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: Array.from({ length: 101 }, () => event),
    })
    expect(answer.status).toBe(422)
    expect(JSON.stringify(answer.body)).toContain('events must contain no more than 100 elements')
    expect(fake.notifications).toEqual([])
  })

  it(`answers 201 with an error in the slot of an unknown workflow or an event without a name, and runs the others [${SOURCE}: "should handle bulk if one of the events returns errors"]`, async () => {
    const { fake, send } = setup()
    const payload = { firstName: 'Testing of User Name', urlVariable: '/test/url/path' }
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [
        { transactionId: '1111', name: 'non-existing-trigger', to: 'sub-1', payload },
        { transactionId: '2222', name: 'first', to: 'sub-1', payload },
        { transactionId: '1111', payload },
      ],
    })
    expect(answer.status).toBe(201)
    expect(answer.body.data).toEqual([
      { acknowledged: true, status: 'error', error: ['workflow_not_found'] },
      { acknowledged: true, status: 'processed', transactionId: '2222' },
      { acknowledged: true, status: 'error', error: ['workflow_not_found'] },
    ])
    expect(fake.notifications.map((n) => n.transactionId)).toEqual(['2222'])
  })

  it(`answers an event with invalid fields with its own error and runs the others [${USE_CASE}: each event through the trigger use case, a failure caught into its slot]`, async () => {
    const { fake, send } = setup()
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [
        { name: 'first', to: 'sub-1' },
        { name: 'first', to: 'sub-2', payload: 'not an object' },
      ],
    })
    expect(answer.status).toBe(201)
    expect(answer.body.data).toEqual([
      { acknowledged: true, status: 'processed', transactionId: expect.any(String) },
      { acknowledged: true, status: 'error', error: ['payload must be an object'] },
    ])
    expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['sub-1'])
  })
})
