import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  AbortError,
  NotificationClient,
  type NotificationClientOptions,
  RateLimitError,
  TimeoutError,
} from '../../../src/index.js'
import { createRateLimiter } from '../../../src/internal/pipeline/rate-limiter.js'
import type { FakeServiceOptions } from '../../../src/testing/index.js'
import { API_KEY, seededFake } from '../../helpers/fake.js'
import { captureLogs } from '../../helpers/logs.js'
import { clientFor, closeClients, TRANSPORTS } from '../../helpers/transport.js'
import { rejectionOf } from '../../helpers/wire.js'

// The adaptive limiter against the fake's token bucket, on a fake clock: what each request waited
// for shows as the time it reached the fake.

const START = Date.parse('2026-03-01T12:00:00.000Z')
const EVENT = { name: 'welcome', to: 'alice' }

/** A fake, and clients over a fetch that records when each request reached it and what it got. */
function setup(fakeOptions: FakeServiceOptions = {}) {
  const fake = seededFake(fakeOptions)
  const arrivals: { at: number; apiKey: string }[] = []
  const statuses: number[] = []
  const fetch: NotificationClientOptions['fetch'] = async (url, init) => {
    const authorization = new Headers(init.headers).get('authorization') ?? ''
    arrivals.push({ at: Date.now() - START, apiKey: authorization.replace('ApiKey ', '') })
    const response = await fake.fetch(url, init)
    statuses.push(response.status)
    return response
  }
  const clientWith = (options: Partial<NotificationClientOptions> = {}) =>
    new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://fake.test',
      fetch,
      logLevel: 'off',
      ...options,
    })
  return { fake, arrivals, statuses, clientWith, at: () => arrivals.map((arrival) => arrival.at) }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

describe('adaptive rate limiting (default)', () => {
  it('holds back a request that would overdraw the bucket until the refill, instead of a 429', async () => {
    const { clientWith, at, statuses } = setup({ rateLimit: { perSecond: 100, burst: 40 } })
    const client = clientWith()
    // The first answer tells the client about the bucket: 39 units left, 100 a second, of which a
    // fleet keeps 16 (two fifths of the bucket, less than eight bulk requests) for requests no client
    // sees. A newcomer, it takes half of what is above that; each answer shows the bucket again.
    await client.events.trigger(EVENT)
    const calls = Array.from({ length: 32 }, () => client.events.trigger(EVENT))
    await vi.advanceTimersByTimeAsync(1_000)
    await Promise.all(calls)
    // 22 go at once, down to the level; the next ten wait 10 ms each for a unit.
    expect(at()).toEqual([
      ...Array.from({ length: 23 }, () => 0),
      ...Array.from({ length: 10 }, (_, k) => 10 * (k + 1)),
    ])
    expect(statuses.every((status) => status === 201)).toBe(true)
  })

  it('charges bulk and broadcast 100 units, and leaves other operations alone', async () => {
    const { clientWith, at } = setup({ rateLimit: { perSecond: 100, burst: 150 } })
    const client = clientWith()
    await client.events.triggerBulk([EVENT])
    // 50 left, 60 kept (two fifths of the bucket): a newcomer alone owes its half of the 10 below the
    // level, and its credit holds its half of the 90 above it at most: the broadcast waits for 50
    // units at half the refill. A read in the meantime does not wait.
    const bulk = client.events.broadcast({ name: 'welcome', payload: {} })
    const read = client.notifications.get('missing').catch(() => undefined)
    await vi.advanceTimersByTimeAsync(1_000)
    await Promise.all([bulk, read])
    expect(at()).toEqual([0, 0, 1_000])
  })

  it('after a 429, every request of the client and its derived clients waits for Retry-After', async () => {
    const { fake, clientWith, at } = setup()
    const client = clientWith()
    const derived = client.withOptions({ timeoutMs: 5_000 })
    fake.failNext({ status: 429, headers: { 'retry-after': '2' } })
    const first = client.events.trigger(EVENT).withResponse()
    await vi.advanceTimersByTimeAsync(10)
    const others = [client.events.trigger(EVENT), derived.events.triggerBulk([EVENT, EVENT])]
    await vi.advanceTimersByTimeAsync(1_900)
    // Nothing was sent during the pause: the 429'd request only.
    expect(at()).toEqual([0])
    await vi.advanceTimersByTimeAsync(200)
    await Promise.all(others)
    const { response } = await first
    // The 429'd request itself was retried once, after the pause, with its key.
    expect(response.attempts).toBe(2)
    expect(at()).toEqual([0, 2_000, 2_000, 2_000])
  })

  it('gives a derived client with another API key its own limiter', async () => {
    const { fake, clientWith, arrivals } = setup()
    const client = clientWith()
    const other = client.withOptions({ apiKey: 'other-key' })
    fake.failNext({ status: 429, headers: { 'retry-after': '2' } })
    const first = client.events.trigger(EVENT, { maxRetries: 0 }).catch(() => undefined)
    await vi.advanceTimersByTimeAsync(10)
    const fake2 = other.events.trigger(EVENT).catch(() => undefined)
    await vi.advanceTimersByTimeAsync(10)
    expect(arrivals.map(({ apiKey }) => apiKey)).toEqual([API_KEY, 'other-key'])
    await Promise.all([first, fake2])
  })

  it('fails a wait that would end past deadlineMs at once, sending nothing', async () => {
    const { clientWith, at } = setup({ rateLimit: { perSecond: 1, burst: 1 } })
    const client = clientWith()
    await client.events.trigger(EVENT)
    const error = await rejectionOf(client.events.trigger(EVENT, { deadlineMs: 500 }))
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toMatchObject({ attempts: 0 })
    expect(at()).toEqual([0])
  })

  it('ends a wait when the signal aborts, and gives its units back', async () => {
    const { clientWith, at } = setup({ rateLimit: { perSecond: 1, burst: 1 } })
    const client = clientWith()
    await client.events.trigger(EVENT)
    const controller = new AbortController()
    const aborted = rejectionOf(client.events.trigger(EVENT, { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(300)
    controller.abort()
    expect(await aborted).toBeInstanceOf(AbortError)
    // The aborted request's unit is free again: the next one goes when the bucket has one.
    const next = client.events.trigger(EVENT)
    await vi.advanceTimersByTimeAsync(700)
    await next
    expect(at()).toEqual([0, 1_000])
  })

  it('pauses nothing for a Retry-After longer than a retry waits out: each call fails as the server answers', async () => {
    const fake = seededFake()
    const arrivals: number[] = []
    let refuse = true
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://fake.test',
      logLevel: 'off',
      fetch: async (url, init) => {
        arrivals.push(Date.now() - START)
        if (!refuse) return fake.fetch(url, init)
        return Response.json(
          { message: 'API rate limit exceeded' },
          { status: 429, headers: { 'retry-after': '120' } },
        )
      },
    })
    expect(await rejectionOf(client.events.trigger(EVENT))).toBeInstanceOf(RateLimitError)
    expect(await rejectionOf(client.events.trigger(EVENT))).toBeInstanceOf(RateLimitError)
    refuse = false
    await client.events.trigger(EVENT)
    expect(arrivals).toEqual([0, 0, 0])
    expect(fake.notifications).toHaveLength(1)
  })

  it('never waits without RateLimit headers', async () => {
    const { clientWith, at } = setup()
    const client = clientWith()
    await Promise.all(Array.from({ length: 20 }, () => client.events.trigger(EVENT)))
    expect(at()).toEqual(Array.from({ length: 20 }, () => 0))
  })
})

describe("rateLimit: 'off'", () => {
  it('sends at once and lets each 429 be retried on its own', async () => {
    const { clientWith, at, statuses } = setup({ rateLimit: { perSecond: 10, burst: 3 } })
    const client = clientWith({ rateLimit: 'off' })
    await client.events.trigger(EVENT)
    const calls = Array.from({ length: 4 }, () => client.events.trigger(EVENT))
    await vi.advanceTimersByTimeAsync(5_000)
    await Promise.all(calls)
    expect(at().slice(0, 5)).toEqual([0, 0, 0, 0, 0])
    expect(statuses.filter((status) => status === 429)).toHaveLength(2)
  })

  it('is checked with the other client options', () => {
    expect(
      () =>
        new NotificationClient({ apiKey: 'k', baseUrl: 'https://x.test', rateLimit: 'sometimes' as 'off' }),
    ).toThrow('rateLimit must be adaptive, off, or a rate limiter with an acquire method')
  })

  it('is a known client option: a misspelling is refused, naming it', () => {
    const options = { apiKey: 'k', baseUrl: 'https://x.test', ratelimit: 'off' }
    expect(() => new NotificationClient(options as { rateLimit?: 'off' })).toThrow(
      'NotificationClient option ratelimit: unknown option; did you mean `rateLimit`?',
    )
    expect(
      () => new NotificationClient({ apiKey: 'k', baseUrl: 'https://x.test', rateLimit: undefined }),
    ).not.toThrow()
  })
})

describe('RateLimiter without RateLimit headers', () => {
  it('lets every attempt go at once, with no timer', () => {
    const limiter = createRateLimiter()
    for (let i = 0; i < 1_000; i++) {
      const mark = limiter.acquire(100, {}, undefined)
      expect(mark).toBe((i + 1) * 100)
      limiter.settle(100, mark as number, { status: 201, headers: { 'content-type': 'application/json' } })
    }
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('RateLimiter reading the bucket', () => {
  // 100 units, refilled in 10 s: a unit every 100 ms.
  const report = (remaining: number) => ({
    status: 201,
    headers: { 'ratelimit-policy': '100;w=10', 'ratelimit-remaining': String(remaining) },
  })

  /**
   * A client past its first decision, alone: its first window began at 50 left (its 10 drawn), and
   * a window on it drew 12 of the 40 refilled, all that was drawn. Its share is the whole refill, it
   * keeps no level, and the 78 left are its credit.
   */
  async function decidedAlone() {
    const limiter = createRateLimiter()
    limiter.settle(10, limiter.acquire(10, {}, undefined) as number, report(50))
    await vi.advanceTimersByTimeAsync(4_000)
    limiter.settle(12, limiter.acquire(12, {}, undefined) as number, report(78))
    return limiter
  }

  it('takes an answer to a request sent after the latest report was read as the picture: a bucket found fuller lets the next request go', async () => {
    const limiter = await decidedAlone()
    expect(limiter.acquire(70, {}, undefined)).toBe(92)
    const waiting = limiter.acquire(10, {}, undefined)
    expect(waiting).toBeInstanceOf(Promise)
    // The server found 60 left after those 70: the waiting request goes at once.
    limiter.settle(70, 92, report(60))
    expect(await waiting).toBe(102)
  })

  it('counts the units in flight against that picture: the server may not have taken them yet', async () => {
    const limiter = await decidedAlone()
    expect(limiter.acquire(30, {}, undefined)).toBe(52)
    expect(limiter.acquire(30, {}, undefined)).toBe(82)
    // 40 left after the second, the first still in flight: 10 for this client.
    limiter.settle(30, 82, report(40))
    expect(typeof limiter.acquire(10, {}, undefined)).toBe('number')
    expect(limiter.acquire(1, {}, undefined)).toBeInstanceOf(Promise)
  })

  it("takes an answer to a request sent before the latest report was read as no fuller picture, though it went after that report's request", async () => {
    const limiter = await decidedAlone()
    limiter.acquire(30, {}, undefined)
    limiter.acquire(30, {}, undefined)
    // The first request's answer comes first, the second still in flight: 10 for this client.
    limiter.settle(30, 52, report(40))
    // The second may have been taken before the first: its 70 left lightens nothing.
    limiter.settle(30, 82, report(70))
    expect(typeof limiter.acquire(10, {}, undefined)).toBe('number')
    expect(limiter.acquire(1, {}, undefined)).toBeInstanceOf(Promise)
  })

  it('lets an answer overtaken by a report read since lower the picture, never lighten it: it may have been taken after', async () => {
    for (const [overtaken, goes] of [
      [70, 10],
      [4, 4],
    ] as const) {
      vi.setSystemTime(START)
      const limiter = await decidedAlone()
      limiter.acquire(30, {}, undefined)
      limiter.acquire(30, {}, undefined)
      limiter.settle(30, 82, report(40))
      // The first request's answer comes last: 70 left lightens nothing (10 stay); 4 left darkens it.
      limiter.settle(30, 52, report(overtaken))
      expect(typeof limiter.acquire(goes, {}, undefined)).toBe('number')
      expect(limiter.acquire(1, {}, undefined)).toBeInstanceOf(Promise)
    }
  })
})

describe('RateLimiter after a 429', () => {
  const tooMany = (retryAfter: string) => ({ status: 429, headers: { 'retry-after': retryAfter } })

  it('a second 429 with a later Retry-After holds a request that already waits until the later end', async () => {
    const limiter = createRateLimiter()
    // One request blind; its answer says nothing of the bucket, and two go at once.
    limiter.settle(1, limiter.acquire(1, {}, undefined) as number, { status: 201, headers: {} })
    expect(limiter.acquire(1, {}, undefined)).toBe(2)
    expect(limiter.acquire(1, {}, undefined)).toBe(3)
    // The first answers 429, Retry-After: 1 — everything pauses until t = 1 000.
    limiter.settle(1, 2, tooMany('1'))
    // A third request comes and waits for the end of that pause.
    const turn = limiter.acquire(1, {}, undefined)
    expect(turn).toBeInstanceOf(Promise)
    let releasedAt: number | undefined
    void (turn as Promise<number>).then(() => (releasedAt = Date.now() - START))
    await vi.advanceTimersByTimeAsync(500)
    // The second request, in flight all along, answers 429 too, Retry-After: 3 — until t = 3 500.
    limiter.settle(1, 3, tooMany('3'))
    await vi.advanceTimersByTimeAsync(1_000)
    expect(releasedAt).toBeUndefined() // past the first pause's end (1 000)
    await vi.advanceTimersByTimeAsync(1_999)
    expect(releasedAt).toBeUndefined() // t = 3 499
    await vi.advanceTimersByTimeAsync(1)
    expect(releasedAt).toBe(3_500)
    limiter.settle(1, 4, { status: 201, headers: {} })
  })
})

describe.each(TRANSPORTS)('over a real socket through %s, on the real clock', (transport) => {
  afterEach(closeClients)

  it('streams 4,000 events through a 2,000 units/s bucket without a 429', async () => {
    vi.useRealTimers()
    // A bucket whose two fifths hold a bulk request per step (eight), so that they are paced as they
    // are, not split into single triggers.
    const fake = seededFake({ rateLimit: { perSecond: 2_000, burst: 2_200 } })
    const server = await fake.listen()
    const log = captureLogs()
    const client = clientFor(server, { apiKey: API_KEY, logger: log.logger, logLevel: 'debug' }, transport)
    try {
      const started = performance.now()
      const source = Array.from({ length: 4_000 }, (_, i) => ({ name: 'welcome', to: `user-${i % 10}` }))
      let applied = 0
      for await (const outcome of client.events.triggerStream(source, { concurrency: 4 })) {
        if (outcome.results) applied += outcome.count
      }
      const seconds = (performance.now() - started) / 1000
      expect(applied).toBe(4_000)
      const statuses = log.lines.filter((line) => line.level === 'debug').map((line) => line.details?.status)
      expect(statuses).toHaveLength(40)
      expect(statuses.filter((status) => status !== 201)).toEqual([])
      // 4,000 units less the 2,200 of the burst, at 2,000 a second.
      expect(seconds).toBeGreaterThan(0.8)
      expect(seconds).toBeLessThan(3)
    } finally {
      await server.close()
    }
  })

  it("holds every request back for a 429's Retry-After, read from the response headers", async () => {
    vi.useRealTimers()
    const fake = seededFake()
    const server = await fake.listen()
    const client = clientFor(server, { apiKey: API_KEY, logLevel: 'off' }, transport)
    try {
      fake.failNext({ status: 429, headers: { 'retry-after': '1' } })
      const started = performance.now()
      const first = client.events.trigger(EVENT).withResponse()
      await new Promise((resolve) => setTimeout(resolve, 100))
      // Sent after the 429 was read: it waits for the end of the pause instead of going at once.
      await client.events.trigger(EVENT)
      expect(performance.now() - started).toBeGreaterThan(950)
      expect((await first).response.attempts).toBe(2)
    } finally {
      await server.close()
    }
  })
})
