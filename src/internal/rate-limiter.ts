import { callerAbortError } from './abort.js'
import { deadlineError } from './deadline.js'
import { readBucket } from './rate-limit-headers.js'
import { parseRetryAfterMs } from './response-headers.js'
import { sleep } from './sleep.js'

type Headers = Readonly<Record<string, string | string[] | undefined>>

/**
 * The client's picture of the server's `trigger` token bucket, shared by every request that draws
 * from it, so that concurrent requests wait for the refill together instead of each finding the
 * limit with a 429 and retrying on its own.
 *
 * Until a response carries `RateLimit-*` headers or a 429 arrives, `acquire` returns at once with
 * nothing allocated and no clock read: a server that does not rate-limit costs nothing.
 * @internal
 */
export class RateLimiter {
  /** False until the server has said something about its bucket. */
  #active = false
  #limit = 0
  /** Units per millisecond; 0 until a response described the bucket. */
  #refillPerMs = 0
  /**
   * Units in the bucket at `#updatedAt`, less the requests already let through that the server may
   * not have charged yet. Negative while requests wait for the refill: each waits for its own debt.
   */
  #tokens = 0
  #updatedAt = 0
  /** Units of the requests let through and not answered yet. */
  #inFlight = 0
  /** After a 429, nothing is sent before this time. */
  #pausedUntil = 0

  /**
   * Takes `cost` units for an attempt. Returns `undefined` when it may go now, or a promise that
   * resolves when it may go and rejects (the units given back) on `signal`, or at once when the
   * wait would end past `deadline`.
   */
  acquire(
    cost: number,
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    deadlineMs: number | undefined,
  ): Promise<void> | undefined {
    // Counted even before the server has said anything: the first answer's `RateLimit-Remaining`
    // may not include the requests sent with it.
    this.#inFlight += cost
    if (!this.#active) return undefined
    const now = Date.now()
    let waitMs = this.#pausedUntil - now
    if (this.#refillPerMs > 0) {
      this.#refill(now)
      this.#tokens -= cost
      const debtMs = this.#tokens < 0 ? -this.#tokens / this.#refillPerMs : 0
      waitMs = Math.max(waitMs, this.#updatedAt - now + debtMs)
    }
    if (waitMs <= 0) return undefined
    return this.#wait(Math.ceil(waitMs), cost, signal, deadline, deadlineMs)
  }

  /**
   * Ends an attempt that `acquire` let through: `response` is undefined when none arrived. Its
   * headers correct the picture of the bucket; a 429 pauses every request of this limiter.
   */
  settle(cost: number, response: { status: number; headers: Headers } | undefined): void {
    this.#inFlight = Math.max(0, this.#inFlight - cost)
    if (response === undefined) return
    if (response.status === 429) this.#pause(response.headers)
    const reading = readBucket(response.headers)
    if (reading === undefined) return
    this.#active = true
    this.#limit = reading.limit
    if (reading.refillPerMs !== undefined) this.#refillPerMs = reading.refillPerMs
    // With neither a policy nor a reset to go by, assume the bucket fills in a second.
    else if (this.#refillPerMs === 0) this.#refillPerMs = reading.limit / 1_000
    const now = Date.now()
    // During a pause the bucket is known to be empty until it ends; the pause already says so.
    if (now < this.#pausedUntil) return
    this.#refill(now)
    // With other requests in flight this answer may be older than one already read (answers
    // overtake each other), so it may only lower the picture; with none, it is the latest word.
    const reported = reading.remaining - this.#inFlight
    this.#tokens = this.#inFlight === 0 ? reported : Math.min(this.#tokens, reported)
    this.#updatedAt = Math.max(this.#updatedAt, now)
  }

  #refill(now: number): void {
    if (now <= this.#updatedAt) return
    this.#tokens = Math.min(this.#limit, this.#tokens + (now - this.#updatedAt) * this.#refillPerMs)
    this.#updatedAt = now
  }

  #pause(headers: Headers): void {
    // Without `Retry-After` the 429'd request backs off as any retry does; the bucket headers, if
    // any, still hold the others back until the refill.
    const pauseMs = parseRetryAfterMs(headers)
    if (pauseMs === undefined) return
    const until = Date.now() + pauseMs
    if (until <= this.#pausedUntil) return
    this.#active = true
    this.#pausedUntil = until
    // The bucket is empty now and refills from the end of the pause; what is in flight was taken.
    this.#tokens = -this.#inFlight
    this.#updatedAt = until
  }

  async #wait(
    waitMs: number,
    cost: number,
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    deadlineMs: number | undefined,
  ): Promise<void> {
    try {
      for (let remainingMs = waitMs; remainingMs > 0; remainingMs = this.#pausedUntil - Date.now()) {
        // Waiting for a turn that comes after the deadline would only delay the same failure.
        if (deadline !== undefined && Date.now() + remainingMs >= deadline) throw deadlineError(deadlineMs)
        await sleep(remainingMs, signal, () => callerAbortError(signal))
      }
    } catch (error) {
      this.#inFlight = Math.max(0, this.#inFlight - cost)
      if (this.#refillPerMs > 0) this.#tokens += cost
      throw error
    }
  }
}

/**
 * The limiters of a client and of the clients `withOptions` derives from it: one per origin and API
 * key, as the server keeps one bucket per key.
 * @internal
 */
export class RateLimiters {
  readonly #byBucket = new Map<string, RateLimiter>()

  for(origin: string, apiKey: string): RateLimiter {
    const bucket = `${origin} ${apiKey}`
    let limiter = this.#byBucket.get(bucket)
    if (limiter === undefined) {
      limiter = new RateLimiter()
      this.#byBucket.set(bucket, limiter)
    }
    return limiter
  }
}
