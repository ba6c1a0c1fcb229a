import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AbortError, TimeoutError } from '../../../src/index.js'
import { createRateLimiter } from '../../../src/internal/pipeline/rate-limiter.js'

// The 429 path and the waiting line of one client's pacer, to the millisecond, on a fake clock. The
// bucket refills a unit per ms and holds 2,000; the level a fleet keeps is 800 (a bulk request per
// step, two fifths of it), and a window 800 ms. The client is in a fleet (it has seen others draw, so
// it keeps the level), its share the whole refill, and a report of `LEVEL + n` left, to a request
// sent after the latest report was read (mark 600), gives it `n` units to send, less what it has in
// flight.

const START = Date.parse('2026-03-01T12:00:00.000Z')
const POLICY = '1000;w=1;burst=2000;comment="token bucket";category="trigger";cost="bulk";serviceLevel="pro"'
const LEVEL = 800
const WINDOW = 800

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

function answer(remaining: number, status = 201, extra: Record<string, string> = {}, policy = POLICY) {
  return {
    status,
    headers: { 'ratelimit-policy': policy, 'ratelimit-remaining': String(remaining), ...extra },
  }
}
const tooMany = (retryAfter: string, remaining = 0) => answer(remaining, 429, { 'retry-after': retryAfter })

/**
 * A client in a fleet whose share is the whole refill, with nothing to send until a report says
 * otherwise: its first window began at the level and others drew 190 units in it; in the second it
 * drew all that was drawn. It has sent 599 units.
 */
async function aloneClient() {
  const limiter = createRateLimiter()
  let mark = limiter.acquire(10, {}, undefined) as number
  limiter.settle(10, mark, answer(LEVEL))
  await vi.advanceTimersByTimeAsync(WINDOW)
  mark = limiter.acquire(10, {}, undefined) as number
  limiter.settle(10, mark, answer(1_400))
  await vi.advanceTimersByTimeAsync(WINDOW)
  mark = limiter.acquire(579, {}, undefined) as number
  limiter.settle(579, mark, answer(1_421))
  // A second answer to that request, read after the first: it may only lower the credit.
  limiter.settle(0, mark, answer(LEVEL))
  return limiter
}

/** When (ms from now) each acquire of `units` goes; `undefined` for one that has not. */
function track(limiter: ReturnType<typeof createRateLimiter>, units: number, signal?: AbortSignal) {
  const from = Date.now()
  const seen: { at?: number; mark?: number; error?: unknown } = {}
  void Promise.resolve()
    .then(() => limiter.acquire(units, { signal }, undefined))
    .then(
      (mark) => {
        seen.at = Date.now() - from
        seen.mark = mark
      },
      (error: unknown) => {
        seen.error = error
      },
    )
  return seen
}

describe('a pause (429 with Retry-After)', () => {
  it('holds every request until it ends, then the bucket is empty: the first request goes at the end plus its units', async () => {
    const limiter = await aloneClient()
    limiter.settle(0, 600, tooMany('2'))
    const next = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(2_009)
    expect(next.at).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(next.at).toBe(2_010)
  })

  it('owes what was in flight at the 429: the server will count it', async () => {
    const limiter = await aloneClient()
    limiter.settle(0, 600, answer(LEVEL + 100))
    const inFlight = limiter.acquire(100, {}, undefined) as number
    limiter.settle(0, 600, tooMany('2'))
    const next = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(2_200)
    // 2 s, then the 100 in flight and its own 10 at a unit per ms.
    expect(next.at).toBe(2_110)
    limiter.settle(100, inFlight)
  })

  it('ignores what answers read during it say of the bucket: its end is still empty', async () => {
    const limiter = await aloneClient()
    limiter.settle(0, 600, answer(LEVEL + 100))
    const inFlight = limiter.acquire(100, {}, undefined) as number
    limiter.settle(0, 600, tooMany('2'))
    await vi.advanceTimersByTimeAsync(500)
    // The request in flight comes back during the pause and says the bucket is full.
    limiter.settle(100, inFlight, answer(2_000))
    const next = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(2_000)
    expect(next.at).toBe(1_610)
  })

  it('is extended by a later 429 that ends later, and never shortened by one that ends sooner', async () => {
    const longer = await aloneClient()
    longer.settle(0, 600, tooMany('5'))
    await vi.advanceTimersByTimeAsync(1_000)
    longer.settle(0, 600, tooMany('1'))
    const held = track(longer, 10)
    await vi.advanceTimersByTimeAsync(5_000)
    // The second 429 came a window after the decision: it cut the share to 0.7, from the pause's end.
    expect(held.at).toBe(4_015)

    const shorter = await aloneClient()
    shorter.settle(0, 600, tooMany('1'))
    await vi.advanceTimersByTimeAsync(100)
    shorter.settle(0, 600, tooMany('2'))
    const extended = track(shorter, 10)
    await vi.advanceTimersByTimeAsync(3_000)
    expect(extended.at).toBe(2_010)
  })

  it('comes only from a 429 of the trigger bucket: not from another status, not from another category', async () => {
    const limiter = await aloneClient()
    limiter.settle(0, 600, answer(LEVEL + 50, 503, { 'retry-after': '5' }))
    const global = POLICY.replace('category="trigger"', 'category="global"')
    limiter.settle(0, 600, answer(0, 429, { 'retry-after': '5' }, global))
    const next = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(0)
    expect(next.at).toBe(0)
  })

  it('without Retry-After is no pause: the 429 says what is left, and the request waits for that', async () => {
    const limiter = await aloneClient()
    limiter.settle(0, 600, answer(LEVEL - 20, 429))
    const next = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(100)
    // 20 below the level, owed, then 10: at a unit per ms (the 429 is the window's decision: no cut).
    expect(next.at).toBe(30)
  })
})

describe('the waiting line', () => {
  it('is first come, first served: a small request waits behind a large one', async () => {
    const limiter = await aloneClient()
    const large = track(limiter, 100)
    const small = track(limiter, 1)
    await vi.advanceTimersByTimeAsync(200)
    expect(large.at).toBe(100)
    expect(small.at).toBe(101)
  })

  it('moves up when the first waiter aborts: the next goes at its own time, and the aborted units are not charged', async () => {
    const limiter = await aloneClient()
    const controller = new AbortController()
    const first = track(limiter, 100, controller.signal)
    const second = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(20)
    controller.abort()
    await vi.advanceTimersByTimeAsync(0)
    expect(first.error).toBeInstanceOf(AbortError)
    // 20 units refilled by now: the second goes at once, its mark counting only its own units.
    expect(second.at).toBe(20)
    expect(second.mark).toBe(609)
  })

  it('closes up when a waiter behind the first aborts', async () => {
    const limiter = await aloneClient()
    const controller = new AbortController()
    const first = track(limiter, 100)
    const aborted = track(limiter, 10, controller.signal)
    const third = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(50)
    controller.abort()
    await vi.advanceTimersByTimeAsync(200)
    expect(aborted.error).toBeInstanceOf(AbortError)
    expect(first.at).toBe(100)
    expect(third.at).toBe(110)
  })

  it('is not moved by an attempt that ends without an answer: nothing is read of the bucket', async () => {
    const limiter = await aloneClient()
    limiter.settle(0, 600, answer(LEVEL + 100))
    const mark = limiter.acquire(100, {}, undefined) as number
    const next = track(limiter, 10)
    await vi.advanceTimersByTimeAsync(5)
    // The attempt fails without an answer: the units it took stay taken.
    limiter.settle(100, mark)
    await vi.advanceTimersByTimeAsync(20)
    expect(next.at).toBe(10)
  })

  it("lets a request held by a newcomer's one bulk request in flight go when that attempt ends, answered or not", async () => {
    for (const response of [undefined, answer(1_990)]) {
      const limiter = createRateLimiter()
      const first = limiter.acquire(100, {}, undefined) as number
      const second = track(limiter, 100)
      await vi.advanceTimersByTimeAsync(10)
      expect(second.at).toBeUndefined()
      limiter.settle(100, first, response)
      await vi.advanceTimersByTimeAsync(0)
      expect(second.at).toBe(10)
    }
  })

  it('refuses at once, sending nothing, a request whose caller has already aborted', async () => {
    const limiter = await aloneClient()
    const controller = new AbortController()
    controller.abort()
    const refused = track(limiter, 10, controller.signal)
    await vi.advanceTimersByTimeAsync(0)
    expect(refused.error).toBeInstanceOf(AbortError)
    // Its units were not charged.
    expect(track(limiter, 1).at).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
  })
})

describe('the deadline', () => {
  it('refuses at once a request whose turn comes at its deadline or after; one a millisecond earlier waits', async () => {
    const limiter = await aloneClient()
    // Its turn: 10 units at a unit per ms, 10 ms from now.
    expect(() => limiter.acquire(10, { deadlineMs: 10 }, Date.now() + 10)).toThrow(TimeoutError)
    const waits = limiter.acquire(10, { deadlineMs: 11 }, Date.now() + 11)
    expect(waits).toBeInstanceOf(Promise)
    await vi.advanceTimersByTimeAsync(10)
    expect(await waits).toBe(609)
  })
})
