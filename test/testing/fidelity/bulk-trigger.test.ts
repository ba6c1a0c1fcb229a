import { describe, expect, it } from 'vitest'
import { changedBy, fidelityFake, IN_APP_AND_EMAIL } from './setup.js'
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
      ['1111', '2222', '3333'].map((transactionId) => ({
        transactionId,
        name: 'first',
        to: 'sub-1',
        payload: {},
      })),
    )
    expect(results).toEqual(
      ['1111', '2222', '3333'].map((transactionId) => ({
        acknowledged: true,
        status: 'processed',
        transactionId,
        activityFeedLink: expect.stringContaining('/activity/requests?selectedLogId=req_'),
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

  it(`refuses more than 100 events as a whole, by the command's check [${SOURCE}: "should throw an error when sending more than 100 events"] ${changedBy('commandValidationMessage')}`, async () => {
    const { fake, send } = setup()
    const event = { transactionId: '2222', name: 'first', to: 'sub-1', payload: {} }
    const events = Array.from({ length: 101 }, () => event)
    const answer = await send('POST', '/v1/events/trigger/bulk', { events })
    expect(answer.status).toBe(422)
    expect(answer.body).toEqual({
      statusCode: 422,
      timestamp: expect.any(String),
      path: '/v1/events/trigger/bulk',
      message:
        'Validation failed for ProcessBulkTriggerCommand: events: events must contain no more than 100 elements',
      ctx: {},
      errors: { events: { messages: ['events must contain no more than 100 elements'], value: events } },
    })
    expect(fake.notifications).toEqual([])
  })

  it(`refuses an empty list, or none, as a whole [${USE_CASE.replace('usecase', 'command')}: @IsArray @ArrayNotEmpty @ArrayMaxSize(100)] ${changedBy('commandValidation422')}`, async () => {
    const { send } = setup()
    const empty = await send('POST', '/v1/events/trigger/bulk', { events: [] })
    expect(empty.status).toBe(422)
    expect(empty.body.errors).toEqual({ events: { messages: ['events should not be empty'], value: [] } })
    const none = await send('POST', '/v1/events/trigger/bulk', {})
    expect(none.body).toMatchObject({
      message:
        'Validation failed for ProcessBulkTriggerCommand: events: events must contain no more than 100 elements, events should not be empty, events must be an array',
      errors: { events: { messages: expect.any(Array) } },
    })
    expect(none.body.errors).not.toHaveProperty('events.value')
  })

  it(`answers 201 with an error in the slot of an unknown workflow or an event with an empty name, keeping each event's transactionId, and runs the others [${SOURCE}: "should handle bulk if one of the events returns errors"] ${changedBy('bulkErrorTransactionId')}`, async () => {
    const { fake, send } = setup()
    const payload = { firstName: 'Testing of User Name', urlVariable: '/test/url/path' }
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [
        { transactionId: '1111', name: 'non-existing-trigger', to: 'sub-1', payload },
        { transactionId: '2222', name: 'first', to: 'sub-1', payload },
        { transactionId: '1111', payload: { ...payload, name: '' }, name: '', to: [] },
      ],
    })
    expect(answer.status).toBe(201)
    expect(answer.body.data).toEqual([
      { acknowledged: true, status: 'error', error: ['workflow_not_found'], transactionId: '1111' },
      {
        acknowledged: true,
        status: 'processed',
        transactionId: '2222',
        activityFeedLink: expect.any(String),
      },
      { acknowledged: true, status: 'error', error: ['workflow_not_found'], transactionId: '1111' },
    ])
    expect(fake.notifications.map((n) => n.transactionId)).toEqual(['2222'])
  })

  it(`fails an event without a payload alone, with the command's message: a bulk event's payload is not defaulted to {} [${USE_CASE}: payload: event.payload] ${changedBy('commandValidationMessage')}`, async () => {
    const { fake, send } = setup()
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [
        { name: 'first', to: 'sub-1', transactionId: 'no-payload' },
        { name: 'first', to: 'sub-2', payload: {} },
        { name: 'first', to: 'sub-2', payload: null },
      ],
    })
    const failed = {
      acknowledged: true,
      status: 'error',
      error: [
        'Validation failed for ParseEventRequestMulticastCommand: payload: payload should not be null or undefined',
      ],
    }
    expect(answer.body.data).toEqual([
      { ...failed, transactionId: 'no-payload' },
      expect.objectContaining({ status: 'processed' }),
      failed,
    ])
    expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['sub-2'])
  })

  it(`fails an event without recipients or name alone, naming every field the command refused [${USE_CASE}: ParseEventRequestMulticastCommand.create in the event's try] ${changedBy('commandValidationMessage')}`, async () => {
    const { send } = setup()
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [{ payload: {} }, { name: 'first', payload: {}, transactionId: 5 }, 7],
    })
    expect(answer.status).toBe(201)
    expect(answer.body.data).toEqual([
      {
        acknowledged: true,
        status: 'error',
        error: [
          'Validation failed for ParseEventRequestMulticastCommand: to: to should not be null or undefined; identifier: identifier should not be null or undefined, identifier must be a string',
        ],
      },
      {
        acknowledged: true,
        status: 'error',
        error: [
          'Validation failed for ParseEventRequestMulticastCommand: to: to should not be null or undefined; transactionId: transactionId must be a string',
        ],
        transactionId: 5,
      },
      {
        acknowledged: true,
        status: 'error',
        error: [
          'Validation failed for ParseEventRequestMulticastCommand: to: to should not be null or undefined; identifier: identifier should not be null or undefined, identifier must be a string; payload: payload should not be null or undefined',
        ],
      },
    ])
  })

  it(`fails an event whose context the command refuses alone [${USE_CASE}: context: event.context] ${changedBy('bulkContext')}`, async () => {
    const { fake, send } = setup()
    const six = { a: 'x', b: 'x', c: 'x', d: 'x', e: 'x', f: 'x' }
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [
        { name: 'first', to: 'sub-1', payload: {}, context: six },
        { name: 'first', to: 'sub-1', payload: {}, context: {} },
        { name: 'first', to: 'sub-2', payload: {}, context: { tenant: 'acme', app: { id: 'jira' } } },
      ],
    })
    expect(answer.body.data).toEqual([
      {
        acknowledged: true,
        status: 'error',
        error: [
          'Validation failed for ParseEventRequestMulticastCommand: context: Too many contexts: 6 provided, maximum allowed is 5',
        ],
      },
      {
        acknowledged: true,
        status: 'error',
        error: [
          'Validation failed for ParseEventRequestMulticastCommand: context: Invalid context payload structure. Expected object with context types as keys and string IDs or {id, data} objects as values',
        ],
      },
      expect.objectContaining({ status: 'processed' }),
    ])
    expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['sub-2'])
  })

  it(`accepts an event of more than 100 recipients: only the number of events is limited [${SOURCE.replace('e2e/bulk-trigger.e2e', 'dtos/trigger-event-request.dto')}: to is @IsDefined only]`, async () => {
    const { fake, send } = setup()
    const to = Array.from({ length: 150 }, (_, i) => `r-${i}`)
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [{ name: 'second', to, payload: {} }],
    })
    expect(answer.body.data).toEqual([expect.objectContaining({ status: 'processed' })])
    expect(new Set(fake.notifications.map((n) => n.subscriber.subscriberId)).size).toBe(150)
  })

  it(`fails the whole request with a 500 when an event is null: the server reads every event's name first [${USE_CASE}: command.events.map((event) => event.name)]`, async () => {
    const { fake, send } = setup()
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [{ name: 'first', to: 'sub-1', payload: {} }, null],
    })
    expect(answer.status).toBe(500)
    expect(answer.body).toMatchObject({ statusCode: 500, errorId: expect.any(String) })
    expect(answer.body).not.toHaveProperty('ctx')
    expect(fake.notifications).toEqual([])
  })

  it(`answers an event whose payload the workflow's schema refuses with its own error and runs the others [${USE_CASE}: each event through the trigger use case, a failure caught into its slot] ${changedBy('payloadSchema')}`, async () => {
    const { fake, send } = fidelityFake({
      workflows: [{ identifier: 'first', steps: IN_APP_AND_EMAIL, payloadSchema: { required: ['orderId'] } }],
    })
    const answer = await send('POST', '/v1/events/trigger/bulk', {
      events: [
        { name: 'first', to: 'sub-1', payload: { orderId: 'o-1' } },
        { name: 'first', to: 'sub-2', payload: {}, transactionId: 'bad' },
      ],
    })
    expect(answer.status).toBe(201)
    expect(answer.body.data).toEqual([
      expect.objectContaining({ status: 'processed', transactionId: expect.stringMatching(/^txn_/) }),
      {
        acknowledged: true,
        status: 'error',
        error: ["Payload validation failed: root.orderId: must have required property 'orderId'"],
        transactionId: 'bad',
      },
    ])
    expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['sub-1'])
  })
})
