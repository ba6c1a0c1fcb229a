import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import {
  type BulkChunkFailed,
  type BulkChunkOutcome,
  BulkTriggerError,
  InternalServerError,
  NotificationClient,
  RequestValidationError,
  type TriggerEventParams,
  TriggerNotSentError,
} from '../../../src/index.js'
import { createMswDispatcher } from '../../../src/testing/msw/index.js'
import { rejectionOf } from '../../helpers/wire.js'

// Bulk events as the 2026 server takes them, each checked on its own: a bulk endpoint answered by
// msw in the server's own shapes (its per-event `status: "error"` slot, the command's message),
// since the fake's per-event answers are another engineer's. Server: apps/api/src/app/events/
// usecases/process-bulk-trigger (each event parsed alone, an error slot keeping the event's own
// transactionId) and events.controller.ts (a single trigger's `payload || {}`, a bulk event's as given).

const BASE_URL = 'https://api.test'
const BULK_URL = `${BASE_URL}/v1/events/trigger/bulk`
const TRIGGER_URL = `${BASE_URL}/v1/events/trigger`

type Event = TriggerEventParams & { transactionId?: string }

interface WireEvent {
  name: string
  to: unknown
  payload?: Record<string, unknown>
  transactionId?: string
}

/** What the 2026 server answers for one bulk event (the parts our operation can reach). */
function serverSlot(event: WireEvent, i: number) {
  if (event.payload === undefined || event.payload === null) {
    return {
      acknowledged: true,
      status: 'error',
      error: [
        'Validation failed for ParseEventRequestMulticastCommand: payload: payload should not be null or undefined',
      ],
      transactionId: event.transactionId,
    }
  }
  if (event.name === 'unknown-workflow') {
    return {
      acknowledged: true,
      status: 'error',
      error: ['workflow_not_found'],
      transactionId: event.transactionId,
    }
  }
  return { acknowledged: true, status: 'processed', transactionId: event.transactionId ?? `txn_${i}` }
}

/** A bulk endpoint answering as the server does, recording each request's key and events. */
function server(respond?: (events: WireEvent[], key: string) => Response | undefined) {
  const seen: { key: string; events: WireEvent[]; text: string }[] = []
  const dispatcher = createMswDispatcher([
    http.post(BULK_URL, async ({ request }) => {
      const text = await request.text()
      const { events } = JSON.parse(text) as { events: WireEvent[] }
      const key = request.headers.get('idempotency-key') ?? ''
      seen.push({ key, events, text })
      return respond?.(events, key) ?? HttpResponse.json({ data: events.map(serverSlot) }, { status: 201 })
    }),
    http.post(TRIGGER_URL, async ({ request }) => {
      const event = (await request.json()) as WireEvent
      // A single trigger the server answers with a status that sends nothing, echoing its transactionId.
      return HttpResponse.json(
        {
          data: {
            acknowledged: true,
            status: 'trigger_not_active',
            transactionId: event.transactionId ?? 'txn_1',
          },
        },
        { status: 201 },
      )
    }),
  ])
  const client = new NotificationClient({ apiKey: 'k', baseUrl: BASE_URL, dispatcher, logLevel: 'off' })
  return { client, seen }
}

function events(count: number, at?: (i: number) => object | undefined): Event[] {
  return Array.from(
    { length: count },
    (_, i) =>
      (at?.(i) ?? { name: 'digest', to: `user-${i}`, payload: { i }, transactionId: `row-${i}` }) as Event,
  )
}

async function collect(stream: AsyncIterable<BulkChunkOutcome>): Promise<BulkChunkOutcome[]> {
  const outcomes: BulkChunkOutcome[] = []
  for await (const outcome of stream) outcomes.push(outcome)
  return outcomes
}

describe('a bulk event without payload', () => {
  it('goes out with payload {}, as a single trigger does, so the server processes it', async () => {
    const { client, seen } = server()
    const list: Event[] = [
      { name: 'digest', to: 'user-0' },
      { name: 'digest', to: 'user-1', payload: { week: 47 } },
      { name: 'digest', to: 'user-2', payload: undefined },
    ]
    const results = await client.events.triggerBulk(list)

    expect(results.map((result) => result.status)).toEqual(['processed', 'processed', 'processed'])
    expect(seen[0]?.events.map((event) => event.payload)).toEqual([{}, { week: 47 }, {}])
    // The caller's events are not changed.
    expect(list[0]).toEqual({ name: 'digest', to: 'user-0' })
    expect('payload' in (list[0] as object)).toBe(false)
  })

  it('goes out with payload {} from a stream too', async () => {
    const { client, seen } = server()
    const outcomes = await collect(client.events.triggerStream([{ name: 'digest', to: 'user-0' }]))
    expect(outcomes[0]?.error).toBeUndefined()
    expect(seen[0]?.events[0]).toEqual({ name: 'digest', to: 'user-0', payload: {} })
  })
})

describe('an invalid event in a stream fails alone', () => {
  it('leaves the rest of its chunk to go out, and names it by position, transactionId and recipients', async () => {
    const { client, seen } = server()
    const source = events(300, (i) =>
      i === 150 ? { name: 'digest', transactionId: 'row-150', payload: { i } } : undefined,
    )
    const outcomes = await collect(client.events.triggerStream(source, { idempotencyKey: 'job' }))

    expect(outcomes.map((outcome) => outcome.error === undefined)).toEqual([true, false, true])
    const failed = outcomes[1] as BulkChunkFailed
    expect(failed).toMatchObject({ chunkIndex: 1, offset: 100, count: 100, idempotencyKey: 'job:1' })
    const error = failed.error as BulkTriggerError
    expect(error).toBeInstanceOf(BulkTriggerError)
    expect(error.failures).toHaveLength(1)
    const [failure] = error.failures
    expect(failure).toMatchObject({
      chunkIndex: 1,
      eventIndexes: [150],
      events: [{ index: 150, transactionId: 'row-150', to: undefined }],
    })
    expect(failure?.error).toBeInstanceOf(RequestValidationError)
    expect((failure?.error as RequestValidationError | undefined)?.issues.map((issue) => issue.path)).toEqual(
      [[150, 'to']],
    )
    expect(failure?.error.attempts).toBe(0)
    // The other 99 events of chunk 1 went out under its key, and their results are in place.
    const chunkOne = seen.find((request) => request.key === 'job:1')
    expect(chunkOne?.events.map((event) => event.transactionId)).toEqual(
      Array.from({ length: 100 }, (_, j) => `row-${100 + j}`).filter((id) => id !== 'row-150'),
    )
    expect(error.results).toHaveLength(100)
    expect(error.results[50]).toBeUndefined()
    expect(error.results[49]?.transactionId).toBe('row-149')
    expect(error.results[51]?.transactionId).toBe('row-151')
    expect(error.idempotencyKey).toBe('job:1')
    expect(error.attempts).toBe(1)
  })

  it('sends the same body for that chunk on a resume, so its key replays it rather than conflicts', async () => {
    const { client, seen } = server()
    const source = () =>
      events(250, (i) =>
        i === 120 || i === 121 ? { name: 'digest', to: `user-${i}`, payload: 'x' } : undefined,
      )
    await collect(client.events.triggerStream(source(), { idempotencyKey: 'job' }))
    await collect(client.events.triggerStream(source(), { idempotencyKey: 'job', startAtChunk: 1 }))

    const bodies = seen.filter((request) => request.key === 'job:1').map((request) => request.text)
    expect(bodies).toHaveLength(2)
    expect(bodies[1]).toBe(bodies[0])
    expect(JSON.parse(bodies[0] as string).events).toHaveLength(98)
  })

  it('sends no request for a chunk whose events are all invalid, and says nothing was sent', async () => {
    const { client, seen } = server()
    const source = events(150, (i) => (i < 100 ? { name: 'digest', to: '' } : undefined))
    const outcomes = await collect(client.events.triggerStream(source, { idempotencyKey: 'job' }))

    const error = outcomes[0]?.error as BulkTriggerError
    expect(error).toBeInstanceOf(BulkTriggerError)
    expect(error.failures).toHaveLength(100)
    expect(error.failures.every((failure) => failure.error instanceof RequestValidationError)).toBe(true)
    expect(error.attempts).toBe(0)
    expect(error.idempotencyKey).toBeUndefined()
    expect(error.message).toMatch(/^100 of 100 events were refused before sending/)
    expect(seen.map((request) => request.key)).toEqual(['job:1'])
    expect(outcomes[1]?.error).toBeUndefined()
  })

  it('fails an event JSON cannot carry alone, and sends the others of its chunk', async () => {
    const { client, seen } = server()
    const source = events(3, (i) =>
      i === 1 ? { name: 'digest', to: 'user-1', payload: { big: 1n } } : undefined,
    )
    const [outcome] = await collect(client.events.triggerStream(source))

    const error = outcome?.error as BulkTriggerError
    expect(error.failures.map((failure) => [failure.eventIndexes, failure.error.name])).toEqual([
      [[1], 'RequestValidationError'],
    ])
    expect(error.failures[0]?.error.message).toMatch(/1: cannot be sent as JSON/)
    expect(seen[0]?.events.map((event) => event.to)).toEqual(['user-0', 'user-2'])
    expect(error.results.map((result) => result?.status)).toEqual(['processed', undefined, 'processed'])
  })

  it('fails the chunk of an event that cannot even be read, and the call accounts for every event', async () => {
    const { client, seen } = server()
    const unreadable = {
      get name(): string {
        throw new Error('row 101 is gone')
      },
      to: 'user-101',
    }
    const list = events(250, (i) => (i === 101 ? unreadable : undefined))
    const error = (await rejectionOf(client.events.triggerBulk(list))) as BulkTriggerError

    expect(error).toBeInstanceOf(BulkTriggerError)
    expect(error.failures.map((failure) => [failure.chunkIndex, failure.eventIndexes.length])).toEqual([
      [1, 100],
    ])
    expect(error.failures[0]?.error).toBeInstanceOf(RequestValidationError)
    expect(error.failures[0]?.error.message).toContain('row 101 is gone')
    expect(error.results.filter((result) => result !== undefined)).toHaveLength(150)
    expect(seen).toHaveLength(2)
  })

  it('names the events of a failed request by position in the source, not in the request', async () => {
    const { client } = server((_events, key) =>
      key.endsWith(':2') ? HttpResponse.json({ message: 'down' }, { status: 500 }) : undefined,
    )
    const source = events(250, (i) => (i === 201 ? { name: 'digest', payload: {} } : undefined))
    const outcomes = await collect(client.events.triggerStream(source, { maxRetries: 0, startAtChunk: 1 }))

    const error = outcomes[1]?.error as BulkTriggerError
    expect(outcomes.map((outcome) => outcome.chunkIndex)).toEqual([1, 2])
    // In the order of their first event.
    expect(error.failures.map((failure) => [failure.error.name, failure.eventIndexes.length])).toEqual([
      ['InternalServerError', 49],
      ['RequestValidationError', 1],
    ])
    const requestFailure = error.failures[0]
    expect(requestFailure?.eventIndexes).not.toContain(201)
    expect(requestFailure?.eventIndexes[0]).toBe(200)
    expect(requestFailure?.events[0]).toEqual({ index: 200, transactionId: 'row-200', to: 'user-200' })
    expect(requestFailure?.events.map((event) => event.index)).toEqual(requestFailure?.eventIndexes)
    expect(requestFailure?.error).toBeInstanceOf(InternalServerError)
  })
})

describe('every failure names its event', () => {
  it("a server's error slot in a bulk: position, the event's transactionId and recipients, no email in the message", async () => {
    const { client } = server()
    const list: Event[] = [
      { name: 'digest', to: 'user-0', payload: {} },
      {
        name: 'unknown-workflow',
        to: [
          { subscriberId: 'user-1', email: 'ada@example.com' },
          'user-2',
          { type: 'Topic', topicKey: 'beta' },
          'u4',
        ],
        payload: {},
        transactionId: 'row-1',
      },
    ]
    const error = (await rejectionOf(client.events.triggerBulk(list))) as BulkTriggerError

    const [failure] = error.failures
    expect(failure?.events).toEqual([{ index: 1, transactionId: 'row-1', to: list[1]?.to }])
    const notSent = failure?.error as TriggerNotSentError
    expect(notSent).toBeInstanceOf(TriggerNotSentError)
    expect(notSent).toMatchObject({ eventIndex: 1, transactionId: 'row-1', to: list[1]?.to, status: 'error' })
    expect(notSent.message).toBe(
      'Not sent: the server answered event 1 (transactionId "row-1", to "user-1", "user-2", topic "beta" and 1 more) with status "error": workflow_not_found',
    )
    expect(error.message).not.toContain('ada@example.com')
  })

  it("an error slot without transactionId (as servers before 2026 answered): the event's own", async () => {
    const { client } = server((list) =>
      HttpResponse.json(
        { data: list.map(() => ({ acknowledged: true, status: 'error', error: ['workflow_not_found'] })) },
        { status: 201 },
      ),
    )
    const error = (await rejectionOf(
      client.events.triggerBulk([{ name: 'digest', to: 'user-0', transactionId: 'row-0' }]),
    )) as BulkTriggerError
    expect(error.failures[0]?.error).toMatchObject({ eventIndex: 0, transactionId: 'row-0', to: 'user-0' })
  })

  it('a single trigger the server sent nothing for: its transactionId and recipients', async () => {
    const { client } = server()
    const error = await rejectionOf(
      client.events.trigger({
        name: 'digest',
        to: { subscriberId: 'user-9', email: 'x@example.com' },
        transactionId: 'order-9',
      }),
    )
    expect(error).toBeInstanceOf(TriggerNotSentError)
    expect(error).toMatchObject({
      transactionId: 'order-9',
      to: { subscriberId: 'user-9', email: 'x@example.com' },
      status: 'trigger_not_active',
    })
    expect((error as TriggerNotSentError).eventIndex).toBeUndefined()
    expect((error as Error).message).toBe(
      'Not sent: the server answered the trigger (transactionId "order-9", to "user-9") with status "trigger_not_active"',
    )
  })

  it('a single trigger without transactionId: the one the server answered with', async () => {
    const { client } = server()
    const error = await rejectionOf(client.events.trigger({ name: 'digest', to: 'user-9' }))
    expect(error).toMatchObject({ transactionId: 'txn_1', to: 'user-9' })
  })
})
