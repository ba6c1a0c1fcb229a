import { HttpResponse, http } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  ApiError,
  IdempotencyReplayError,
  InternalServerError,
  NotificationClient,
  NotifyKitError,
  TimeoutError,
  UnprocessableEntityError,
} from '../../../src/index.js'
import { captureLogs } from '../../helpers/logs.js'
import { mswConnection, UUID } from '../../helpers/wire.js'

// A replayed error, seen from the outside. The server's idempotency layer (apps/api/src/app/shared/
// framework/idempotency.interceptor.ts, since c100317eae "fix(api-service): Nv 4862 e2e tests retry
// (#7504)") records every error its handler throws under the request's key, echoing the key on that
// answer, and answers every later request under the key with `503 Service Unavailable` and
// `Idempotency-Replay: true`. Guards that run before it (the rate limiter's 429) and gateways
// (502, 504) are not recorded. The msw server below models exactly that.

const API_KEY = 'nk_live_replay_suite_0123456789'
const BASE_URL = 'https://api.test'
const TRIGGER_URL = `${BASE_URL}/v1/events/trigger`
const EVENT = { name: 'order-shipped', to: 'user-1', payload: { orderId: 'o-42' } }
const START = Date.parse('2026-04-19T12:00:00.000Z')
const ERROR_ID = '8d1c5a0e-2f4b-4c0a-9a57-1b3c5d7e9f00'

/** The exception filter's body: its context flattened at the top and nested under `ctx`. */
function filterBody(statusCode: number, message: string, ctx: Record<string, unknown> = {}) {
  return {
    ...ctx,
    statusCode,
    timestamp: '2026-04-19T12:00:00.000Z',
    path: '/v1/events/trigger',
    message,
    ctx,
  }
}

/** What the handler behind the idempotency layer does with one request. */
type Outcome =
  | { kind: 'answer'; status: number; body: unknown; headers?: Record<string, string> }
  /** Answered by something in front of the layer (a gateway, a guard): never recorded, no echo. */
  | { kind: 'before'; status: number; body: unknown; headers?: Record<string, string> }
  /** The handler runs and fails, but the gateway gives up first: a 504, and the error is recorded. */
  | { kind: 'gatewayTimeout'; recorded: Outcome & { kind: 'answer' } }

const appError = (status: number, message: string, extra: Record<string, unknown> = {}): Outcome => ({
  kind: 'answer',
  status,
  body:
    status === 500 ? { ...filterBody(500, message), errorId: ERROR_ID } : filterBody(status, message, extra),
})
const app500 = appError(500, 'Internal server error, contact support and provide them with the errorId')
const ok: Outcome = {
  kind: 'answer',
  status: 201,
  body: { data: { acknowledged: true, status: 'processed', transactionId: 'txn_1' } },
}

/** The server of the 2026 code: records the first outcome per key and replays an error as a 503. */
function idempotentServer(script: Outcome[]) {
  const seen: { key: string | null; at: number }[] = []
  const recorded = new Map<string, { status: number; body: unknown }>()
  const replayBody = filterBody(503, 'Service Unavailable', { statusCode: 503 })
  const handler = http.post(TRIGGER_URL, ({ request }) => {
    const key = request.headers.get('idempotency-key')
    seen.push({ key, at: Date.now() - START })
    const outcome = script[seen.length - 1] ?? { kind: 'answer', status: 418, body: {} }
    if (outcome.kind === 'before') {
      return HttpResponse.json(outcome.body as object, { status: outcome.status, headers: outcome.headers })
    }
    if (key !== null && recorded.has(key)) {
      const replayHeaders = { 'idempotency-key': key, 'idempotency-replay': 'true' }
      const previous = recorded.get(key)!
      return previous.status < 300
        ? HttpResponse.json(previous.body as object, { status: previous.status, headers: replayHeaders })
        : HttpResponse.json(replayBody, { status: 503, headers: replayHeaders })
    }
    const answer = outcome.kind === 'gatewayTimeout' ? outcome.recorded : outcome
    if (key !== null) recorded.set(key, { status: answer.status, body: answer.body })
    if (outcome.kind === 'gatewayTimeout') {
      return new HttpResponse('<html>504 Gateway Time-out</html>', { status: 504 })
    }
    const headers = { ...answer.headers, ...(key === null ? {} : { 'idempotency-key': key }) }
    return HttpResponse.json(answer.body as object, { status: answer.status, headers })
  })
  return { seen, handler, recorded }
}

function clientOver(server: ReturnType<typeof idempotentServer>) {
  const log = captureLogs()
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    ...mswConnection([server.handler]),
    logger: log.logger,
    logLevel: 'info',
    rateLimit: 'off',
  })
  return { client, log }
}

/** The call's rejection, the fake clock moved on until it comes. */
async function failureOf(promise: PromiseLike<unknown>): Promise<unknown> {
  const outcome = Promise.resolve(promise).then(
    () => {
      throw new Error('expected the call to fail')
    },
    (error: unknown) => error,
  )
  await vi.runAllTimersAsync()
  return outcome
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
  vi.spyOn(Math, 'random').mockReturnValue(0)
})

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('a replayed error (503 with Idempotency-Replay: true)', () => {
  it('is an IdempotencyReplayError, not retried, saying what happened and what to do', async () => {
    const server = idempotentServer([appError(422, 'workflow_not_found')])
    const { client } = clientOver(server)
    // The first call under the key: the server records its 422.
    await failureOf(client.events.trigger(EVENT, { idempotencyKey: 'order-42' }))
    const { client: again, log } = clientOver(server)
    const error = (await failureOf(again.events.trigger(EVENT, { idempotencyKey: 'order-42' }))) as ApiError

    expect(error).toBeInstanceOf(IdempotencyReplayError)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toBeInstanceOf(NotifyKitError)
    expect(error).not.toBeInstanceOf(InternalServerError)
    const replay = error as IdempotencyReplayError
    expect(replay.code).toBe('NOTIFYKIT_IDEMPOTENCY_REPLAY')
    expect(replay.name).toBe('IdempotencyReplayError')
    expect(replay.status).toBe(503)
    expect(replay.headers['idempotency-replay']).toBe('true')
    expect(replay.attempts).toBe(1)
    expect(replay.idempotencyKey).toBe('order-42')
    // This call never saw the first error: an earlier call did.
    expect(replay.firstError).toBeUndefined()
    expect(replay.cause).toBeUndefined()
    expect(replay.message).toMatch(/^503 Service Unavailable: a replay \(Idempotency-Replay\)/)
    expect(replay.message).toContain('fix the cause, then send again with a new idempotency key')
    expect(replay.message).toContain('a new key can send it twice')
    expect(replay.message).toContain('same transactionId')
    expect(server.seen.map((seen) => seen.key)).toEqual(['order-42', 'order-42'])
    expect(log.retries()).toEqual([])
  })

  it('after a gateway timeout: carries the first failure (field and cause), same key on both attempts', async () => {
    // The gateway gives up at 504 while the handler runs; the handler then fails with a 500, which
    // is recorded under the key. The retry meets its replay.
    const server = idempotentServer([{ kind: 'gatewayTimeout', recorded: app500 as never }])
    const { client, log } = clientOver(server)
    const error = (await failureOf(client.events.trigger(EVENT))) as IdempotencyReplayError

    expect(error).toBeInstanceOf(IdempotencyReplayError)
    expect(error.attempts).toBe(2)
    const [first, second] = server.seen
    expect(first?.key).toMatch(UUID)
    expect(second?.key).toBe(first?.key)
    expect(error.idempotencyKey).toBe(first?.key)
    expect(error.firstError).toBeInstanceOf(InternalServerError)
    expect((error.firstError as ApiError).status).toBe(504)
    expect(error.cause).toBe(error.firstError)
    expect(error.message).toContain('; the first attempt failed with: 504 <html>504 Gateway Time-out</html>')
    // One retry, the gateway's; none after the replay.
    expect(log.retries().map((line) => line.details?.reason)).toEqual(['status 504'])
  })

  it('after an attempt that timed out: the TimeoutError is the first failure', async () => {
    let calls = 0
    const key = 'order-43'
    const handler = http.post(TRIGGER_URL, async () => {
      calls++
      if (calls === 1) await new Promise(() => undefined) // never answers: the attempt times out
      return HttpResponse.json(filterBody(503, 'Service Unavailable', { statusCode: 503 }), {
        status: 503,
        headers: { 'idempotency-key': key, 'idempotency-replay': 'true' },
      })
    })
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      ...mswConnection([handler]),
      timeoutMs: 1_000,
      rateLimit: 'off',
    })
    const error = (await failureOf(
      client.events.trigger(EVENT, { idempotencyKey: key }),
    )) as IdempotencyReplayError
    expect(error).toBeInstanceOf(IdempotencyReplayError)
    expect(error.firstError).toBeInstanceOf(TimeoutError)
    expect(error.cause).toBe(error.firstError)
    expect(error.attempts).toBe(2)
  })

  it('is never retried, even when the answer says x-should-retry: true', async () => {
    const handler = http.post(TRIGGER_URL, () =>
      HttpResponse.json(filterBody(503, 'Service Unavailable', { statusCode: 503 }), {
        status: 503,
        headers: { 'idempotency-replay': 'true', 'x-should-retry': 'true' },
      }),
    )
    let sent = 0
    const counting = http.all('*', () => {
      sent++
      return undefined
    })
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      ...mswConnection([counting, handler]),
      rateLimit: 'off',
    })
    const error = await failureOf(client.events.trigger(EVENT))
    expect(error).toBeInstanceOf(IdempotencyReplayError)
    expect(sent).toBe(1)
  })

  it('reads a replay of the original status (servers before #7504) as a replay too, its body kept', async () => {
    const body = filterBody(422, 'Validation Error', {})
    const handler = http.post(TRIGGER_URL, () =>
      HttpResponse.json(
        { ...body, errors: { general: { messages: ['to should not be null or undefined'] } } },
        { status: 422, headers: { 'Idempotency-Replay': 'TRUE' } },
      ),
    )
    const client = new NotificationClient({ apiKey: API_KEY, baseUrl: BASE_URL, ...mswConnection([handler]) })
    const error = (await failureOf(client.events.trigger(EVENT))) as IdempotencyReplayError
    expect(error).toBeInstanceOf(IdempotencyReplayError)
    expect(error.status).toBe(422)
    expect(error.issues).toEqual([{ path: [], message: 'to should not be null or undefined' }])
  })

  it('does not spend the retry budget: an outage after many replays is still retried', async () => {
    // Sixty replays in a row; a budget that counted them would stop the retries below.
    const replay = http.post(TRIGGER_URL, () =>
      HttpResponse.json(filterBody(503, 'Service Unavailable', { statusCode: 503 }), {
        status: 503,
        headers: { 'idempotency-replay': 'true' },
      }),
    )
    let outage = 0
    const outageHandler = http.post(`${TRIGGER_URL}/broadcast`, () => {
      outage++
      return outage % 3 === 0
        ? HttpResponse.json(
            { data: { acknowledged: true, status: 'processed', transactionId: 'txn_b' } },
            { status: 201 },
          )
        : HttpResponse.json({ message: 'Bad Gateway' }, { status: 502 })
    })
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      ...mswConnection([replay, outageHandler]),
      rateLimit: 'off',
    })
    for (let i = 0; i < 60; i++) await failureOf(client.events.trigger(EVENT))
    const call = client.events.broadcast({ name: 'news', payload: {} }).withResponse()
    await vi.runAllTimersAsync()
    expect((await call).response.attempts).toBe(3)
  })
})

describe('an error the server recorded for the key (it echoes idempotency-key)', () => {
  it('a 500 from the app is not retried: the same key can only be replayed, a new key could send twice', async () => {
    const server = idempotentServer([app500, ok])
    const { client, log } = clientOver(server)
    const error = (await failureOf(client.events.trigger(EVENT, { idempotencyKey: 'order-44' }))) as ApiError

    expect(error).toBeInstanceOf(InternalServerError)
    expect(error).not.toBeInstanceOf(IdempotencyReplayError)
    expect(error.status).toBe(500)
    expect(error.attempts).toBe(1)
    expect(error.errorId).toBe(ERROR_ID)
    expect(error.message).toBe(
      `500 Internal server error, contact support and provide them with the errorId (errorId ${ERROR_ID})`,
    )
    expect(server.seen).toHaveLength(1)
    expect(log.retries()).toEqual([])
  })

  it("the organisation's kill switch (a 503 its handler throws) is not retried either", async () => {
    const server = idempotentServer([
      appError(503, 'Service temporarily unavailable for this organization'),
      ok,
    ])
    const { client } = clientOver(server)
    const error = (await failureOf(client.events.trigger(EVENT))) as ApiError
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error.message).toBe('503 Service temporarily unavailable for this organization')
    expect(server.seen).toHaveLength(1)
  })

  it('a 409 (the first request under the key still running) is retried under the same key', async () => {
    const conflict: Outcome = {
      kind: 'before',
      status: 409,
      body: filterBody(
        409,
        'Request with key "order-45" is currently being processed. Please retry after 1 second',
        {
          error: 'Conflict',
          statusCode: 409,
        },
      ),
      headers: { 'idempotency-key': 'order-45', 'retry-after': '1' },
    }
    const server = idempotentServer([conflict, ok])
    const { client } = clientOver(server)
    const call = client.events.trigger(EVENT, { idempotencyKey: 'order-45' }).withResponse()
    await vi.runAllTimersAsync()
    const { response } = await call
    expect(response.attempts).toBe(2)
    expect(server.seen.map((seen) => [seen.key, seen.at])).toEqual([
      ['order-45', 0],
      ['order-45', 1_000],
    ])
  })

  it('a 429 from the rate limiter (before the layer, even with a key echoed) is retried', async () => {
    const limited: Outcome = {
      kind: 'before',
      status: 429,
      body: filterBody(429, 'API rate limit exceeded'),
      headers: { 'idempotency-key': 'order-46', 'retry-after': '1' },
    }
    const server = idempotentServer([limited, ok])
    const { client } = clientOver(server)
    const call = client.events.trigger(EVENT, { idempotencyKey: 'order-46' }).withResponse()
    await vi.runAllTimersAsync()
    expect((await call).response.attempts).toBe(2)
  })

  it('a 5xx with no echo (a gateway, a proxy, a server whose idempotency is off) is retried under the same key', async () => {
    const server = idempotentServer([
      { kind: 'before', status: 502, body: { message: 'Bad Gateway' } },
      { kind: 'before', status: 500, body: { message: 'proxy failure' } },
      ok,
    ])
    const { client } = clientOver(server)
    const call = client.events.trigger(EVENT).withResponse()
    await vi.runAllTimersAsync()
    const { response } = await call
    expect(response.attempts).toBe(3)
    expect(new Set(server.seen.map((seen) => seen.key)).size).toBe(1)
  })

  it('a recorded 422 stays a 422 (not retried, as before)', async () => {
    const server = idempotentServer([appError(422, 'workflow_not_found')])
    const { client } = clientOver(server)
    const error = await failureOf(client.events.trigger(EVENT))
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect(server.seen).toHaveLength(1)
  })
})

describe('the error a retried call ends with leads to every failure before it', () => {
  it('502, 503, 504: the 504, whose cause is the 503, whose cause is the 502', async () => {
    const gateway = (status: number): Outcome => ({
      kind: 'before',
      status,
      body: { message: `gateway ${status}` },
    })
    const server = idempotentServer([gateway(502), gateway(503), gateway(504)])
    const { client } = clientOver(server)
    const error = (await failureOf(client.events.trigger(EVENT))) as ApiError
    expect(error.attempts).toBe(3)
    const chain: unknown[] = []
    for (let at: unknown = error; at !== undefined; at = (at as Error).cause)
      chain.push((at as ApiError).status)
    expect(chain).toEqual([504, 503, 502])
  })
})
