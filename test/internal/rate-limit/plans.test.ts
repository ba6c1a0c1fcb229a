import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createRateLimiter } from '../../../src/internal/pipeline/rate-limiter.js'
import { call, seededFake } from '../../helpers/fake.js'

// The pacer on each of the service's plans: clients streaming events four requests at a time, as a
// stream does (bulk requests of 100 units, or single triggers of 1 where the pacer finds bulk ones
// too coarse for the bucket), through pacers of their own into one bucket sized as the server sizes
// it, on a fake clock, with a few milliseconds each way. And the fake's `rateLimit: { plan }`.

const START = Date.parse('2026-03-01T12:00:00.000Z')
const PLANS = [
  { plan: 'free', rate: 60, burst: 330 },
  { plan: 'pro', rate: 240, burst: 1_320 },
  { plan: 'business', rate: 600, burst: 3_300 },
  { plan: 'enterprise', rate: 6_000, burst: 33_000 },
] as const

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

/** The server's token bucket for a plan, answering with its headers. */
function bucketOf({ plan, rate, burst }: (typeof PLANS)[number]) {
  let tokens: number = burst
  let updatedAt = Date.now()
  const statuses: number[] = []
  let applied = 0
  const policy = `${rate * 5};w=5;burst=${burst};comment="token bucket";category="trigger";cost="bulk";serviceLevel="${plan}"`
  const take = (cost: number) => {
    tokens = Math.min(burst, tokens + ((Date.now() - updatedAt) * rate) / 1000)
    updatedAt = Date.now()
    const allowed = tokens >= cost
    if (allowed) tokens -= cost
    statuses.push(allowed ? 201 : 429)
    if (allowed) applied += cost
    const headers: Record<string, string> = {
      'ratelimit-policy': policy,
      'ratelimit-remaining': String(Math.floor(tokens)),
    }
    if (!allowed) headers['retry-after'] = String(Math.ceil((cost - tokens) / rate))
    return { status: allowed ? 201 : 429, headers }
  }
  return { take, statuses, applied: () => applied }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `clients` clients, started `staggerMs` apart, each sending `chunks` × 100 events four requests at
 * a time; a 429 is sent again after the pause its pacer keeps. What the bucket answered (the units
 * it took), and when all ended.
 */
async function fleet(plan: (typeof PLANS)[number], clients: number, chunks: number, staggerMs = 0) {
  const bucket = bucketOf(plan)
  const ends: number[] = []
  const work = Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      await sleep(c * staggerMs)
      const pacer = createRateLimiter()
      let left = chunks * 100
      // As a stream does: until an answer describes the bucket, one bulk request goes alone.
      let first: Promise<unknown> | undefined
      const worker = async () => {
        while (left > 0) {
          if (pacer.coarse(100) === undefined && first !== undefined) await first
          const cost = pacer.coarse(100) ? 1 : 100
          left -= cost
          let answered = () => {}
          if (pacer.coarse(100) === undefined) first ??= new Promise<void>((resolve) => (answered = resolve))
          for (;;) {
            const mark = await pacer.acquire(cost, {}, undefined)
            await sleep(3)
            const answer = bucket.take(cost)
            await sleep(3)
            pacer.settle(cost, mark, answer)
            answered()
            if (process.env.TRACE && answer.status === 429)
              console.log(plan.plan, c, Date.now() - START, cost, answer.headers)
            if (answer.status === 201) break
          }
        }
      }
      await Promise.all(Array.from({ length: 4 }, worker))
      ends.push(Date.now() - START)
    }),
  )
  let done = false
  void work.then(() => (done = true))
  while (!done) await vi.advanceTimersByTimeAsync(50)
  const refused = bucket.statuses.filter((status) => status === 429).length
  return { refused, requests: bucket.statuses.length, applied: bucket.applied(), endedAt: Math.max(...ends) }
}

describe.each(PLANS)('on the $plan plan', (plan) => {
  /** Twice the burst per client, in bulk requests. */
  const chunks = Math.ceil((2 * plan.burst) / 100)

  it('one client alone: no 429, and the whole bucket drawn (it keeps no level once it has seen no other draw)', async () => {
    const { refused, endedAt } = await fleet(plan, 1, chunks)
    expect(refused).toBe(0)
    const ideal = ((chunks * 100 - plan.burst) / plan.rate) * 1000
    expect(endedAt / ideal).toBeLessThanOrEqual(1.05)
    // Never faster than the bucket allows.
    expect(endedAt / ideal).toBeGreaterThanOrEqual(0.97)
  })

  it('two clients starting together: no 429', async () => {
    const { refused, applied } = await fleet(plan, 2, chunks)
    expect(applied).toBe(2 * chunks * 100)
    expect(refused).toBe(0)
  })

  it('four clients starting 250 ms apart: one 429 per client at most, and the bucket kept busy', async () => {
    const { refused, applied, endedAt } = await fleet(plan, 4, chunks, 250)
    expect(refused).toBeLessThanOrEqual(4)
    expect(applied).toBe(4 * chunks * 100)
    expect(endedAt / (((4 * chunks * 100 - plan.burst) / plan.rate) * 1000)).toBeLessThanOrEqual(1.15)
  })

  it('finds bulk requests too coarse where two fifths of the bucket hold fewer than eight of them', () => {
    const pacer = createRateLimiter()
    // Nothing known of the bucket yet.
    expect(pacer.coarse(100)).toBeUndefined()
    const mark = pacer.acquire(100, {}, undefined) as number
    pacer.settle(100, mark, bucketOf(plan).take(100))
    expect(pacer.coarse(100)).toBe(8 * 100 > (2 / 5) * plan.burst)
    expect(pacer.coarse(100)).toBe(plan.plan === 'free' || plan.plan === 'pro')
    expect(pacer.coarse(1)).toBe(false)
    // An answer that says nothing of the bucket: the server paces nothing, and no request is too coarse.
    const unpaced = createRateLimiter()
    unpaced.settle(100, unpaced.acquire(100, {}, undefined) as number, { status: 201, headers: {} })
    expect(unpaced.coarse(100)).toBe(false)
  })

  it("the fake's rateLimit: { plan } is the server's bucket for it", async () => {
    const fake = seededFake({ rateLimit: { plan: plan.plan } })
    const bulk = await call(fake, 'POST', '/v1/events/trigger/bulk', {
      events: [{ name: 'welcome', to: 'alice' }],
    })
    expect(bulk.status).toBe(201)
    expect(bulk.headers.get('ratelimit-limit')).toBe(String(plan.rate * 5))
    expect(bulk.headers.get('ratelimit-remaining')).toBe(String(plan.burst - 100))
    expect(bulk.headers.get('ratelimit-policy')).toBe(
      `${plan.rate * 5};w=5;burst=${plan.burst};comment="token bucket";category="trigger";cost="bulk";serviceLevel="${plan.plan}"`,
    )
  })
})

describe("the fake's plans", () => {
  it('count configuration and global requests in buckets of their own, sized by the plan', async () => {
    const fake = seededFake({ rateLimit: { plan: 'pro' } })
    const preferences = await call(fake, 'PATCH', '/v2/subscribers/alice/preferences', {
      channels: { email: true },
    })
    expect(preferences.headers.get('ratelimit-policy')).toBe(
      '400;w=5;burst=440;comment="token bucket";category="configuration";cost="single";serviceLevel="pro"',
    )
    const read = await call(fake, 'GET', '/v1/notifications/none')
    expect(read.headers.get('ratelimit-policy')).toBe(
      '600;w=5;burst=660;comment="token bucket";category="global";cost="single";serviceLevel="pro"',
    )
  })

  it('refuses an unknown plan, naming the plans', () => {
    expect(() => seededFake({ rateLimit: { plan: 'gold' as 'pro' } })).toThrow(
      'plan must be one of free, pro, business, enterprise',
    )
  })
})
