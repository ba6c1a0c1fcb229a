import fc from 'fast-check'
import { errors as undiciErrors } from 'undici'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  AbortError,
  ApiError,
  ConnectionError,
  type NotifyKitError,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
} from '../../src/core/errors.js'
import { parseRetryAfterMs } from '../../src/internal/http/response-headers.js'
import {
  backoffMs,
  decideRetry,
  failsLikeAnOutage,
  isStaleSocket,
  MAX_RETRY_AFTER_MS,
  type RetryState,
} from '../../src/internal/pipeline/retry-policy.js'
import { sleep } from '../../src/internal/pipeline/waits.js'
import { checkCallOptions } from '../../src/internal/validation/option-schemas.js'

const FIRST_FAILURE: RetryState = { attempts: 1, maxRetries: 2, staleSocketRetryUsed: false }
const NO_JITTER = () => 0

function apiError(status: number, headers: Record<string, string> = {}): ApiError {
  return ApiError.fromResponse(status, { statusCode: status, message: 'test' }, headers)
}

/** A ConnectionError as the transport builds it: undici's error as `cause`. */
function connectionError(code: string, responseStarted = false): ConnectionError {
  const cause = Object.assign(new Error(`socket failure ${code}`), { code })
  const error = new ConnectionError(`Connection failed: ${code}`, { cause })
  error.responseStarted = responseStarted
  return error
}

describe('decideRetry: what the server recorded for the idempotency key', () => {
  const replayed = (status: number, headers: Record<string, string> = {}) =>
    apiError(status, { 'idempotency-replay': 'true', ...headers })

  it.each([503, 500, 502, 504, 409, 429])(
    'a replay (status %i) is never retried, whatever x-should-retry says',
    (status) => {
      expect(decideRetry(replayed(status), FIRST_FAILURE, NO_JITTER)).toEqual({ retry: false })
      expect(decideRetry(replayed(status, { 'x-should-retry': 'true' }), FIRST_FAILURE, NO_JITTER)).toEqual({
        retry: false,
      })
    },
  )

  it('a replay is no sign of an outage: it takes nothing from the retry budget', () => {
    expect(failsLikeAnOutage(replayed(503))).toBe(false)
    // The same status without the mark is one.
    expect(failsLikeAnOutage(apiError(503))).toBe(true)
  })

  it.each([500, 503, 408])('a %i that echoes the key was recorded for it: not retried', (status) => {
    expect(decideRetry(apiError(status, { 'idempotency-key': 'k-1' }), FIRST_FAILURE, NO_JITTER)).toEqual({
      retry: false,
    })
    expect(decideRetry(apiError(status), FIRST_FAILURE, NO_JITTER).retry).toBe(true)
  })

  it.each([409, 429])('a %i that echoes the key was not recorded for it: retried', (status) => {
    expect(
      decideRetry(apiError(status, { 'idempotency-key': 'k-1' }), FIRST_FAILURE, NO_JITTER),
    ).toMatchObject({
      retry: true,
      reason: `status ${status}`,
    })
  })
})

describe('decideRetry: statuses', () => {
  it.each([408, 409, 429, 500, 502, 503, 504])('retries %i after the first backoff step', (status) => {
    expect(decideRetry(apiError(status), FIRST_FAILURE, NO_JITTER)).toEqual({
      retry: true,
      delayMs: 500,
      reason: `status ${status}`,
      staleSocket: false,
    })
  })

  it.each([400, 401, 403, 404, 405, 410, 413, 418, 422, 501, 505])('never retries %i', (status) => {
    expect(decideRetry(apiError(status), FIRST_FAILURE, NO_JITTER)).toEqual({ retry: false })
  })

  it('lets `x-should-retry` override the status rule both ways', () => {
    const forced = decideRetry(apiError(400, { 'x-should-retry': 'true' }), FIRST_FAILURE, NO_JITTER)
    expect(forced).toMatchObject({ retry: true, delayMs: 500, reason: 'status 400' })
    const refused = decideRetry(apiError(503, { 'x-should-retry': 'false' }), FIRST_FAILURE, NO_JITTER)
    expect(refused).toEqual({ retry: false })
    // Any other value leaves the status rule in charge.
    expect(decideRetry(apiError(503, { 'x-should-retry': 'maybe' }), FIRST_FAILURE).retry).toBe(true)
    expect(decideRetry(apiError(404, { 'x-should-retry': '1' }), FIRST_FAILURE).retry).toBe(false)
  })

  it('stops once maxRetries retries were made', () => {
    const error = apiError(503)
    expect(decideRetry(error, { attempts: 2, maxRetries: 2, staleSocketRetryUsed: false }).retry).toBe(true)
    expect(decideRetry(error, { attempts: 3, maxRetries: 2, staleSocketRetryUsed: false }).retry).toBe(false)
    expect(decideRetry(error, { attempts: 1, maxRetries: 0, staleSocketRetryUsed: false }).retry).toBe(false)
  })
})

describe('decideRetry: the wait the server asks for', () => {
  it('waits `retry-after-ms` before `Retry-After`, and `Retry-After` instead of the backoff', () => {
    const both = apiError(503, { 'retry-after-ms': '250', 'retry-after': '5' })
    expect(decideRetry(both, FIRST_FAILURE, NO_JITTER)).toMatchObject({ retry: true, delayMs: 250 })
    const seconds = apiError(429, { 'retry-after': '3' })
    expect(decideRetry(seconds, FIRST_FAILURE, NO_JITTER)).toMatchObject({ retry: true, delayMs: 3_000 })
  })

  it('reads `Retry-After` as an HTTP date', () => {
    const now = Date.parse('2026-03-01T12:00:00Z')
    const headers = { 'retry-after': new Date(now + 7_000).toUTCString() }
    expect(parseRetryAfterMs(headers, now)).toBe(7_000)
    expect(parseRetryAfterMs({ 'retry-after': new Date(now - 7_000).toUTCString() }, now)).toBe(0)
  })

  it('ignores unusable values and falls back to the next source', () => {
    expect(parseRetryAfterMs({ 'retry-after-ms': 'soon', 'retry-after': '2' })).toBe(2_000)
    expect(parseRetryAfterMs({ 'retry-after-ms': '-5' })).toBeUndefined()
    expect(parseRetryAfterMs({ 'retry-after': 'whenever' })).toBeUndefined()
    expect(parseRetryAfterMs({ 'retry-after': '' })).toBeUndefined()
    expect(parseRetryAfterMs({})).toBeUndefined()
  })

  it('does not wait for more than 60 s: no retry, and the error carries the asked wait', () => {
    const rateLimited = apiError(429, { 'retry-after': '120' })
    expect(rateLimited.retryAfterMs).toBe(120_000)
    expect(decideRetry(rateLimited, FIRST_FAILURE)).toEqual({ retry: false })
    const unavailable = apiError(503, { 'retry-after-ms': String(MAX_RETRY_AFTER_MS + 1) })
    expect(decideRetry(unavailable, FIRST_FAILURE)).toEqual({ retry: false })
    const atTheLimit = apiError(429, { 'retry-after': '60' })
    expect(decideRetry(atTheLimit, FIRST_FAILURE)).toMatchObject({ retry: true, delayMs: 60_000 })
  })
})

describe('decideRetry: connection failures', () => {
  it('retries a refused connection with backoff, within maxRetries', () => {
    const refused = connectionError('ECONNREFUSED')
    expect(decideRetry(refused, FIRST_FAILURE, NO_JITTER)).toEqual({
      retry: true,
      delayMs: 500,
      reason: 'connection error',
      staleSocket: false,
    })
    expect(decideRetry(refused, { ...FIRST_FAILURE, maxRetries: 0 })).toEqual({ retry: false })
  })

  it('retries a timed-out attempt, never as a stale socket', () => {
    const timedOut = new TimeoutError('Attempt timed out after 50 ms', {
      cause: Object.assign(new Error('aborted'), { code: 'UND_ERR_SOCKET' }),
    })
    expect(
      decideRetry(timedOut, { attempts: 2, maxRetries: 2, staleSocketRetryUsed: false }, NO_JITTER),
    ).toEqual({ retry: true, delayMs: 1_000, reason: 'attempt timed out', staleSocket: false })
    expect(decideRetry(timedOut, { ...FIRST_FAILURE, maxRetries: 0 })).toEqual({ retry: false })
  })

  it.each(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])(
    'retries %s before the response started, once and at once, even with maxRetries 0',
    (code) => {
      const noRetries: RetryState = { attempts: 1, maxRetries: 0, staleSocketRetryUsed: false }
      expect(decideRetry(connectionError(code), noRetries)).toEqual({
        retry: true,
        delayMs: 0,
        reason: 'stale keep-alive socket',
        staleSocket: true,
      })
      expect(
        decideRetry(connectionError(code), { attempts: 2, maxRetries: 0, staleSocketRetryUsed: true }),
      ).toEqual({ retry: false })
    },
  )

  it('does not treat a connection that failed mid-response as a stale socket', () => {
    const cut = connectionError('ECONNRESET', true)
    expect(isStaleSocket(cut)).toBe(false)
    expect(decideRetry(cut, { attempts: 1, maxRetries: 0, staleSocketRetryUsed: false })).toEqual({
      retry: false,
    })
    expect(decideRetry(cut, FIRST_FAILURE, NO_JITTER)).toMatchObject({
      retry: true,
      reason: 'connection error',
    })
  })

  it('does not retry a call on a closed or destroyed client, or one undici refuses to send', () => {
    for (const cause of [
      new undiciErrors.ClientClosedError(),
      new undiciErrors.ClientDestroyedError(),
      new undiciErrors.InvalidArgumentError('bad header'),
    ]) {
      const error = new ConnectionError(`Connection failed: ${cause.message}`, { cause })
      expect(decideRetry(error, FIRST_FAILURE)).toEqual({ retry: false })
    }
  })
})

describe('decideRetry: failures that are never retried', () => {
  const never: [string, NotifyKitError][] = [
    ['the caller abort', new AbortError('The request was aborted by the caller')],
    ['a RequestValidationError', new RequestValidationError([{ path: ['name'], message: 'Required' }])],
    ['a ResponseValidationError', new ResponseValidationError('bad shape', 200, '{}')],
    ['a ResponseTooLargeError', new ResponseTooLargeError(1024)],
  ]
  it.each(never)('%s', (_name, error) => {
    expect(decideRetry(error, FIRST_FAILURE)).toEqual({ retry: false })
    expect(decideRetry(error, { attempts: 1, maxRetries: 0, staleSocketRetryUsed: false })).toEqual({
      retry: false,
    })
  })
})

describe('backoffMs', () => {
  it('starts near 0.5 s, doubles and stops at 8 s', () => {
    expect([0, 1, 2, 3, 4, 5, 30].map((retriesDone) => backoffMs(retriesDone, NO_JITTER))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ])
  })

  it('shortens each step by up to a quarter at random, never lengthens it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retriesDone, draw) => {
          const base = Math.min(500 * 2 ** retriesDone, 8_000)
          const delay = backoffMs(retriesDone, () => draw)
          expect(delay).toBeGreaterThanOrEqual(Math.round(base * 0.75))
          expect(delay).toBeLessThanOrEqual(base)
        },
      ),
    )
  })

  it('spreads concurrent clients apart', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffMs(2)))
    expect(delays.size).toBeGreaterThan(10)
  })
})

describe('checkCallOptions', () => {
  it('accepts the usual values and nothing at all', () => {
    expect(() => checkCallOptions({})).not.toThrow()
    expect(() => checkCallOptions({ maxRetries: 0, timeoutMs: 1, deadlineMs: 30_000 })).not.toThrow()
  })

  it.each([
    [{ maxRetries: Number.NaN }, 'maxRetries'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ maxRetries: 1.5 }, 'maxRetries'],
    [{ maxRetries: Number.POSITIVE_INFINITY }, 'maxRetries'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ timeoutMs: Number.NaN }, 'timeoutMs'],
    [{ timeoutMs: 2 ** 31 }, 'timeoutMs'],
    [{ deadlineMs: -100 }, 'deadlineMs'],
    [{ deadlineMs: Number.POSITIVE_INFINITY }, 'deadlineMs'],
  ])('rejects %o naming %s', (limits, name) => {
    const error = (() => {
      try {
        checkCallOptions(limits)
      } catch (caught) {
        return caught
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([[name]])
  })
})

describe('sleep', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('resolves after the delay and leaves no listener on the signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const controller = new AbortController()
    const remove = vi.spyOn(controller.signal, 'removeEventListener')
    let done = false
    const waiting = sleep(1_000, controller.signal, () => new Error('aborted')).then(() => {
      done = true
    })
    await vi.advanceTimersByTimeAsync(999)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await waiting
    expect(done).toBe(true)
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function))
  })

  it('rejects as soon as the signal fires, and at once when it already had', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const controller = new AbortController()
    const waiting = sleep(8_000, controller.signal, () => new Error('stopped'))
    controller.abort()
    await expect(waiting).rejects.toThrow('stopped')
    expect(vi.getTimerCount()).toBe(0)
    await expect(sleep(8_000, controller.signal, () => new Error('already'))).rejects.toThrow('already')
    expect(vi.getTimerCount()).toBe(0)
  })
})
