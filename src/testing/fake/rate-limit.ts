import type { FakeRateLimit } from './types.js'

/** Units a call costs, as on the server: bulk and broadcast 100, every other call 1. */
export function costOf(path: string): number {
  return /\/v1\/events\/trigger\/(bulk|broadcast)\/?$/.test(path) ? 100 : 1
}

export interface RateLimitOutcome {
  allowed: boolean
  /** `RateLimit-*` headers, plus `Retry-After` when refused. */
  headers: Record<string, string>
}

/**
 * A fixed window: `limit` units per `windowMs`, starting with the first request it counts. A refused
 * request costs nothing. `Date.now()` drives it, so vitest's fake timers move windows too.
 */
export class RateLimiter {
  readonly #config: FakeRateLimit
  #windowStart = 0
  #used = 0

  constructor(config: FakeRateLimit) {
    this.#config = config
  }

  take(cost: number): RateLimitOutcome {
    const { limit, windowMs } = this.#config
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
