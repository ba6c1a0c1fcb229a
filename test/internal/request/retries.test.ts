import { delay, HttpResponse, http } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  AbortError,
  type ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  NotificationClient,
  type NotificationClientOptions,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  TimeoutError,
  UnprocessableEntityError,
} from '../../../src/index.js'
import { captureLogs } from '../../helpers/logs.js'
import { TRANSPORTS, type TransportName } from '../../helpers/transport.js'
import { mswConnection, rejectionOf, UUID } from '../../helpers/wire.js'

// Retry policy seen from the outside: msw answers status sequences through the SDK's real pipeline,
// over each transport (undici through a dispatcher answering from the handlers, fetch through a fetch
// answering from the same handlers), and fake timers stand in for the backoff so that no test waits for real.

const API_KEY = 'nk_live_retry_suite_0123456789'
const BASE_URL = 'https://api.test'
const TRIGGER_URL = `${BASE_URL}/v1/events/trigger`
const EVENT = { name: 'order-shipped', to: 'user-1', payload: { orderId: 'o-42' } }
const TRIGGERED = { acknowledged: true, status: 'processed', transactionId: 'tx-o-42' }
const START = Date.parse('2026-03-01T12:00:00.000Z')

/** What the server saw of one attempt. */
interface Seen {
  method: string
  path: string
  key: string | null
  /** Milliseconds since the test's start, on the fake clock. */
  at: number
}

/** A server that answers the listed responses in order, recording every attempt. */
function scriptedServer(method: 'post' | 'get', url: string, script: (() => Response | Promise<Response>)[]) {
  const seen: Seen[] = []
  let arrived: (() => void) | undefined
  const handler = http[method](url, async ({ request }) => {
    const { pathname } = new URL(request.url)
    seen.push({
      method: request.method,
      path: pathname,
      key: request.headers.get('idempotency-key'),
      at: Date.now() - START,
    })
    arrived?.()
    const next = script[seen.length - 1]
    if (!next) return HttpResponse.json({ message: `unexpected attempt ${seen.length}` }, { status: 418 })
    return next()
  })
  return {
    seen,
    handler,
    /** Resolves once the server has seen `count` attempts. */
    async attempts(count: number): Promise<void> {
      while (seen.length < count) await new Promise<void>((resolve) => (arrived = resolve))
    },
  }
}

function status(code: number, headers: Record<string, string> = {}, body?: unknown) {
  return () =>
    HttpResponse.json(body ?? { statusCode: code, message: `status ${code}` }, { status: code, headers })
}

const created =
  (headers: Record<string, string> = {}) =>
  () =>
    HttpResponse.json({ data: TRIGGERED }, { status: 201, headers })

function clientOver(
  transport: TransportName,
  server: ReturnType<typeof scriptedServer>,
  options: Partial<NotificationClientOptions> = {},
) {
  const log = captureLogs()
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    ...mswConnection([server.handler], transport),
    logger: log.logger,
    logLevel: 'info',
    ...options,
  })
  return { client, log }
}

/** The outcome of a call without an unhandled rejection while the test drives the clock. */
function settle<T>(promise: PromiseLike<T>) {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false }
  const settled = Promise.resolve(promise).then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  )
  return { state, settled }
}

/** Lets pending I/O and promise chains run without moving the fake clock. */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
  // No jitter: backoff steps are exactly 500, 1000, 2000… so the clock can be asserted.
  vi.spyOn(Math, 'random').mockReturnValue(0)
})

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe.each(TRANSPORTS)('over %s', (transport) => {
  const clientWith = (
    server: ReturnType<typeof scriptedServer>,
    options: Partial<NotificationClientOptions> = {},
  ) => clientOver(transport, server, options)

  describe('retried statuses', () => {
    it.each([
      ['a generated key', undefined],
      ['the caller key', 'order-o-42-shipped'],
    ])('503, 503, 201: succeeds in 3 attempts with %s sent on each', async (_name, idempotencyKey) => {
      const server = scriptedServer('post', TRIGGER_URL, [status(503), status(503), created()])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT, { idempotencyKey }).withResponse())

      const first = await log.nextRetry()
      expect(first.details).toEqual({ attempt: 2, maxAttempts: 3, delayMs: 500, reason: 'status 503' })
      await vi.advanceTimersByTimeAsync(500)
      const second = await log.nextRetry()
      expect(second.details).toEqual({ attempt: 3, maxAttempts: 3, delayMs: 1_000, reason: 'status 503' })
      await vi.advanceTimersByTimeAsync(1_000)
      await call.settled

      const { data, response } = call.state.value!
      expect(data).toEqual(TRIGGERED)
      expect(response.status).toBe(201)
      expect(response.attempts).toBe(3)
      const key = response.idempotencyKey!
      if (idempotencyKey) expect(key).toBe(idempotencyKey)
      else expect(key).toMatch(UUID)
      expect(server.seen.map((seen) => seen.key)).toEqual([key, key, key])
      // Backoff about 0.5 s, then doubled.
      expect(server.seen.map((seen) => seen.at)).toEqual([0, 500, 1_500])
      // Each retry is logged at info with reason and delay; the key never reaches the log.
      expect(log.retries().map((line) => line.message)).toEqual([
        'notifykit: retrying POST /v1/events/trigger in 500 ms: status 503',
        'notifykit: retrying POST /v1/events/trigger in 1000 ms: status 503',
      ])
      expect(JSON.stringify(log.lines)).not.toContain(key)
    })

    it.each([408, 409, 429, 500, 502, 503, 504])(
      'retries %i and succeeds on the next attempt',
      async (code) => {
        const server = scriptedServer('post', TRIGGER_URL, [status(code), created()])
        const { client, log } = clientWith(server)
        const call = settle(client.events.trigger(EVENT).withResponse())
        expect((await log.nextRetry()).details).toMatchObject({ delayMs: 500, reason: `status ${code}` })
        await vi.advanceTimersByTimeAsync(500)
        await call.settled
        expect(call.state.value?.response.attempts).toBe(2)
        expect(server.seen[0]!.key).toBe(server.seen[1]!.key)
      },
    )

    it('gives up after maxRetries (default 2) with the last error and 3 attempts', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [status(502), status(502), status(503)])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT))
      await log.nextRetry()
      await vi.advanceTimersByTimeAsync(500)
      await log.nextRetry()
      await vi.advanceTimersByTimeAsync(1_000)
      await call.settled
      const error = call.state.error as InternalServerError
      expect(error).toBeInstanceOf(InternalServerError)
      expect(error.status).toBe(503)
      expect(error.attempts).toBe(3)
      expect(error.idempotencyKey).toBe(server.seen[0]!.key)
      expect(server.seen).toHaveLength(3)
      expect(log.retries()).toHaveLength(2)
    })

    it('caps the backoff at 8 s', async () => {
      // 429s, which the retry budget leaves alone: six 500s in a row would spend it first (below).
      const server = scriptedServer('post', TRIGGER_URL, [
        ...Array.from({ length: 6 }, () => status(429)),
        created(),
      ])
      const { client, log } = clientWith(server, { maxRetries: 6 })
      const call = settle(client.events.trigger(EVENT).withResponse())
      const delays: unknown[] = []
      for (let retry = 0; retry < 6; retry++) {
        const line = await log.nextRetry()
        delays.push(line.details?.delayMs)
        await vi.advanceTimersByTimeAsync(line.details?.delayMs as number)
      }
      await call.settled
      expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 8_000])
      expect(call.state.value?.response.attempts).toBe(7)
      expect(new Set(server.seen.map((seen) => seen.key)).size).toBe(1)
    })
  })

  describe('maxRetries per client and per request', () => {
    it('maxRetries 0 on the client: one attempt', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [status(503), created()])
      const { client, log } = clientWith(server, { maxRetries: 0 })
      const call = settle(client.events.trigger(EVENT))
      await call.settled
      expect(call.state.error).toBeInstanceOf(InternalServerError)
      expect((call.state.error as ApiError).attempts).toBe(1)
      expect(server.seen).toHaveLength(1)
      expect(log.retries()).toHaveLength(0)
    })

    it('a per-request maxRetries overrides the client, down and up', async () => {
      const down = scriptedServer('post', TRIGGER_URL, [status(503), status(503), created()])
      const lowered = clientWith(down, { maxRetries: 5 })
      const first = settle(lowered.client.events.trigger(EVENT, { maxRetries: 1 }))
      await lowered.log.nextRetry()
      await vi.advanceTimersByTimeAsync(500)
      await first.settled
      expect((first.state.error as ApiError).attempts).toBe(2)
      expect(down.seen).toHaveLength(2)

      const up = scriptedServer('post', TRIGGER_URL, [status(503), status(503), status(503), created()])
      const raised = clientWith(up)
      const second = settle(raised.client.events.trigger(EVENT, { maxRetries: 3 }).withResponse())
      for (const wait of [500, 1_000, 2_000]) {
        expect((await raised.log.nextRetry()).details).toMatchObject({ delayMs: wait, maxAttempts: 4 })
        await vi.advanceTimersByTimeAsync(wait)
      }
      await second.settled
      expect(second.state.value?.response.attempts).toBe(4)
    })

    it('refuses an unusable per-request maxRetries before sending anything', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [status(503)])
      const { client } = clientWith(server)
      const error = await rejectionOf(client.events.trigger(EVENT, { maxRetries: Number.NaN }))
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues[0]?.path).toEqual(['maxRetries'])
      expect((error as RequestValidationError).attempts).toBe(0)
      expect(server.seen).toHaveLength(0)
    })
  })

  describe('x-should-retry', () => {
    it('true retries a status that is otherwise final', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        status(400, { 'x-should-retry': 'true' }),
        created(),
      ])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT).withResponse())
      expect((await log.nextRetry()).details).toMatchObject({ reason: 'status 400' })
      await vi.advanceTimersByTimeAsync(500)
      await call.settled
      expect(call.state.value?.response.attempts).toBe(2)
    })

    it('false stops a status that is otherwise retried', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        status(503, { 'x-should-retry': 'false' }),
        created(),
      ])
      const { client } = clientWith(server)
      const call = settle(client.events.trigger(EVENT))
      await call.settled
      expect(call.state.error).toBeInstanceOf(InternalServerError)
      expect((call.state.error as ApiError).attempts).toBe(1)
      expect(server.seen).toHaveLength(1)
    })
  })

  describe('never retried', () => {
    it.each([
      [400, BadRequestError],
      [401, AuthenticationError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [422, UnprocessableEntityError],
    ])('%i: one attempt, the right error class', async (code, ErrorClass) => {
      const server = scriptedServer('post', TRIGGER_URL, [status(code), created()])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT))
      // Settles without the clock moving: nothing waited for a retry.
      await call.settled
      const error = call.state.error as ApiError
      expect(error).toBeInstanceOf(ErrorClass)
      expect(error.status).toBe(code)
      expect(error.attempts).toBe(1)
      expect(error.idempotencyKey).toBe(server.seen[0]!.key)
      await vi.advanceTimersByTimeAsync(30_000)
      expect(server.seen).toHaveLength(1)
      expect(log.retries()).toHaveLength(0)
    })

    it('a RequestValidationError: nothing is sent', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [created()])
      const { client } = clientWith(server)
      const error = await rejectionOf(
        client.events.trigger({ ...EVENT, name: undefined } as unknown as typeof EVENT),
      )
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).attempts).toBe(0)
      expect(server.seen).toHaveLength(0)
    })
  })

  describe('the wait the server asks for', () => {
    it('429 with Retry-After: 1 resends after one second, not before', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        status(429, { 'retry-after': '1' }, { statusCode: 429, message: 'API rate limit exceeded' }),
        created(),
      ])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT).withResponse())
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 1_000, reason: 'status 429' })
      await vi.advanceTimersByTimeAsync(999)
      await flush()
      expect(server.seen).toHaveLength(1)
      await vi.advanceTimersByTimeAsync(1)
      await server.attempts(2)
      await call.settled
      expect(server.seen.map((seen) => seen.at)).toEqual([0, 1_000])
      expect(call.state.value?.response.attempts).toBe(2)
      expect(server.seen[1]!.key).toBe(server.seen[0]!.key)
    })

    it('429 with Retry-After: 120 fails at once with retryAfterMs 120000 after 1 attempt', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        status(429, { 'retry-after': '120' }, { statusCode: 429, message: 'API rate limit exceeded' }),
        created(),
      ])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT))
      await call.settled
      const error = call.state.error as RateLimitError
      expect(error).toBeInstanceOf(RateLimitError)
      expect(error.retryAfterMs).toBe(120_000)
      expect(error.attempts).toBe(1)
      expect(error.message).toContain('API rate limit exceeded')
      expect(Date.now() - START).toBe(0)
      expect(server.seen).toHaveLength(1)
      expect(log.retries()).toHaveLength(0)
    })

    it('a 503 asking for more than 60 s fails at once with its own error class', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [status(503, { 'retry-after': '61' }), created()])
      const { client } = clientWith(server)
      const call = settle(client.events.trigger(EVENT))
      await call.settled
      expect(call.state.error).toBeInstanceOf(InternalServerError)
      expect((call.state.error as ApiError).retryAfterMs).toBe(61_000)
      expect(server.seen).toHaveLength(1)
    })

    it('retry-after-ms wins over Retry-After', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        status(503, { 'retry-after-ms': '250', 'retry-after': '5' }),
        created(),
      ])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT).withResponse())
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 250 })
      await vi.advanceTimersByTimeAsync(250)
      await call.settled
      expect(server.seen.map((seen) => seen.at)).toEqual([0, 250])
    })

    it('Retry-After as an HTTP date waits until that date', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        () => status(503, { 'retry-after': new Date(Date.now() + 3_000).toUTCString() })(),
        created(),
      ])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT).withResponse())
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 3_000 })
      await vi.advanceTimersByTimeAsync(3_000)
      await call.settled
      expect(server.seen.map((seen) => seen.at)).toEqual([0, 3_000])
    })

    it('409 "currently being processed" with Retry-After: 1, then the replay: success', async () => {
      let key: string | null = null
      const server = scriptedServer('post', TRIGGER_URL, [
        () =>
          HttpResponse.json(
            {
              statusCode: 409,
              message: `Request with key "${key}" is currently being processed. Please retry after 1 second`,
              error: 'Conflict',
            },
            { status: 409, headers: { 'retry-after': '1' } },
          ),
        () => created({ 'idempotency-key': key!, 'idempotency-replay': 'true' })(),
      ])
      const client = clientWith(server)
      const call = settle(client.client.events.trigger(EVENT).withResponse())
      await server.attempts(1)
      key = server.seen[0]!.key
      expect((await client.log.nextRetry()).details).toMatchObject({ delayMs: 1_000, reason: 'status 409' })
      await vi.advanceTimersByTimeAsync(1_000)
      await call.settled
      const { data, response } = call.state.value!
      expect(data).toEqual(TRIGGERED)
      expect(response.attempts).toBe(2)
      expect(response.headers['idempotency-replay']).toBe('true')
      expect(server.seen.map((seen) => seen.key)).toEqual([response.idempotencyKey, response.idempotencyKey])
      expect(server.seen.map((seen) => seen.at)).toEqual([0, 1_000])
    })

    it('a 409 that is still conflicting after the retries is a ConflictError with the key', async () => {
      const busy = status(409, { 'retry-after': '1' })
      const server = scriptedServer('post', TRIGGER_URL, [busy, busy, busy])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT, { idempotencyKey: 'order-o-42-shipped' }))
      await log.nextRetry()
      await vi.advanceTimersByTimeAsync(1_000)
      await log.nextRetry()
      await vi.advanceTimersByTimeAsync(1_000)
      await call.settled
      expect(call.state.error).toBeInstanceOf(ConflictError)
      expect((call.state.error as ConflictError).attempts).toBe(3)
      expect((call.state.error as ConflictError).idempotencyKey).toBe('order-o-42-shipped')
    })
  })

  describe('GET and DELETE', () => {
    it('are retried as they are, without an idempotency key', async () => {
      const notification = {
        _id: 'n1',
        _environmentId: 'e',
        _organizationId: 'o',
        _subscriberId: 's',
        transactionId: 't',
      }
      const server = scriptedServer('get', `${BASE_URL}/v1/notifications/:id`, [
        status(502),
        () => HttpResponse.json({ data: notification }),
      ])
      const { client, log } = clientWith(server)
      const call = settle(client.notifications.get('n1').withResponse())
      await log.nextRetry()
      await vi.advanceTimersByTimeAsync(500)
      await call.settled
      expect(call.state.value?.data).toEqual(notification)
      expect(call.state.value?.response.attempts).toBe(2)
      expect(call.state.value?.response.idempotencyKey).toBeUndefined()
      expect(server.seen.map((seen) => [seen.method, seen.path, seen.key])).toEqual([
        ['GET', '/v1/notifications/n1', null],
        ['GET', '/v1/notifications/n1', null],
      ])
    })
  })

  describe('dropped connections (no socket: undici reports "other side closed", fetch rejects with ECONNRESET)', () => {
    it('retries the first at once, the next with backoff, keeping the key', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        () => HttpResponse.error(),
        () => HttpResponse.error(),
        created(),
      ])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT).withResponse())
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 0, reason: 'stale keep-alive socket' })
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 1_000, reason: 'connection error' })
      await vi.advanceTimersByTimeAsync(1_000)
      await call.settled
      expect(call.state.value?.response.attempts).toBe(3)
      expect(new Set(server.seen.map((seen) => seen.key)).size).toBe(1)
      expect(server.seen.map((seen) => seen.at)).toEqual([0, 0, 1_000])
    })

    it('fails with ConnectionError and the attempt count once retries run out', async () => {
      const drop = () => HttpResponse.error()
      const server = scriptedServer('post', TRIGGER_URL, [drop, drop])
      const { client } = clientWith(server, { maxRetries: 0 })
      const call = settle(client.events.trigger(EVENT))
      await call.settled
      // maxRetries 0 still allows the one free retry of a connection that closed before answering.
      expect(call.state.error).toBeInstanceOf(ConnectionError)
      expect((call.state.error as ConnectionError).attempts).toBe(2)
      expect(server.seen).toHaveLength(2)
    })
  })

  describe('timeouts and deadlines', () => {
    const hanging = () => async () => {
      await delay('infinite')
      return HttpResponse.json({ data: TRIGGERED }, { status: 201 })
    }

    it('a hanging server: TimeoutError after timeoutMs on each attempt, maxRetries + 1 attempts', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [hanging(), hanging(), hanging()])
      const { client, log } = clientWith(server, { timeoutMs: 1_000 })
      const call = settle(client.events.trigger(EVENT))

      await server.attempts(1)
      await vi.advanceTimersByTimeAsync(999)
      await flush()
      expect(call.state.done).toBe(false)
      expect(log.retries()).toHaveLength(0)
      await vi.advanceTimersByTimeAsync(1)
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 500, reason: 'attempt timed out' })
      await vi.advanceTimersByTimeAsync(500)
      await server.attempts(2)
      await vi.advanceTimersByTimeAsync(1_000)
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 1_000, reason: 'attempt timed out' })
      await vi.advanceTimersByTimeAsync(1_000)
      await server.attempts(3)
      await vi.advanceTimersByTimeAsync(999)
      await flush()
      expect(call.state.done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      await call.settled

      const error = call.state.error as TimeoutError
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error.message).toBe('Attempt timed out after 1000 ms')
      expect(error.attempts).toBe(3)
      expect(server.seen.map((seen) => seen.at)).toEqual([0, 1_500, 3_500])
      expect(Date.now() - START).toBe(4_500)
      expect(new Set(server.seen.map((seen) => seen.key)).size).toBe(1)
      expect(server.seen).toHaveLength(3)
      expect(log.retries().map((line) => line.details?.reason)).toEqual([
        'attempt timed out',
        'attempt timed out',
      ])
    })

    it('deadlineMs cuts a hanging attempt short of timeoutMs', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [hanging(), created()])
      const { client } = clientWith(server, { timeoutMs: 5_000 })
      const call = settle(client.events.trigger(EVENT, { deadlineMs: 300 }))
      await server.attempts(1)
      await vi.advanceTimersByTimeAsync(299)
      await flush()
      expect(call.state.done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      await call.settled
      const error = call.state.error as TimeoutError
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error.message).toBe('The call ran past its deadline of 300 ms')
      expect(error.attempts).toBe(1)
      await vi.advanceTimersByTimeAsync(10_000)
      expect(server.seen).toHaveLength(1)
    })

    it('deadlineMs bounds the whole call: a later attempt gets only what is left', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [hanging(), hanging(), created()])
      const { client, log } = clientWith(server, { timeoutMs: 1_000 })
      const call = settle(client.events.trigger(EVENT, { deadlineMs: 2_000 }))
      await server.attempts(1)
      await vi.advanceTimersByTimeAsync(1_000)
      await log.nextRetry()
      await vi.advanceTimersByTimeAsync(500)
      await server.attempts(2)
      // The second attempt started at 1500 ms: 500 ms are left, not a whole timeoutMs.
      await vi.advanceTimersByTimeAsync(499)
      await flush()
      expect(call.state.done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      await call.settled
      expect(call.state.error).toBeInstanceOf(TimeoutError)
      expect((call.state.error as TimeoutError).message).toContain('deadline of 2000 ms')
      expect((call.state.error as TimeoutError).attempts).toBe(2)
      expect(Date.now() - START).toBe(2_000)
    })

    it('never sleeps past the deadline: a backoff that would is a TimeoutError at once', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [status(503), status(503), created()])
      const { client, log } = clientWith(server)
      const call = settle(client.events.trigger(EVENT, { deadlineMs: 1_200 }))
      await log.nextRetry()
      await vi.advanceTimersByTimeAsync(500)
      await server.attempts(2)
      // The next backoff (1000 ms) would end at 1500 ms, past the 1200 ms deadline.
      await call.settled
      const error = call.state.error as TimeoutError
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error.message).toBe('The call ran past its deadline of 1200 ms')
      expect(error.cause).toBeInstanceOf(InternalServerError)
      expect(error.attempts).toBe(2)
      expect(Date.now() - START).toBe(500)
      expect(log.retries()).toHaveLength(1)
    })

    it('a Retry-After longer than what is left of the deadline fails at once', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [status(429, { 'retry-after': '5' }), created()])
      const { client } = clientWith(server)
      const call = settle(client.events.trigger(EVENT, { deadlineMs: 3_000 }))
      await call.settled
      expect(call.state.error).toBeInstanceOf(TimeoutError)
      expect((call.state.error as TimeoutError).cause).toBeInstanceOf(RateLimitError)
      expect(server.seen).toHaveLength(1)
    })
  })

  describe("the caller's signal", () => {
    it('aborting during the backoff ends the call at once with AbortError', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [status(503), created()])
      const { client, log } = clientWith(server)
      const controller = new AbortController()
      const call = settle(client.events.trigger(EVENT, { signal: controller.signal }))
      expect((await log.nextRetry()).details).toMatchObject({ delayMs: 500 })
      controller.abort(new Error('shutting down'))
      await call.settled
      const error = call.state.error as AbortError
      expect(error).toBeInstanceOf(AbortError)
      expect((error.cause as Error).message).toBe('shutting down')
      expect(error.attempts).toBe(1)
      expect(error.idempotencyKey).toBe(server.seen[0]!.key)
      expect(Date.now() - START).toBe(0)
      expect(vi.getTimerCount()).toBe(0)
      await vi.advanceTimersByTimeAsync(10_000)
      expect(server.seen).toHaveLength(1)
    })

    it('aborting during an attempt ends the call with AbortError and no retry', async () => {
      const server = scriptedServer('post', TRIGGER_URL, [
        async () => {
          await delay('infinite')
          return HttpResponse.json({}, { status: 201 })
        },
        created(),
      ])
      const { client, log } = clientWith(server)
      const controller = new AbortController()
      const call = settle(client.events.trigger(EVENT, { signal: controller.signal }))
      await server.attempts(1)
      controller.abort()
      await call.settled
      expect(call.state.error).toBeInstanceOf(AbortError)
      expect((call.state.error as AbortError).attempts).toBe(1)
      await vi.advanceTimersByTimeAsync(10_000)
      expect(server.seen).toHaveLength(1)
      expect(log.retries()).toHaveLength(0)
    })
  })
})
