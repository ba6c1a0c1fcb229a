import type { RequestOptions } from '../../core/options.js'
import { parseRetryAfterMs, type ResponseHeaders } from '../http/response-headers.js'
import { callerAbortError } from '../transport/attempt.js'
import { MAX_RETRY_AFTER_MS } from './retry-policy.js'
import { deadlineError, sleep } from './waits.js'

/**
 * The client's picture of the server's `trigger` token bucket, shared by every request that draws
 * from it, so that concurrent requests wait for the refill together instead of each finding the
 * limit with a 429 and retrying on its own.
 * @internal
 */
export interface RateLimiter {
  /**
   * Takes `cost` units for an attempt. Returns `undefined` when it may go now, or a promise that
   * resolves when it may go and rejects (the units given back) on the call's `signal`, or at once
   * when the wait would end past `deadline`. Every `acquire` that does not reject is followed by a
   * `settle`.
   */
  acquire(cost: number, options: RequestOptions, deadline: number | undefined): Promise<void> | undefined
  /**
   * Ends an attempt that `acquire` let through: `response` is undefined when none arrived. Its
   * `RateLimit-Policy` and `RateLimit-Remaining` correct the picture of the bucket; a 429's
   * `Retry-After` pauses every request of this limiter.
   */
  settle(cost: number, response?: { status: number; headers: ResponseHeaders }): void
}

/**
 * A limiter that knows nothing yet. Until a response carries `RateLimit-*` headers or a 429 with
 * `Retry-After`, `acquire` returns at once with nothing allocated and no clock read: a server that
 * does not rate-limit costs nothing.
 * @internal
 */
export function createRateLimiter(): RateLimiter {
  /** How long the empty bucket takes to fill; 0 until a response said. */
  let fillMs = 0
  /** How long one unit takes to come back; 0 until a response said (then only a pause waits). */
  let msPerUnit = 0
  /**
   * When the bucket will be full again if nothing more is taken, counting every request let
   * through (a virtual clock: each request moves it on by its cost). 0 until the server said
   * anything about its bucket, and then nothing ever waits.
   */
  let fullAt = 0
  /** After a 429, nothing is sent before this time. */
  let pausedUntil = 0
  /** Units of the requests let through and not answered yet. */
  let inFlight = 0

  const wait = async (
    waitMs: number,
    cost: number,
    { signal, deadlineMs }: RequestOptions,
    deadline?: number,
  ) => {
    try {
      // A 429 read meanwhile may push the end of the pause further.
      for (let remainingMs = waitMs; remainingMs > 0; remainingMs = pausedUntil - Date.now()) {
        // Waiting for a turn that comes after the deadline would only delay the same failure.
        if (deadline !== undefined && Date.now() + remainingMs >= deadline) throw deadlineError(deadlineMs)
        await sleep(remainingMs, signal, () => callerAbortError(signal))
      }
    } catch (error) {
      inFlight -= cost
      fullAt -= cost * msPerUnit
      throw error
    }
  }

  return {
    acquire(cost, options, deadline) {
      // Counted even before the server has said anything: the first answer's `RateLimit-Remaining`
      // may not include the requests sent with it.
      inFlight += cost
      if (fullAt === 0) return undefined
      const now = Date.now()
      fullAt = Math.max(fullAt, now) + cost * msPerUnit
      // It may go once the bucket is short of full by no more than it holds.
      const waitMs = fullAt - fillMs - now
      return waitMs > 0 ? wait(Math.ceil(waitMs), cost, options, deadline) : undefined
    },

    settle(cost, response) {
      inFlight -= cost
      if (response === undefined) return
      const { headers } = response
      const now = Date.now()
      // The bucket as the first policy states it (`<quota>;w=<seconds>`: what it holds, and how long
      // it takes to fill), and what is left in it. Most servers send neither.
      const policy = /^([\d.]+)\s*;\s*w=([\d.]+)/.exec(headers['ratelimit-policy'] ?? '')
      const size = Number(policy?.[1])
      const fillSeconds = Number(policy?.[2])
      const remaining = Number(headers['ratelimit-remaining'])
      const described = size > 0 && fillSeconds > 0 && remaining >= 0
      if (described) {
        fillMs = fillSeconds * 1000
        msPerUnit = fillMs / size
      }
      // Without `Retry-After` the 429'd request backs off as any retry does; the bucket headers, if
      // any, still hold the others back until the refill.
      const pauseMs = response.status === 429 ? parseRetryAfterMs(headers) : undefined
      // A longer `Retry-After` than a retry would wait out fails that call at once (RateLimitError),
      // and so it does the others: each sent and refused, instead of held unseen for minutes.
      if (pauseMs !== undefined && pauseMs <= MAX_RETRY_AFTER_MS && now + pauseMs > pausedUntil) {
        pausedUntil = now + pauseMs
        // Empty until the pause ends, and what is in flight is taken from it.
        fullAt = pausedUntil + fillMs + inFlight * msPerUnit
      } else if (described && now >= pausedUntil) {
        // With other requests in flight this answer may be older than one already read (answers
        // overtake each other), so it may only lower the picture; with none, it is the latest word.
        const reported = now + fillMs - (remaining - inFlight) * msPerUnit
        fullAt = inFlight > 0 ? Math.max(fullAt, reported) : reported
      }
    },
  }
}
