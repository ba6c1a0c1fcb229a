import type { FakeBucket, FakeFixedWindow, FakePlan, FakeRateLimit, FakeTokenBucket } from './types.js'

/** The server's rate-limit categories; a route without its own is in `global`. */
export type RateLimitCategory = 'trigger' | 'configuration' | 'global'
type CostName = 'single' | 'bulk'

/** Units each cost takes from its bucket, as the server charges them. */
const COST_UNITS: Record<CostName, number> = { single: 1, bulk: 100 }

/**
 * The category and cost the server's controllers declare for each of the nine routes: the events
 * controller is `trigger` (bulk and broadcast cost `bulk`), both subscribers controllers are
 * `configuration`, and the notifications controller declares none, so it is `global`.
 */
const ROUTE_LIMITS: Record<string, { category: RateLimitCategory; cost: CostName }> = {
  'POST /v1/events/trigger': { category: 'trigger', cost: 'single' },
  'POST /v1/events/trigger/bulk': { category: 'trigger', cost: 'bulk' },
  'POST /v1/events/trigger/broadcast': { category: 'trigger', cost: 'bulk' },
  'DELETE /v1/events/trigger/:transactionId': { category: 'trigger', cost: 'single' },
  'GET /v1/notifications/:notificationId': { category: 'global', cost: 'single' },
  'POST /v1/subscribers/:subscriberId/messages/mark-all': { category: 'configuration', cost: 'single' },
  'PATCH /v2/subscribers/:subscriberId/preferences': { category: 'configuration', cost: 'single' },
  'GET /v1/notifications': { category: 'global', cost: 'single' },
  'GET /v2/subscribers/:subscriberId/preferences': { category: 'configuration', cost: 'single' },
}

/** The server's refill window: `RateLimit-Limit` is what one window refills. */
const WINDOW_SECONDS = 5
/** What a bucket holds beyond a window's refill. */
const BURST_ALLOWANCE = 0.1
const ALGORITHM = 'token bucket'
/** The level a self-hosted server reports, and the fake's when no plan is named. */
const SERVICE_LEVEL = 'unlimited'

/** Each plan's rate per second, per category, as the service's tiers set them. */
const PLAN_RATES: Record<FakePlan, Record<RateLimitCategory, number>> = {
  free: { trigger: 60, configuration: 20, global: 30 },
  pro: { trigger: 240, configuration: 80, global: 120 },
  business: { trigger: 600, configuration: 200, global: 300 },
  enterprise: { trigger: 6_000, configuration: 2_000, global: 3_000 },
}

/** A plan's bucket, sized as the server sizes it: a window's refill and the burst allowance. */
function planBucket(perSecond: number): FakeBucket {
  return { perSecond, burst: Math.floor(perSecond * WINDOW_SECONDS * (1 + BURST_ALLOWANCE)) }
}

export interface RateLimitOutcome {
  allowed: boolean
  /** `RateLimit-*` headers, plus `Retry-After` when refused. */
  headers: Record<string, string>
}

/** A limiter the pipeline asks before each request; `undefined` when the request is not counted. */
export interface FakeLimiter {
  /** `route` is the matched route as `<METHOD> <pattern>`. */
  take(route: string): RateLimitOutcome | undefined
  reset(): void
}

export function createLimiter(config: FakeRateLimit): FakeLimiter {
  if ('plan' in config) {
    const rates = PLAN_RATES[config.plan]
    if (rates === undefined) {
      throw new RangeError(`rateLimit: plan must be one of ${Object.keys(PLAN_RATES).join(', ')}`)
    }
    const buckets = {
      ...planBucket(rates.trigger),
      configuration: planBucket(rates.configuration),
      global: planBucket(rates.global),
    }
    return new CategoryBuckets(buckets, config.plan)
  }
  return 'perSecond' in config ? new CategoryBuckets(config) : new FixedWindow(config)
}

/**
 * One token bucket per category, as the server keeps one per environment and category. `trigger`
 * is always counted; `global` and `configuration` only when configured.
 */
class CategoryBuckets implements FakeLimiter {
  readonly #buckets: Partial<Record<RateLimitCategory, TokenBucket>>

  constructor(config: FakeTokenBucket, serviceLevel = SERVICE_LEVEL) {
    this.#buckets = { trigger: new TokenBucket('trigger', config, serviceLevel) }
    if (config.global) this.#buckets.global = new TokenBucket('global', config.global, serviceLevel)
    if (config.configuration) {
      this.#buckets.configuration = new TokenBucket('configuration', config.configuration, serviceLevel)
    }
  }

  take(route: string): RateLimitOutcome | undefined {
    const limits = ROUTE_LIMITS[route]
    if (!limits) return undefined
    return this.#buckets[limits.category]?.take(limits.cost)
  }

  reset(): void {
    for (const bucket of Object.values(this.#buckets)) bucket.reset()
  }
}

/**
 * The server's bucket: holds `burst` units and refills `perSecond`. A refused request costs
 * nothing. `Date.now()` drives it, so vitest's fake timers refill it.
 */
class TokenBucket {
  readonly #category: RateLimitCategory
  readonly #perSecond: number
  readonly #burst: number
  readonly #serviceLevel: string
  #tokens: number
  #updatedAt: number | undefined

  constructor(category: RateLimitCategory, config: FakeBucket, serviceLevel: string) {
    this.#serviceLevel = serviceLevel
    if (!(config.perSecond > 0)) {
      throw new RangeError(`rateLimit (${category}): perSecond must be a positive number`)
    }
    this.#category = category
    this.#perSecond = config.perSecond
    this.#burst = config.burst ?? config.perSecond
    if (!(this.#burst >= 1)) throw new RangeError(`rateLimit (${category}): burst must be at least 1`)
    this.#tokens = this.#burst
  }

  take(costName: CostName): RateLimitOutcome {
    const cost = COST_UNITS[costName]
    const now = Date.now()
    const elapsedMs = this.#updatedAt === undefined ? 0 : now - this.#updatedAt
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsedMs * this.#perSecond) / 1000)
    this.#updatedAt = now
    const allowed = this.#tokens >= cost
    if (allowed) this.#tokens -= cost
    // Like the server: the time until the next request of the same cost can pass.
    const missing = this.#tokens < cost ? cost - this.#tokens : cost
    const resetSeconds = String(Math.ceil(missing / this.#perSecond))
    const limit = this.#perSecond * WINDOW_SECONDS
    const headers: Record<string, string> = {
      'ratelimit-remaining': String(Math.floor(this.#tokens)),
      'ratelimit-limit': String(limit),
      'ratelimit-reset': resetSeconds,
      'ratelimit-policy': `${limit};w=${WINDOW_SECONDS};burst=${this.#burst};comment="${ALGORITHM}";category="${this.#category}";cost="${costName}";serviceLevel="${this.#serviceLevel}"`,
    }
    if (!allowed) headers['retry-after'] = resetSeconds
    return { allowed, headers }
  }

  reset(): void {
    this.#tokens = this.#burst
    this.#updatedAt = undefined
  }
}

/**
 * The fake's first limiter, kept for `{ limit, windowMs }`: a fixed window of `limit` units per
 * `windowMs`, starting with the first request it counts, charging every operation its cost in
 * units. A refused request costs nothing.
 */
class FixedWindow implements FakeLimiter {
  readonly #config: FakeFixedWindow
  #windowStart = 0
  #used = 0

  constructor(config: FakeFixedWindow) {
    this.#config = config
  }

  take(route: string): RateLimitOutcome {
    const { limit, windowMs } = this.#config
    const cost = COST_UNITS[ROUTE_LIMITS[route]?.cost ?? 'single']
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
