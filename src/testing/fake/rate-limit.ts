import type { FakeFixedWindow, FakeRateLimit, FakeTokenBucket } from './types.js'

const TRIGGER_PATH = /^\/v1\/events\/trigger\/?$/
const BULK_OR_BROADCAST_PATH = /^\/v1\/events\/trigger\/(bulk|broadcast)\/?$/

/** Units a call costs in the `trigger` category: a trigger 1, a bulk or broadcast 100. */
export function triggerCostOf(method: string, path: string): number | undefined {
  if (method !== 'POST') return undefined
  if (BULK_OR_BROADCAST_PATH.test(path)) return 100
  return TRIGGER_PATH.test(path) ? 1 : undefined
}

export interface RateLimitOutcome {
  allowed: boolean
  /** `RateLimit-*` headers, plus `Retry-After` when refused. */
  headers: Record<string, string>
}

/** A limiter the pipeline asks before each request; `undefined` when the request is not counted. */
export interface FakeLimiter {
  take(method: string, path: string): RateLimitOutcome | undefined
  reset(): void
}

export function createLimiter(config: FakeRateLimit): FakeLimiter {
  return 'perSecond' in config ? new TokenBucket(config) : new FixedWindow(config)
}

/**
 * The server's bucket: `burst` units, refilled at `perSecond`, charged for the `trigger` category
 * only. A refused request costs nothing. `Date.now()` drives it, so vitest's fake timers refill it.
 */
class TokenBucket implements FakeLimiter {
  readonly #perSecond: number
  readonly #burst: number
  #tokens: number
  #updatedAt: number | undefined

  constructor(config: FakeTokenBucket) {
    if (!(config.perSecond > 0)) throw new RangeError('rateLimit: perSecond must be a positive number')
    this.#perSecond = config.perSecond
    this.#burst = config.burst ?? config.perSecond
    if (!(this.#burst >= 1)) throw new RangeError('rateLimit: burst must be at least 1')
    this.#tokens = this.#burst
  }

  take(method: string, path: string): RateLimitOutcome | undefined {
    const cost = triggerCostOf(method, path)
    if (cost === undefined) return undefined
    const now = Date.now()
    const elapsedMs = this.#updatedAt === undefined ? 0 : now - this.#updatedAt
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsedMs * this.#perSecond) / 1000)
    this.#updatedAt = now
    const allowed = this.#tokens >= cost
    if (allowed) this.#tokens -= cost
    const headers: Record<string, string> = {
      'ratelimit-limit': String(this.#burst),
      'ratelimit-remaining': String(Math.floor(this.#tokens)),
      'ratelimit-reset': String(Math.ceil((this.#burst - this.#tokens) / this.#perSecond)),
      'ratelimit-policy': `${this.#burst};w=${this.#burst / this.#perSecond}`,
    }
    if (!allowed) {
      headers['retry-after'] = String(Math.max(1, Math.ceil((cost - this.#tokens) / this.#perSecond)))
    }
    return { allowed, headers }
  }

  reset(): void {
    this.#tokens = this.#burst
    this.#updatedAt = undefined
  }
}

/**
 * The fake's first limiter, kept for `{ limit, windowMs }`: a fixed window of `limit` units per
 * `windowMs`, starting with the first request it counts, charging every call (bulk and broadcast
 * 100, others 1). A refused request costs nothing.
 */
class FixedWindow implements FakeLimiter {
  readonly #config: FakeFixedWindow
  #windowStart = 0
  #used = 0

  constructor(config: FakeFixedWindow) {
    this.#config = config
  }

  take(method: string, path: string): RateLimitOutcome {
    const { limit, windowMs } = this.#config
    const cost = triggerCostOf(method, path) === 100 ? 100 : 1
    const now = Date.now()
    if (this.#used === 0 || now - this.#windowStart >= windowMs) {
      this.#windowStart = now
      this.#used = 0
    }
    const allowed = this.#used + cost <= limit
    if (allowed) this.#used += cost
    const resetSeconds = Math.max(1, Math.ceil((this.#windowStart + windowMs - now) / 1000))
    const headers: Record<string, string> = {
      'ratelimit-limit': String(limit),
      'ratelimit-remaining': String(Math.max(0, limit - this.#used)),
      'ratelimit-reset': String(resetSeconds),
      'ratelimit-policy': `${limit};w=${Math.max(1, Math.ceil(windowMs / 1000))}`,
    }
    if (!allowed) headers['retry-after'] = String(resetSeconds)
    return { allowed, headers }
  }

  reset(): void {
    this.#windowStart = 0
    this.#used = 0
  }
}
