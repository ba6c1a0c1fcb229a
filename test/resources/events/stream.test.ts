import { describe, expect, it } from 'vitest'
import {
  AbortError,
  type BulkChunkFailed,
  type BulkChunkOutcome,
  BulkTriggerError,
  NotificationClient,
  type NotificationClientOptions,
  RequestValidationError,
  TimeoutError,
  type TriggerEventParams,
  TriggerNotSentError,
} from '../../../src/index.js'
import { API_KEY, seededFake } from '../../helpers/fake.js'
import { rejectionOf } from '../../helpers/wire.js'

// triggerStream over a bulk endpoint that answers each event with a result derived from it, after a
// delay chosen per chunk so that requests finish out of order.

type Event = TriggerEventParams & { payload: { i: number } }
type FetchFunction = NonNullable<NotificationClientOptions['fetch']>

function event(i: number): Event {
  return { name: 'digest', to: `user-${i}`, payload: { i } }
}

function* events(count: number, pulled = { count: 0 }): Generator<Event> {
  for (let i = 0; i < count; i++) {
    pulled.count++
    yield event(i)
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** The bulk endpoint: what it saw, and how many requests it held at once. */
function bulkServer(
  options: { delayFor?: (chunkIndex: number) => number; failChunk?: number; notSent?: number[] } = {},
) {
  const server = { keys: [] as string[], inFlight: 0, maxInFlight: 0 }
  const fetch: FetchFunction = async (_url, init) => {
    const key = new Headers(init.headers).get('idempotency-key') ?? ''
    const chunkIndex = Number(key.slice(key.lastIndexOf(':') + 1))
    const body = JSON.parse(init.body ?? '{}') as { events: Event[] }
    server.keys.push(key)
    server.inFlight++
    server.maxInFlight = Math.max(server.maxInFlight, server.inFlight)
    await delay(options.delayFor?.(chunkIndex) ?? 1)
    server.inFlight--
    if (chunkIndex === options.failChunk) {
      return Response.json({ statusCode: 400, message: 'bad chunk' }, { status: 400 })
    }
    const data = body.events.map(({ payload }) =>
      options.notSent?.includes(payload.i)
        ? { acknowledged: true, status: 'error', error: ['workflow_not_found'] }
        : { acknowledged: true, status: 'processed', transactionId: `tx-${payload.i}` },
    )
    return Response.json({ data }, { status: 201 })
  }
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://api.test',
    fetch,
    logLevel: 'off',
  })
  return { server, client }
}

async function collect(stream: AsyncIterable<BulkChunkOutcome>): Promise<BulkChunkOutcome[]> {
  const outcomes: BulkChunkOutcome[] = []
  for await (const outcome of stream) outcomes.push(outcome)
  return outcomes
}

describe('events.triggerStream', () => {
  it('yields one outcome per request in chunk order, whichever request finishes first', async () => {
    // Chunk 0 is the slowest, chunk 9 the fastest.
    const { client, server } = bulkServer({ delayFor: (chunk) => (10 - chunk) * 5 })
    const outcomes = await collect(
      client.events.triggerStream(events(950), { idempotencyKey: 'job-7', concurrency: 4 }),
    )
    expect(
      outcomes.map(({ chunkIndex, offset, count, idempotencyKey }) => ({
        chunkIndex,
        offset,
        count,
        idempotencyKey,
      })),
    ).toEqual(
      Array.from({ length: 10 }, (_, chunk) => ({
        chunkIndex: chunk,
        offset: chunk * 100,
        count: chunk === 9 ? 50 : 100,
        idempotencyKey: `job-7:${chunk}`,
      })),
    )
    const transactionIds = outcomes.flatMap((outcome) =>
      outcome.results?.map((result) => result.transactionId),
    )
    expect(transactionIds).toEqual(Array.from({ length: 950 }, (_, i) => `tx-${i}`))
    expect(server.maxInFlight).toBe(4)
  })

  it('pulls the source only as request slots free up: a slow consumer holds back the reading', async () => {
    const { client, server } = bulkServer({ delayFor: (chunk) => (chunk % 3) * 4 })
    const pulled = { count: 0 }
    const stream = client.events.triggerStream(events(5_000, pulled), { concurrency: 3 })
    expect(pulled.count).toBe(0)
    let consumed = 0
    let mostAhead = 0
    for await (const outcome of stream) {
      consumed += outcome.count
      mostAhead = Math.max(mostAhead, pulled.count - consumed)
      await delay(15)
      mostAhead = Math.max(mostAhead, pulled.count - consumed)
    }
    expect(consumed).toBe(5_000)
    // At most 3 requests in flight and 3 outcomes waiting: 6 chunks of 100 ahead of the consumer.
    expect(mostAhead).toBeLessThanOrEqual(600)
    expect(server.maxInFlight).toBeLessThanOrEqual(3)
  })

  it('stops sending when the consumer breaks, and lets the requests already sent finish', async () => {
    const { client, server } = bulkServer({ delayFor: (chunk) => (chunk === 0 ? 1 : 30) })
    const pulled = { count: 0 }
    let closed = false
    const source = (function* () {
      try {
        yield* events(10_000, pulled)
      } finally {
        closed = true
      }
    })()
    for await (const outcome of client.events.triggerStream(source, { concurrency: 3 })) {
      expect(outcome.chunkIndex).toBe(0)
      break
    }
    // return() resolved after the requests in flight were answered; the source was closed.
    expect(server.inFlight).toBe(0)
    expect(closed).toBe(true)
    const sent = server.keys.length
    await delay(50)
    expect(server.keys.length).toBe(sent)
    expect(sent).toBeLessThanOrEqual(6)
  })

  it('fails an invalid event alone, without sending it, sends the rest of its chunk, and goes on', async () => {
    const { client, server } = bulkServer()
    const list: unknown[] = Array.from({ length: 300 }, (_, i) => event(i))
    list[150] = { name: 'digest', payload: { i: 150 } }
    const outcomes = await collect(
      client.events.triggerStream(list as Event[], { idempotencyKey: 'bad-one' }),
    )
    const failed = outcomes[1] as BulkChunkFailed
    expect(failed).toMatchObject({ chunkIndex: 1, offset: 100, count: 100 })
    const { failures, results } = failed.error as BulkTriggerError
    expect(failures.map((failure) => [failure.eventIndexes, failure.error.attempts])).toEqual([[[150], 0]])
    expect((failures[0]?.error as RequestValidationError | undefined)?.issues[0]?.path).toEqual([150, 'to'])
    expect(results.filter((result) => result !== undefined)).toHaveLength(99)
    expect(outcomes.map((outcome) => outcome.error === undefined)).toEqual([true, false, true])
    expect(server.keys.sort()).toEqual(['bad-one:0', 'bad-one:1', 'bad-one:2'])
  })

  it('reports a request that fails after its retries as an outcome, and goes on', async () => {
    const { client } = bulkServer({ failChunk: 1 })
    const outcomes = await collect(client.events.triggerStream(events(300)))
    expect(outcomes.map((outcome) => outcome.error?.name)).toEqual([undefined, 'BadRequestError', undefined])
  })

  it('reports a request with events the server did not send as failed, naming them by their position in the source', async () => {
    const { client } = bulkServer({ notSent: [105, 140] })
    const outcomes = await collect(client.events.triggerStream(events(250), { idempotencyKey: 'job-9' }))

    expect(outcomes.map((outcome) => outcome.error === undefined)).toEqual([true, false, true])
    const failed = outcomes[1] as BulkChunkFailed
    expect(failed).toMatchObject({ chunkIndex: 1, offset: 100, count: 100, idempotencyKey: 'job-9:1' })
    expect(failed.error).toBeInstanceOf(BulkTriggerError)
    const { results, failures } = failed.error as BulkTriggerError
    // This request's results, event offset + j at j; the events not sent left out.
    expect(results).toHaveLength(100)
    expect(results[5]).toBeUndefined()
    expect(results[40]).toBeUndefined()
    expect(results[6]).toMatchObject({ transactionId: 'tx-106' })
    expect(failures.map((failure) => failure.eventIndexes)).toEqual([[105], [140]])
    expect(failures.map((failure) => failure.error)).toEqual([
      expect.any(TriggerNotSentError),
      expect.any(TriggerNotSentError),
    ])
    expect(failures[0]?.error).toMatchObject({ status: 'error', idempotencyKey: 'job-9:1', attempts: 1 })
  })

  it('reads past the first startAtChunk chunks without sending them', async () => {
    const { client, server } = bulkServer()
    const outcomes = await collect(
      client.events.triggerStream(events(520), { idempotencyKey: 'resume', startAtChunk: 3 }),
    )
    expect(outcomes.map(({ chunkIndex, offset, count }) => [chunkIndex, offset, count])).toEqual([
      [3, 300, 100],
      [4, 400, 100],
      [5, 500, 20],
    ])
    expect(outcomes[0]?.results?.[0]?.transactionId).toBe('tx-300')
    expect(server.keys.sort()).toEqual(['resume:3', 'resume:4', 'resume:5'])
  })

  it('resumes after a stop with the same key: chunks the server applied are replayed, not sent twice', async () => {
    const fake = seededFake()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://fake.test',
      fetch: fake.fetch,
      logLevel: 'off',
    })
    const source = () => Array.from({ length: 450 }, (_, i) => ({ name: 'welcome', to: `user-${i}` }))
    let last = -1
    for await (const outcome of client.events.triggerStream(source(), {
      idempotencyKey: 'job-9',
      concurrency: 3,
    })) {
      last = outcome.chunkIndex
      break
    }
    // Chunks 1 and 2 were in flight at the break: applied, but not seen by the consumer.
    expect(fake.notifications.length).toBeGreaterThan(100)
    const resumed = await collect(
      client.events.triggerStream(source(), { idempotencyKey: 'job-9', startAtChunk: last + 1 }),
    )
    expect(resumed.every((outcome) => outcome.results !== undefined)).toBe(true)
    expect(fake.notifications).toHaveLength(450)
  })

  it('ends with AbortError once the signal aborts, after the outcomes of the requests started', async () => {
    const { client, server } = bulkServer({ delayFor: () => 10 })
    const controller = new AbortController()
    const seen: BulkChunkOutcome[] = []
    const error = await rejectionOf(
      (async () => {
        for await (const outcome of client.events.triggerStream(events(100_000), {
          signal: controller.signal,
        })) {
          seen.push(outcome)
          if (seen.length === 2) controller.abort()
        }
      })(),
    )
    expect(error).toBeInstanceOf(AbortError)
    expect(server.keys.length).toBeLessThan(10)
  })

  it('ends with TimeoutError once deadlineMs has passed, without reading further', async () => {
    const { client, server } = bulkServer({ delayFor: () => 40 })
    const pulled = { count: 0 }
    const outcomes: BulkChunkOutcome[] = []
    const error = await rejectionOf(
      (async () => {
        for await (const outcome of client.events.triggerStream(events(100_000, pulled), {
          deadlineMs: 100,
        })) {
          outcomes.push(outcome)
        }
      })(),
    )
    expect(error).toBeInstanceOf(TimeoutError)
    expect(outcomes.length).toBeGreaterThan(0)
    expect(pulled.count).toBeLessThan(2_000)
    expect(server.keys.length).toBeLessThan(20)
  })

  it("throws the source's error after the outcomes of the chunks read before it", async () => {
    const { client } = bulkServer()
    const source = (function* () {
      yield* events(250)
      throw new Error('cursor lost')
    })()
    const outcomes: BulkChunkOutcome[] = []
    const error = await rejectionOf(
      (async () => {
        for await (const outcome of client.events.triggerStream(source)) outcomes.push(outcome)
      })(),
    )
    expect((error as Error).message).toBe('cursor lost')
    // The 50 events read after chunk 1 are not sent: the source could not say whether more followed.
    expect(outcomes.map((outcome) => outcome.count)).toEqual([100, 100])
  })

  it('refuses what is not an iterable, and bad options, before reading anything', () => {
    const { client } = bulkServer()
    expect(() => client.events.triggerStream('events' as unknown as Event[])).toThrow(RequestValidationError)
    const pulled = { count: 0 }
    expect(() => client.events.triggerStream(events(10, pulled), { startAtChunk: -1 })).toThrow(
      RequestValidationError,
    )
    expect(() => client.events.triggerStream(events(10, pulled), { concurrency: 0 })).toThrow(
      RequestValidationError,
    )
    expect(pulled.count).toBe(0)
  })

  it('refuses an unknown option naming the one meant, with the route, before reading or sending', () => {
    const { client, server } = bulkServer()
    const pulled = { count: 0 }
    const refusal = (options: object) => {
      try {
        client.events.triggerStream(events(10, pulled), options as { startAtChunk?: number })
      } catch (error) {
        return error as RequestValidationError
      }
      throw new Error('not refused')
    }
    const typo = refusal({ startAtChunks: 3 })
    expect(typo).toBeInstanceOf(RequestValidationError)
    expect(typo.issues).toEqual([
      { path: ['startAtChunks'], message: 'unknown option; did you mean `startAtChunk`?' },
    ])
    expect(typo.method).toBe('POST')
    expect(typo.path).toBe('/v1/events/trigger/bulk')
    expect(typo.idempotencyKey).toBeUndefined()
    // onProgress is triggerBulk's: the stream's outcomes are its progress.
    expect(refusal({ onProgress: () => {} }).issues).toEqual([
      { path: ['onProgress'], message: 'unknown option' },
    ])
    expect(pulled.count).toBe(0)
    expect(server.keys).toEqual([])
  })
})

describe('events.triggerBulk with iterables', () => {
  it.each([
    ['a Set', () => new Set(Array.from({ length: 250 }, (_, i) => event(i)))],
    ['a generator', () => events(250)],
    [
      'an async generator',
      () =>
        (async function* () {
          yield* events(250)
        })(),
    ],
  ])('accepts %s and returns the results in order', async (_name, source) => {
    const { client } = bulkServer({ delayFor: (chunk) => (3 - chunk) * 5 })
    const results = await client.events.triggerBulk(source())
    expect(results.map((result) => result.transactionId)).toEqual(
      Array.from({ length: 250 }, (_, i) => `tx-${i}`),
    )
  })

  it("refuses startAtChunk, the stream's option, before reading anything", async () => {
    const { client, server } = bulkServer()
    const pulled = { count: 0 }
    const error = await rejectionOf(
      client.events.triggerBulk(events(10, pulled), { startAtChunk: 1 } as { concurrency?: number }),
    )
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues).toEqual([
      { path: ['startAtChunk'], message: 'unknown option' },
    ])
    expect(server.keys).toEqual([])
  })

  it('checks each event of an async iterable as its chunk goes out: an invalid one fails alone', async () => {
    const { client, server } = bulkServer()
    const source = async function* () {
      yield* events(199)
      yield { name: 'digest', payload: { i: 199 } } as unknown as Event
    }
    const error = await rejectionOf(client.events.triggerBulk(source()))
    expect(error).toBeInstanceOf(BulkTriggerError)
    const { failures } = error as BulkTriggerError
    expect(failures.map((failure) => failure.eventIndexes)).toEqual([[199]])
    expect((failures[0]?.error as RequestValidationError | undefined)?.issues[0]?.path).toEqual([199, 'to'])
    expect(server.keys).toHaveLength(2)
  })
})
