import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import {
  AbortError,
  BadRequestError,
  BulkTriggerError,
  InternalServerError,
  type Logger,
  NotificationClient,
  NotifyKitError,
  RequestValidationError,
  ResponseValidationError,
  TimeoutError,
  type TriggerEventParams,
  TriggerNotSentError,
} from '../../../src/index.js'
import { createMswDispatcher } from '../../../src/testing/msw/index.js'
import { captureLogs } from '../../helpers/logs.js'
import { rejectionOf } from '../../helpers/wire.js'

const BASE_URL = 'https://api.test'
const BULK_URL = `${BASE_URL}/v1/events/trigger/bulk`

type Event = TriggerEventParams & { payload: { i: number } }

/** One request as the handler saw it. */
interface SeenRequest {
  key: string | null
  indexes: number[]
}

function makeEvents(count: number): Event[] {
  return Array.from({ length: count }, (_, i) => ({ name: 'digest', to: `user-${i}`, payload: { i } }))
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, offset) => from + offset)
}

/** The result the handler derives from an event, so that a result in the wrong slot shows. */
function resultFor(i: number) {
  return { acknowledged: true, status: 'processed', transactionId: `tx-${i}` }
}

async function readIndexes(request: Request): Promise<number[]> {
  const body = (await request.json()) as { events: { payload: { i: number } }[] }
  return body.events.map((event) => event.payload.i)
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Signals, per chunk, that the handler has answered it. */
function answeredSignals() {
  const signals = new Map<number, { promise: Promise<void>; resolve: () => void }>()
  const signal = (chunk: number) => {
    let entry = signals.get(chunk)
    if (!entry) {
      // Not Promise.withResolvers: Node 20 lacks it.
      let resolve = () => {}
      const promise = new Promise<void>((done) => {
        resolve = done
      })
      entry = { promise, resolve }
      signals.set(chunk, entry)
    }
    return entry
  }
  return {
    answered: (chunk: number) => signal(chunk).resolve(),
    // Bounded, so that an implementation that never sends the awaited chunk fails instead of hanging.
    waitFor: (chunk: number) => Promise.race([signal(chunk).promise, delay(1_000)]),
  }
}

/**
 * A bulk endpoint that answers each event with a result derived from it, after a delay chosen by
 * `delayFor` (so chunks can finish out of order), and records what it saw and how many requests
 * were in flight at once.
 */
function bulkServer(
  options: {
    delayFor?: (indexes: number[]) => number
    holdUntil?: (indexes: number[]) => Promise<unknown> | undefined
    onAnswered?: (indexes: number[]) => void
    respond?: (indexes: number[], request: Request) => Response | undefined
    logger?: Logger
  } = {},
) {
  const seen: SeenRequest[] = []
  const finished: number[][] = []
  let inFlight = 0
  let maxInFlight = 0
  const dispatcher = createMswDispatcher([
    http.post(BULK_URL, async ({ request }) => {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      try {
        const key = request.headers.get('idempotency-key')
        const indexes = await readIndexes(request)
        seen.push({ key, indexes })
        await delay(options.delayFor?.(indexes) ?? 0)
        await options.holdUntil?.(indexes)
        const custom = options.respond?.(indexes, request)
        if (custom) return custom
        finished.push(indexes)
        options.onAnswered?.(indexes)
        return HttpResponse.json({ data: indexes.map(resultFor) }, { status: 201 })
      } finally {
        inFlight--
      }
    }),
  ])
  const client = new NotificationClient({
    apiKey: 'test-key',
    baseUrl: BASE_URL,
    dispatcher,
    ...(options.logger
      ? { logger: options.logger, logLevel: 'warn' as const }
      : { logLevel: 'off' as const }),
  })
  return {
    client,
    seen,
    finished,
    get maxInFlight() {
      return maxInFlight
    },
  }
}

describe('triggerBulk at any size', () => {
  it('sends 5,000 events as 50 requests of at most 100 and returns the results in input order', async () => {
    // The client sends one bulk request before its first answer (it does not know the server's rate
    // limit yet), then two at a time. Each even chunk after the first is held until the next has been
    // answered, so the chunks finish in the order 0, 1, 3, 2, 5, 4, ...
    const chunkOf = (indexes: number[]) => (indexes[0] ?? 0) / 100
    const signals = answeredSignals()
    const server = bulkServer({
      holdUntil: (indexes) =>
        chunkOf(indexes) % 2 === 0 && chunkOf(indexes) > 0
          ? signals.waitFor(chunkOf(indexes) + 1)
          : undefined,
      onAnswered: (indexes) => signals.answered(chunkOf(indexes)),
    })
    const events = makeEvents(5_000)

    const { data, response } = await server.client.events
      .triggerBulk(events, { idempotencyKey: 'digest-2026-W47' })
      .withResponse()

    expect(server.seen).toHaveLength(50)
    for (const request of server.seen) expect(request.indexes.length).toBeLessThanOrEqual(100)
    // Each chunk is the next 100 events, in order, under its own key.
    const byKey = new Map(server.seen.map((request) => [request.key, request.indexes]))
    for (let chunk = 0; chunk < 50; chunk++) {
      expect(byKey.get(`digest-2026-W47:${chunk}`)).toEqual(range(chunk * 100, chunk * 100 + 100))
    }
    // The chunks did finish out of order, and the results still line up with the input.
    const finishOrder = server.finished.map(chunkOf)
    expect(finishOrder).toEqual([0, 1, ...range(2, 50).map((chunk) => chunk ^ 1)])
    expect(data).toHaveLength(5_000)
    expect(data.map((result) => result.transactionId)).toEqual(events.map((e) => `tx-${e.payload.i}`))
    expect(response.idempotencyKey).toBe('digest-2026-W47')
    expect(response.attempts).toBe(50)
    expect(server.maxInFlight).toBe(2)
  })

  it('generates one key for the call and derives every chunk key from it', async () => {
    const server = bulkServer()
    const { response } = await server.client.events.triggerBulk(makeEvents(250)).withResponse()

    const base = response.idempotencyKey
    expect(base).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(server.seen.map((request) => request.key).sort()).toEqual([`${base}:0`, `${base}:1`, `${base}:2`])
  })

  it.each([
    { concurrency: 1, events: 600 },
    { concurrency: 5, events: 2_000 },
  ])('keeps at most $concurrency requests in flight', async ({ concurrency, events }) => {
    const server = bulkServer({ delayFor: () => 15 })
    const results = await server.client.events.triggerBulk(makeEvents(events), { concurrency })
    expect(server.seen).toHaveLength(events / 100)
    expect(server.maxInFlight).toBe(concurrency)
    expect(results.map((result) => result.transactionId)).toEqual(range(0, events).map((i) => `tx-${i}`))
  })

  it('refuses a concurrency below 1 before sending anything', async () => {
    const server = bulkServer()
    const error = await rejectionOf(server.client.events.triggerBulk(makeEvents(3), { concurrency: 0 }))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]?.path).toEqual(['concurrency'])
    expect(server.seen).toHaveLength(0)
  })

  it('sends the same chunk key on every retry of that chunk', async () => {
    let failuresLeft = 2
    const server = bulkServer({
      respond: (indexes) => {
        if (indexes[0] !== 100 || failuresLeft === 0) return undefined
        failuresLeft--
        return HttpResponse.json(
          { statusCode: 503, message: 'busy' },
          { status: 503, headers: { 'retry-after-ms': '0' } },
        )
      },
    })
    const { data, response } = await server.client.events
      .triggerBulk(makeEvents(300), { idempotencyKey: 'job-7' })
      .withResponse()

    const chunkOneKeys = server.seen.filter((request) => request.indexes[0] === 100).map((r) => r.key)
    expect(chunkOneKeys).toEqual(['job-7:1', 'job-7:1', 'job-7:1'])
    expect(data.map((result) => result.transactionId)).toEqual(range(0, 300).map((i) => `tx-${i}`))
    expect(response.attempts).toBe(5)
  })

  it('sends again only what did not finish when called again with the same key', async () => {
    // A server that replays a stored success for a key it has seen, as the real one does, and
    // fails chunks 1 and 3 (events 100-199 and 300-399) the first time it sees them.
    const stored = new Map<string, { requestBody: string; answer: { data: object[] } }>()
    const appliedPerCall: number[][] = [[], []]
    let call = 0
    const failOnce = new Set(['nightly:1', 'nightly:3'])
    const dispatcher = createMswDispatcher([
      http.post(BULK_URL, async ({ request }) => {
        const key = request.headers.get('idempotency-key') ?? ''
        const requestBody = await request.clone().text()
        const indexes = await readIndexes(request)
        const replay = stored.get(key)
        if (replay) {
          // The real server refuses a known key with another body: the chunks must be the same.
          if (replay.requestBody !== requestBody)
            return HttpResponse.json({ message: 'key reused' }, { status: 422 })
          return HttpResponse.json(replay.answer, { status: 201, headers: { 'idempotency-replay': 'true' } })
        }
        if (failOnce.delete(key)) return HttpResponse.json({ message: 'unavailable' }, { status: 503 })
        appliedPerCall[call]?.push(...indexes)
        const answer = { data: indexes.map((i) => ({ ...resultFor(i), call })) }
        stored.set(key, { requestBody, answer })
        return HttpResponse.json(answer, { status: 201 })
      }),
    ])
    const client = new NotificationClient({ apiKey: 'k', baseUrl: BASE_URL, dispatcher, maxRetries: 0 })
    const events = makeEvents(450)

    const error = await rejectionOf(client.events.triggerBulk(events, { idempotencyKey: 'nightly' }))
    expect(error).toBeInstanceOf(BulkTriggerError)
    const failed = (error as BulkTriggerError).failures.flatMap((failure) => failure.eventIndexes)
    expect(failed).toEqual([...range(100, 200), ...range(300, 400)])

    call = 1
    const results = await client.events.triggerBulk(events, { idempotencyKey: 'nightly' })
    expect(appliedPerCall[1]).toEqual(failed)
    expect(appliedPerCall[0]?.length).toBe(250)
    expect(results.map((result) => result.transactionId)).toEqual(range(0, 450).map((i) => `tx-${i}`))
    // Replayed chunks bring back the first call's results; the resent ones are new.
    // `call` is no documented field: the types leave it out, and `in` reaches it.
    expect(results.map((result) => ('call' in result ? result.call : undefined))).toEqual(
      range(0, 450).map((i) => (failed.includes(i) ? 1 : 0)),
    )
  })
})

describe('triggerBulk failures', () => {
  it('names exactly the events of a chunk that failed permanently and keeps every other result', async () => {
    const server = bulkServer({
      respond: (indexes) =>
        indexes[0] === 200
          ? HttpResponse.json({ statusCode: 400, message: 'payload too odd' }, { status: 400 })
          : undefined,
    })
    const error = await rejectionOf(
      server.client.events.triggerBulk(makeEvents(450), { idempotencyKey: 'announce' }),
    )

    expect(error).toBeInstanceOf(BulkTriggerError)
    expect(error).toBeInstanceOf(NotifyKitError)
    const bulkError = error as BulkTriggerError
    expect(bulkError.code).toBe('NOTIFYKIT_BULK_TRIGGER')
    expect(bulkError.failures).toHaveLength(1)
    const [failure] = bulkError.failures
    expect(failure?.chunkIndex).toBe(2)
    expect(failure?.eventIndexes).toEqual(range(200, 300))
    expect(failure?.error).toBeInstanceOf(BadRequestError)
    expect(failure?.error.idempotencyKey).toBe('announce:2')
    expect(failure?.error.attempts).toBe(1)
    expect(bulkError.results).toHaveLength(450)
    expect(bulkError.results.map((result) => result?.transactionId)).toEqual(
      range(0, 450).map((i) => (i >= 200 && i < 300 ? undefined : `tx-${i}`)),
    )
    // A 400 is not retried: one request per chunk.
    expect(server.seen).toHaveLength(5)
    expect(bulkError.attempts).toBe(5)
    expect(bulkError.idempotencyKey).toBe('announce')
  })

  it.each([
    { maxRetries: 0, attempts: 1 },
    { maxRetries: 1, attempts: 2 },
  ])(
    'fails a chunk that answers 503 past its retries (maxRetries $maxRetries)',
    async ({ maxRetries, attempts }) => {
      const server = bulkServer({
        respond: (indexes) =>
          indexes[0] === 0
            ? HttpResponse.json({ message: 'down' }, { status: 503, headers: { 'retry-after-ms': '0' } })
            : undefined,
      })
      const error = await rejectionOf(server.client.events.triggerBulk(makeEvents(150), { maxRetries }))

      expect(error).toBeInstanceOf(BulkTriggerError)
      const { failures, results } = error as BulkTriggerError
      expect(failures.map((f) => [f.chunkIndex, f.eventIndexes])).toEqual([[0, range(0, 100)]])
      expect(failures[0]?.error).toBeInstanceOf(InternalServerError)
      expect(failures[0]?.error.attempts).toBe(attempts)
      expect(server.seen.filter((request) => request.indexes[0] === 0)).toHaveLength(attempts)
      expect(results.slice(100).map((result) => result?.transactionId)).toEqual(
        range(100, 150).map((i) => `tx-${i}`),
      )
      expect(results.slice(0, 100).every((result) => result === undefined)).toBe(true)
    },
  )

  it("rejects when the server sent nothing for some events of an applied request, naming each with its answer and keeping the others' results", async () => {
    const notSent = (i: number) => ({
      acknowledged: true,
      status: 'error',
      error: [`workflow_not_found ${i}`],
    })
    const log = captureLogs()
    const server = bulkServer({
      respond: (indexes) =>
        HttpResponse.json(
          { data: indexes.map((i) => (i === 3 || i === 104 ? notSent(i) : resultFor(i))) },
          { status: 201 },
        ),
      logger: log.logger,
    })
    const progress: { sent: number; failed: number }[] = []
    const error = await rejectionOf(
      server.client.events.triggerBulk(makeEvents(150), {
        idempotencyKey: 'digest',
        onProgress: ({ sent, failed }) => progress.push({ sent, failed }),
      }),
    )

    expect(error).toBeInstanceOf(BulkTriggerError)
    const { results, failures, code, attempts } = error as BulkTriggerError
    expect(code).toBe('NOTIFYKIT_BULK_TRIGGER')
    expect(attempts).toBe(2)
    // What went out: every other event's own result, at its position.
    expect(results).toHaveLength(150)
    expect(results[3]).toBeUndefined()
    expect(results[104]).toBeUndefined()
    const sent = range(0, 150).filter((i) => i !== 3 && i !== 104)
    expect(sent.map((i) => results[i])).toEqual(sent.map(resultFor))
    // What did not: each event by its position, with the server's answer for it.
    expect(failures.map((failure) => [failure.chunkIndex, failure.eventIndexes])).toEqual([
      [0, [3]],
      [1, [104]],
    ])
    for (const failure of failures) {
      const i = failure.eventIndexes[0] as number
      expect(failure.error).toBeInstanceOf(TriggerNotSentError)
      expect(failure.error).toMatchObject({
        code: 'NOTIFYKIT_TRIGGER_NOT_SENT',
        status: 'error',
        result: notSent(i),
        idempotencyKey: `digest:${failure.chunkIndex}`,
        attempts: 1,
      })
    }
    expect((error as Error).message).toMatch(
      /^2 of 150 events were not sent \(first: .*event 3 .*"error": workflow_not_found 3\)$/,
    )
    expect(progress).toEqual([
      { sent: 99, failed: 1 },
      { sent: 148, failed: 2 },
    ])
    // A status read as not sent is a known one: no warning of a status this version does not know.
    expect(log.lines.filter((line) => line.level === 'warn')).toEqual([])
  })

  it('says which events were not sent and which requests failed, when both happen in one call', async () => {
    const server = bulkServer({
      respond: (indexes) =>
        indexes[0] === 100
          ? HttpResponse.json({ message: 'bad' }, { status: 400 })
          : HttpResponse.json(
              {
                data: indexes.map((i) =>
                  i === 7 ? { acknowledged: true, status: 'no_tenant_found' } : resultFor(i),
                ),
              },
              { status: 201 },
            ),
    })
    const error = (await rejectionOf(server.client.events.triggerBulk(makeEvents(120)))) as BulkTriggerError

    expect(error.failures.map((failure) => failure.eventIndexes.length)).toEqual([1, 20])
    expect(error.failures[0]?.error).toBeInstanceOf(TriggerNotSentError)
    expect(error.failures[1]?.error).toBeInstanceOf(BadRequestError)
    expect(error.message).toMatch(
      /^1 of 120 events were not sent .*; 20 of 120 events were not confirmed \(1 failed request; /,
    )
  })

  it('resolves with a status this version does not know, as sent, and warns once', async () => {
    const log = captureLogs()
    const server = bulkServer({
      respond: (indexes) =>
        HttpResponse.json(
          {
            data: indexes.map((i) => ({ ...resultFor(i), status: i % 2 ? 'queued_for_later' : 'processed' })),
          },
          { status: 201 },
        ),
      logger: log.logger,
    })
    const results = await server.client.events.triggerBulk(makeEvents(150))

    expect(results.map((result) => result.status)).toEqual(
      range(0, 150).map((i) => (i % 2 ? 'queued_for_later' : 'processed')),
    )
    const warnings = log.lines.filter((line) => line.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toMatch(
      /events\.triggerBulk: the server answered status "queued_for_later".*resolves as sent/,
    )
  })

  it('fails a chunk whose response does not hold one result per event', async () => {
    const server = bulkServer({
      respond: (indexes) =>
        indexes[0] === 100
          ? HttpResponse.json({ data: indexes.slice(1).map(resultFor) }, { status: 201 })
          : undefined,
    })
    const error = await rejectionOf(server.client.events.triggerBulk(makeEvents(200)))

    const { failures, results } = error as BulkTriggerError
    expect(failures.map((f) => f.chunkIndex)).toEqual([1])
    expect(failures[0]?.error).toBeInstanceOf(ResponseValidationError)
    expect(failures[0]?.error.message).toContain('99 results for 100 events')
    expect(results.filter((result) => result !== undefined)).toHaveLength(100)
  })

  it('does not send chunks whose turn comes after the deadline', async () => {
    const server = bulkServer({ delayFor: () => 300 })
    const error = await rejectionOf(
      server.client.events.triggerBulk(makeEvents(300), { concurrency: 1, deadlineMs: 50 }),
    )

    const { failures } = error as BulkTriggerError
    expect(failures.map((f) => f.chunkIndex)).toEqual([0, 1, 2])
    for (const failure of failures) expect(failure.error).toBeInstanceOf(TimeoutError)
    expect(failures.map((f) => f.error.attempts)).toEqual([1, 0, 0])
    expect(server.seen).toHaveLength(1)
  })
})

describe('triggerBulk cancellation', () => {
  it('keeps what was confirmed before the caller aborted and sends nothing after', async () => {
    const server = bulkServer()
    const controller = new AbortController()
    const error = await rejectionOf(
      server.client.events.triggerBulk(makeEvents(300), {
        concurrency: 1,
        signal: controller.signal,
        onProgress: () => controller.abort(),
      }),
    )

    expect(error).toBeInstanceOf(BulkTriggerError)
    const { results, failures } = error as BulkTriggerError
    expect(server.seen).toHaveLength(1)
    expect(results.slice(0, 100).map((result) => result?.transactionId)).toEqual(
      range(0, 100).map((i) => `tx-${i}`),
    )
    expect(failures.map((f) => [f.chunkIndex, f.eventIndexes])).toEqual([
      [1, range(100, 200)],
      [2, range(200, 300)],
    ])
    for (const failure of failures) expect(failure.error).toBeInstanceOf(AbortError)
  })
})

describe('triggerBulk progress', () => {
  it('reports progress after each chunk, failures included', async () => {
    const server = bulkServer({
      respond: (indexes) =>
        indexes[0] === 100 ? HttpResponse.json({ message: 'no' }, { status: 400 }) : undefined,
    })
    const reports: unknown[] = []
    await rejectionOf(
      server.client.events.triggerBulk(makeEvents(250), {
        concurrency: 1,
        onProgress: (progress) => reports.push(progress),
      }),
    )

    expect(reports).toEqual([
      { sent: 100, failed: 0, total: 250 },
      { sent: 100, failed: 100, total: 250 },
      { sent: 150, failed: 100, total: 250 },
    ])
  })

  it('keeps the results when the progress callback throws', async () => {
    const server = bulkServer()
    const results = await server.client.events.triggerBulk(makeEvents(150), {
      onProgress: () => {
        throw new Error('progress bar broke')
      },
    })
    expect(results).toHaveLength(150)
  })
})

describe('triggerBulk validation: nothing is sent', () => {
  it('refuses an empty list', async () => {
    const server = bulkServer()
    const error = await rejectionOf(server.client.events.triggerBulk([]))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect(server.seen).toHaveLength(0)
  })

  it('refuses a list of events all invalid without sending anything', async () => {
    const server = bulkServer()
    const events = [{ name: 'digest' }, { name: '', to: 'u' }] as unknown as Event[]
    const error = await rejectionOf(server.client.events.triggerBulk(events, { idempotencyKey: 'all-bad' }))

    expect(error).toBeInstanceOf(BulkTriggerError)
    const bulkError = error as BulkTriggerError
    expect(bulkError.failures.map((failure) => failure.error)).toEqual([
      expect.any(RequestValidationError),
      expect.any(RequestValidationError),
    ])
    expect(bulkError.attempts).toBe(0)
    expect(bulkError.message).toMatch(/^2 of 2 events were refused before sending \(first: .*0\.to: /)
    expect(server.seen).toHaveLength(0)
  })

  it('refuses bad request options before sending anything', async () => {
    const server = bulkServer()
    const progress: unknown[] = []
    const error = await rejectionOf(
      server.client.events.triggerBulk(makeEvents(1_000), {
        headers: { 'x-trace-id': 'a\r\nx-injected: 1' },
        onProgress: (report) => progress.push(report),
      }),
    )

    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]?.path).toEqual(['headers', 'x-trace-id'])
    expect(server.seen).toHaveLength(0)
    expect(progress).toEqual([])
  })

  it('refuses a caller key too long to carry the chunk suffix', async () => {
    const server = bulkServer()
    const key = 'k'.repeat(254)
    const error = await rejectionOf(
      server.client.events.triggerBulk(makeEvents(1_100), { idempotencyKey: key }),
    )

    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]?.path).toEqual(['idempotencyKey'])
    expect(server.seen).toHaveLength(0)
    // The longest key that fits: `:10` is three characters.
    await server.client.events.triggerBulk(makeEvents(1_100), { idempotencyKey: 'k'.repeat(252) })
    expect(server.seen.map((request) => request.key?.length)).toContain(255)
  })
})
