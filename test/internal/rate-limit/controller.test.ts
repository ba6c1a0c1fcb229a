import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseRateLimitPolicy } from '../../../src/internal/http/response-headers.js'
import { createRateLimiter } from '../../../src/internal/pipeline/rate-limiter.js'

// The fleet controller, driven by hand on a fake clock at each of the service's plans: a client sends
// units and reads answers that carry the bucket's headers as the service sends them, and its share
// shows as the pace of its requests. Every figure is in the plan's own units: the bucket holds 5.5 s
// of its rate; a fleet of bulk requests keeps eight of them, two fifths of the bucket at most, and a
// window is the time the refill takes to restore that; where it holds fewer than eight (free, pro),
// bulk requests are too coarse and a fleet keeps half as much, a bulk request and two steps at least;
// a share grows by 1/8 per window.

const START = Date.parse('2026-03-01T12:00:00.000Z')

interface Plan {
  name: string
  /** Units per second. */
  rate: number
}
const PLANS: Plan[] = [
  { name: 'free', rate: 60 },
  { name: 'pro', rate: 240 },
  { name: 'business', rate: 600 },
  { name: 'enterprise', rate: 6_000 },
]

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

describe.each(PLANS)('on the $name plan', ({ name, rate }) => {
  const CAPACITY = Math.floor(rate * 5 * 1.1)
  const POLICY = `${rate * 5};w=5;burst=${CAPACITY};comment="token bucket";category="trigger";cost="bulk";serviceLevel="${name}"`
  /** Units refilled per ms. */
  const R = rate / 1000
  /** The level a fleet of bulk requests keeps: eight of them, two fifths of the bucket at most. */
  const BULK_LEVEL = Math.min((2 / 5) * CAPACITY, 800)
  /** Where it holds fewer than eight, a fleet sends singles and keeps half, a bulk request and two steps. */
  const LEVEL =
    BULK_LEVEL < 800 ? Math.min(BULK_LEVEL, Math.max(BULK_LEVEL / 2, 100 / (1 - 2 / 8))) : BULK_LEVEL
  const WINDOW = BULK_LEVEL / R
  /** What the fleet can draw from a full bucket down to the level. */
  const ABOVE = CAPACITY - LEVEL
  /** The units `share` waits for: a quarter second of the whole refill, so the pace is `250 / share` ms. */
  const PACE_UNITS = rate / 4

  interface AnswerOptions {
    status?: number
    policy?: string
    retryAfter?: string
  }

  function answer(remaining: number, { status = 201, policy = POLICY, retryAfter }: AnswerOptions = {}) {
    const headers: Record<string, string> = {
      'ratelimit-policy': policy,
      'ratelimit-remaining': String(remaining),
    }
    if (retryAfter !== undefined) headers['retry-after'] = retryAfter
    return { status, headers }
  }

  /**
   * Whether `units` go at once from a new client after `setup`: the share of a newcomer shows as
   * what it may send at once, its part of the room above the level.
   */
  function takesAtOnce(setup: (client: Client) => void, units: number): boolean {
    const client = newClient()
    setup(client)
    return client.goes(units)
  }

  /** A newcomer's credit after `setup` is `credit`, to 3%. */
  function expectCredit(setup: (client: Client) => void, credit: number) {
    expect(takesAtOnce(setup, Math.floor(credit * 0.97))).toBe(true)
    expect(takesAtOnce(setup, Math.ceil(credit * 1.03) + 1)).toBe(false)
  }

  type Client = ReturnType<typeof newClient>

  /** A client's pacer, and what a test does with it. */
  function newClient(policy = POLICY) {
    const limiter = createRateLimiter()
    let latestMark = 0
    /** Sends `units` at once (it must be their turn) and reads the answer: `remaining` left, or none. */
    const send = (units: number, remaining?: number, options: AnswerOptions = {}) => {
      const mark = limiter.acquire(units, {}, undefined)
      if (typeof mark !== 'number') throw new Error(`${units} units are not free to go at once`)
      latestMark = mark
      const report = remaining === undefined ? undefined : answer(remaining, { policy, ...options })
      limiter.settle(units, mark, report)
    }
    /** Another answer to the latest request, with nothing in flight: it tells the bucket, draws nothing. */
    const read = (remaining: number, options: AnswerOptions = {}) =>
      limiter.settle(0, latestMark, answer(remaining, { policy, ...options }))
    /** How long `units` wait from now to go. */
    const waitMs = async (units = 100): Promise<number> => {
      const from = Date.now()
      let wentAt: number | undefined
      void Promise.resolve(limiter.acquire(units, {}, undefined)).then((mark) => {
        wentAt = Date.now()
        latestMark = mark
        limiter.settle(units, mark)
      })
      await vi.advanceTimersByTimeAsync(0)
      while (wentAt === undefined) await vi.advanceTimersByTimeAsync(1)
      return wentAt - from
    }
    /**
     * Its share, from its pace once a report puts the bucket at the level: `PACE_UNITS` take
     * `250 / share` ms after the first `PACE_UNITS` went (whatever it owed before).
     */
    const share = async () => {
      read(LEVEL)
      await waitMs(PACE_UNITS)
      return 250 / (await waitMs(PACE_UNITS))
    }
    /** Whether `units` go at once (they are then sent, without an answer). */
    const goes = (units: number) => typeof limiter.acquire(units, {}, undefined) === 'number'
    return { limiter, send, read, waitMs, share, goes }
  }

  /** A share read from a pace, to 1% (the clock moves by whole milliseconds, a window may not). */
  const expectShare = (measured: number, expected: number) =>
    expect(Math.abs(measured / expected - 1)).toBeLessThanOrEqual(0.01)

  /** Moves the fake clock on by `windows` windows, to the next whole millisecond. */
  const later = (windows: number) => vi.advanceTimersByTimeAsync(Math.ceil(windows * WINDOW))

  /** Moves on by a window, `client` reading `remaining` half way: a client that reads stays in the fleet. */
  async function windowOn(client: Client, remaining: number) {
    await later(0.5)
    client.read(remaining)
    await later(0.5)
  }

  /**
   * A client in a fleet: its first window began at the level, where others drew the window's refill
   * (so it keeps the fleet's level from then on), and its latest decision read an almost full bucket
   * (10 units, its own), where its next window begins.
   */
  async function inFleet(): Promise<Client> {
    const client = newClient()
    client.send(10, LEVEL)
    await windowOn(client, LEVEL)
    client.send(10, LEVEL)
    await windowOn(client, CAPACITY - 10)
    client.send(10, CAPACITY - 10)
    return client
  }

  /**
   * A client in a fleet that decides `windows` windows on, having sent `units` meanwhile, from an
   * answer with `remaining` left: the fleet drew `CAPACITY - remaining` over the windows (the bucket
   * was full again at their start), of which `units` are this client's.
   */
  async function decided(units: number, remaining: number, windows = 1): Promise<Client> {
    const client = await inFleet()
    for (let window = 0; window < windows; window++) await windowOn(client, CAPACITY - 10)
    client.send(units, remaining)
    return client
  }

  describe('a newcomer', () => {
    it('takes its part of what the bucket lacks, as much again being in flight from others it cannot see, two steps at least', () => {
      // Alone, 10 sent and 10 lacking: a part of 10 / 20 of what is above the level.
      expectCredit((client) => client.send(10, CAPACITY - 10), (CAPACITY - 10 - LEVEL) / 2)
      // Others drew 10 more: 10 / 30. Others drew 30 more: 10 / 50, and two steps (a quarter) at least.
      expectCredit((client) => client.send(10, CAPACITY - 20), (CAPACITY - 20 - LEVEL) / 3)
      expectCredit((client) => client.send(10, CAPACITY - 40), (CAPACITY - 40 - LEVEL) / 4)
    })

    it('lowers that part with each answer before its first decision, never raises it', () => {
      // 10 of 20 lacking, and as much again: 1/3; a later report that would make it larger (11 of 10
      // lacking) changes nothing.
      expectCredit(
        (client) => {
          client.send(10, CAPACITY - 10)
          client.read(CAPACITY - 20)
          client.send(1, CAPACITY - 10)
        },
        (CAPACITY - 10 - LEVEL) / 3,
      )
    })

    it('takes a part from a 429 too, cut by 0.7', async () => {
      // Its first answer a 429 with 70 left: 100 of its own, as much again, and the others' draw; two
      // steps at least.
      const share = Math.max(1 / 4, 100 / (CAPACITY - 70 + 100)) * 0.7
      const client = newClient()
      client.send(100, 70, { status: 429 })
      // It owes its share of what the bucket lacks below the level, then the 10 units.
      const waited = await client.waitMs(10)
      expect(Math.abs(waited - (10 + share * (LEVEL - 70)) / (share * R))).toBeLessThanOrEqual(1)
    })

    // On free the decided client's credit would not hold the two requests either (a stream sends
    // single triggers there: bulk requests are too coarse for that bucket).
    it.skipIf(name === 'free')(
      'decides a window after its first answer, whatever 429 came between',
      async () => {
        const client = newClient()
        client.send(10, LEVEL)
        await later(0.5)
        client.send(10, LEVEL - 100, { status: 429 })
        await later(0.5)
        // A window after its first answer: this report is its first decision, and lifts the newcomer's
        // step of the level in flight (two of 60 units go at once).
        client.send(10, CAPACITY - 10)
        expect(client.goes(60)).toBe(true)
        expect(client.goes(60)).toBe(true)
      },
    )

    it('sends one bulk request before its first answer, whatever the server, and waits for that answer', async () => {
      const client = newClient()
      const first = client.limiter.acquire(100, {}, undefined) as number
      expect(first).toBe(100)
      const second = client.limiter.acquire(100, {}, undefined)
      expect(second).toBeInstanceOf(Promise)
      // An answer without a word on the bucket: the server may not limit at all, and the second goes.
      client.limiter.settle(100, first, { status: 201, headers: {} })
      expect(await second).toBe(200)
    })

    // On the free plan a newcomer's credit never holds two bulk requests: the credit holds the second
    // (and a stream sends single triggers there).
    it.skipIf(ABOVE / 2 < 220)(
      'has no more than one bulk request in flight before its first decision, then as many as its credit holds',
      async () => {
        const client = newClient()
        client.send(10, CAPACITY - 10)
        const first = client.limiter.acquire(100, {}, undefined) as number
        const second = client.limiter.acquire(100, {}, undefined)
        expect(second).toBeInstanceOf(Promise)
        let went = false
        void (second as Promise<number>).then(() => (went = true))
        await vi.advanceTimersByTimeAsync(10)
        expect(went).toBe(false)
        client.limiter.settle(100, first)
        await vi.advanceTimersByTimeAsync(0)
        expect(went).toBe(true)
        // Decided: two go at once.
        const settled = await decided(ABOVE / 2, CAPACITY - 10)
        const half = Math.floor((ABOVE - 10) / 2) - 1
        expect(settled.goes(half)).toBe(true)
        expect(settled.goes(half)).toBe(true)
      },
    )
  })

  describe('a newcomer described', () => {
    it('has a step of the level in flight at most until its first decision, one request at least', () => {
      const client = newClient()
      client.send(10, CAPACITY - 10)
      const unit = Math.floor(LEVEL / 8 / 3)
      for (let sent = 0; sent < 3; sent++) expect(client.goes(unit)).toBe(true)
      expect(client.limiter.acquire(unit, {}, undefined)).toBeInstanceOf(Promise)
    })
  })

  describe('the credit', () => {
    it('holds no more than its part of the bucket above the level: a quiet spell banks no burst', async () => {
      // Half of what the fleet drew, plus a step: 5/8 of the room above the level, however long quiet.
      const client = await decided(ABOVE / 2, LEVEL)
      await later(100)
      client.send(Math.floor(0.99 * (5 / 8) * ABOVE))
      expect(await client.waitMs(Math.ceil(0.03 * ABOVE))).toBeGreaterThan(0)
    })
  })

  describe('a client idle for a window', () => {
    it('joins again: one bulk request in flight until it decides', async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(1.1)
      const mark = client.limiter.acquire(100, {}, undefined) as number
      expect(client.limiter.acquire(100, {}, undefined)).toBeInstanceOf(Promise)
      client.limiter.settle(100, mark, answer(CAPACITY - 100))
    })

    it('joins again: its share its part of what the bucket lacks from its next answer', async () => {
      // 100 of its own, 200 lacking: 100 / 300 of the room above the level, where it had all of it.
      for (const [units, goes] of [
        [Math.floor(0.97 * ((CAPACITY - 200 - LEVEL) / 3)), true],
        [Math.ceil(1.03 * ((CAPACITY - 200 - LEVEL) / 3)), false],
      ] as const) {
        const client = await decided(ABOVE, LEVEL)
        await later(1.1)
        client.send(100, CAPACITY - 200)
        expect(client.goes(units)).toBe(goes)
      }
    })

    it('does not join again while it was busy within the window', async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(0.9)
      client.send(1, CAPACITY - 200)
      // No new join: its decided share of the whole stays, where a newcomer would take a part.
      expectShare(await client.share(), 1)
    })
  })

  describe('one decision per window', () => {
    it('its share becomes its part of what the fleet drew over the window, plus a step', async () => {
      const half = await decided(ABOVE / 2, LEVEL)
      expectShare(await half.share(), 1 / 2 + 1 / 8)
      const fifth = await decided(ABOVE / 5, LEVEL)
      expectShare(await fifth.share(), 1 / 5 + 1 / 8)
    })

    it('scales every part by one factor when the fleet drew more than keeps the level, large and small alike', async () => {
      // The whole bucket drawn where only the room above the level would keep it: one factor on both.
      const factor = ABOVE / CAPACITY
      const large = await decided(CAPACITY / 5, 0)
      expectShare(await large.share(), (1 / 5) * factor + 1 / 8)
      const small = await decided(CAPACITY / 10, 0)
      expectShare(await small.share(), (1 / 10) * factor + 1 / 8)
    })

    it('scales nothing up when the fleet drew less than it could: the equal step is the only growth', async () => {
      const client = await decided(ABOVE / 8, CAPACITY - ABOVE / 2)
      expectShare(await client.share(), 1 / 4 + 1 / 8)
    })

    it('steps by the windows of time since its last decision: a client that reads seldom grows as fast', async () => {
      const client = await decided(ABOVE / 8, CAPACITY - ABOVE / 2, 2)
      expectShare(await client.share(), 1 / 4 + 2 / 8)
    })

    it('grows to the whole bucket at most', async () => {
      const alone = await decided(ABOVE, LEVEL)
      expectShare(await alone.share(), 1)
    })

    it('starts its first window a step below full (the refill has somewhere to go) and a step below the level or above (others may draw)', async () => {
      // After a full bucket, or one more than a step below the level, the next answer starts the
      // window: no decision yet, the newcomer's part of what the bucket lacks (two steps) stays.
      for (const first of [CAPACITY - 10, Math.floor((7 / 8) * LEVEL) - 10]) {
        const client = newClient()
        client.send(10, first)
        await later(1.1)
        client.send(10, LEVEL)
        expectShare(await client.share(), 1 / 4)
      }
    })

    it('starts it within a step of the level: a fleet that keeps the level holds the bucket about there', async () => {
      const start = Math.ceil((7 / 8) * LEVEL)
      const client = newClient()
      client.send(10, start)
      await later(1.1)
      client.send(10, LEVEL)
      // Decided: its 10 units of what the fleet drew (the refill since the start, less the level left),
      // plus a step per window since.
      const elapsed = Math.ceil(1.1 * WINDOW)
      expectShare(await client.share(), 10 / (start + elapsed * R - LEVEL) + elapsed / WINDOW / 8)
    })

    it('decides nothing more before the window has passed, and again once it has', async () => {
      const client = await decided(ABOVE / 8, CAPACITY - ABOVE / 2)
      await later(0.9)
      client.send(ABOVE / 8, 0)
      expectShare(await client.share(), 1 / 4 + 1 / 8)
      // Past the window, the next report decides.
      client.read(0)
      expect(250 / (await client.waitMs(PACE_UNITS))).not.toBeCloseTo(1 / 4 + 1 / 8, 2)
    })
  })

  describe('a 429', () => {
    it('never cuts a share below a 64th: a client keeps reading the bucket', async () => {
      const client = await decided(ABOVE, LEVEL)
      // Twelve cuts a window apart would leave 0.7 ** 12, less than a 64th.
      for (let cut = 1; cut <= 12; cut++) {
        await later(1)
        client.read(LEVEL, { status: 429 })
      }
      client.read(LEVEL)
      // A unit at a 64th of the refill.
      expect(Math.abs((await client.waitMs(1)) - 64 / R)).toBeLessThanOrEqual(1)
    })

    it('cuts the share to 0.7 of it, without Retry-After too', async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(1)
      client.read(LEVEL, { status: 429 })
      expectShare(await client.share(), 0.7)
    })

    it("with Retry-After, also pauses every request until then, and the pause's end finds the bucket empty", async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(1)
      client.read(0, { status: 429, retryAfter: '7' })
      // 7 s of pause, then the units at 0.7 of the refill.
      const waited = await client.waitMs(PACE_UNITS)
      expect(Math.abs(waited - (7_000 + 250 / 0.7))).toBeLessThanOrEqual(2)
    })

    it('cuts at most once per window: a burst of 429s is one cut, and the next window may cut again', async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(1)
      const cutAt = Date.now()
      client.read(LEVEL, { status: 429 })
      await vi.advanceTimersByTimeAsync(1)
      client.read(LEVEL, { status: 429 })
      await vi.advanceTimersByTimeAsync(cutAt + Math.floor(WINDOW) - 1 - Date.now())
      client.read(LEVEL, { status: 429 })
      expectShare(await client.share(), 0.7)
      await vi.advanceTimersByTimeAsync(Math.max(0, cutAt + Math.ceil(WINDOW) - Date.now()))
      client.read(LEVEL, { status: 429 })
      expectShare(await client.share(), 0.49)
    })

    it('cuts on a 429 without RateLimit headers too, as a proxy in front of the service answers', async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(1)
      client.limiter.settle(0, 1, { status: 429, headers: {} })
      expectShare(await client.share(), 0.7)
    })

    it("is the window's decision: it does not cut right after the window's report", async () => {
      const client = await decided(ABOVE, LEVEL)
      client.read(LEVEL, { status: 429 })
      expectShare(await client.share(), 1)
    })
  })

  describe('the trigger bucket only', () => {
    it("another category's answer moves nothing: not its 429, not its numbers", async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(1)
      const global = POLICY.replace('category="trigger"', 'category="global"')
      client.read(0, { status: 429, retryAfter: '5', policy: global })
      client.read(0, { policy: global })
      expectShare(await client.share(), 1)
    })

    it('a policy without a category is the trigger bucket', async () => {
      const client = await decided(ABOVE, LEVEL)
      await later(1)
      client.read(LEVEL, { status: 429, policy: `${rate * 5};w=5;burst=${CAPACITY}` })
      expectShare(await client.share(), 0.7)
    })
  })

  describe('alone or in a fleet', () => {
    /**
     * A newcomer whose first window began at the level and ended with its 10 units and `others`
     * more drawn from the bucket: its first decision.
     */
    async function firstDecision(others: number): Promise<{ client: Client; left: number }> {
      const client = newClient()
      client.send(10, LEVEL)
      const start = Date.now()
      await windowOn(client, LEVEL)
      const left = Math.floor(LEVEL + (Date.now() - start) * R) - 10 - others
      client.send(10, left)
      return { client, left }
    }

    it('alone, keeps no level: all that is left goes, and a unit more waits', async () => {
      const { client, left } = await firstDecision(0)
      expect(client.goes(left)).toBe(true)
      expect(client.goes(1)).toBe(false)
    })

    it("counts others' draw within a step of the level as noise: no level kept, its share its part", async () => {
      const others = Math.floor(LEVEL / 16)
      const { client, left } = await firstDecision(others)
      expect(client.goes(Math.floor(0.97 * (10 / (10 + others) + 1 / 8) * left))).toBe(true)
    })

    it('once others drew more than a step of the level, keeps it, and takes two steps of what is above it at most', async () => {
      const others = Math.ceil(LEVEL / 8) + 1
      const { client, left } = await firstDecision(others)
      // Its part and a step, two steps at most, of what is left above the level.
      const credit = Math.min(1 / 4, 10 / (10 + others) + 1 / 8) * (left - LEVEL)
      expect(client.goes(Math.floor(0.99 * credit))).toBe(true)
      expect(client.goes(Math.ceil(0.02 * credit) + 1)).toBe(false)
    })

    it('counts a request still in flight as its own draw: the server may have taken it already', async () => {
      const { client, left } = await firstDecision(0)
      const start = Date.now()
      // Alone, it draws the bucket down to half the level, then a window on sends 10 units and, before
      // their answer, a quarter of the level more; the answer finds both drawn.
      const drawn = left - LEVEL / 2
      client.send(drawn, LEVEL / 2)
      await windowOn(client, LEVEL / 2)
      const mark = client.limiter.acquire(10, {}, undefined) as number
      const inFlight = Math.floor(LEVEL / 4)
      expect(client.goes(inFlight)).toBe(true)
      const remaining = Math.floor(LEVEL / 2 + (Date.now() - start) * R) - 10 - inFlight
      client.limiter.settle(10, mark, answer(remaining))
      // Still alone: its share (most of the window's draw was its own) of all that is left, less what
      // is in flight, goes; in a fleet it would keep the level and take two steps above it at most.
      expect(client.goes(Math.floor(0.8 * remaining) - inFlight)).toBe(true)
    })

    it('keeps the level while it stays in the fleet, though a window shows no other draw', async () => {
      const { client } = await firstDecision(LEVEL / 2)
      await windowOn(client, CAPACITY - 10)
      client.send(10, CAPACITY - 10)
      await windowOn(client, CAPACITY - 10)
      // Alone in this window: all it drew is its own 10, and the bucket is back where it was.
      client.send(10, CAPACITY - 10)
      expect(client.goes(CAPACITY - 10 - LEVEL)).toBe(true)
      expect(client.goes(1)).toBe(false)
    })

    it('forgets the fleet once idle for a window: it joins again and may find itself alone', async () => {
      const { client } = await firstDecision(LEVEL / 2)
      await later(1.1)
      client.send(10, LEVEL)
      const start = Date.now()
      await windowOn(client, LEVEL)
      const left = Math.floor(LEVEL + (Date.now() - start) * R) - 10
      client.send(10, left)
      expect(client.goes(left)).toBe(true)
    })
  })

  describe('the level kept', () => {
    it('is eight bulk requests (one per step), two fifths of the bucket at most, or in singles half that, a bulk request and two steps at least: a newcomer draws down to it and no further', async () => {
      const client = newClient()
      client.send(10, CAPACITY - 10)
      // Alone, its half of the bucket above the level: that much goes at once, a unit more waits.
      const credit = (CAPACITY - 10 - LEVEL) / 2
      client.send(Math.floor(credit))
      expect(await client.waitMs(2)).toBeGreaterThan(0)
      const fresh = newClient()
      fresh.send(10, CAPACITY - 10)
      fresh.send(Math.floor(credit) - 1)
      // At most a unit short: it goes within the time the refill takes at a half share.
      expect(await fresh.waitMs(1)).toBeLessThanOrEqual(Math.ceil(2 / R))
    })
  })
})

describe('the policy', () => {
  const START_POLICY = (policy: string) => {
    const limiter = createRateLimiter()
    const mark = limiter.acquire(10, {}, undefined) as number
    return { limiter, mark, policy }
  }

  it('refills the limit per window of w seconds', async () => {
    // 1,000 per 10 s: 0.1 unit per ms. A bucket of 2,000 keeps 800; a newcomer alone has half of the
    // 1,190 above it, then a unit each 20 ms.
    const { limiter, mark } = START_POLICY('1000;w=10;burst=2000')
    limiter.settle(10, mark, {
      status: 201,
      headers: { 'ratelimit-policy': '1000;w=10;burst=2000', 'ratelimit-remaining': '1990' },
    })
    const most = limiter.acquire(595, {}, undefined) as number
    limiter.settle(595, most)
    let wentAt: number | undefined
    void Promise.resolve(limiter.acquire(1, {}, undefined)).then(() => (wentAt = Date.now() - START))
    await vi.advanceTimersByTimeAsync(30)
    expect(wentAt).toBe(20)
  })

  it('holds the burst, or the limit without one', async () => {
    for (const [policy, held] of [
      ['1000;w=1;burst=2000', 2_000],
      ['1000;w=1', 1_000],
    ] as const) {
      vi.setSystemTime(START)
      const limiter = createRateLimiter()
      const mark = limiter.acquire(10, {}, undefined) as number
      limiter.settle(10, mark, {
        status: 201,
        headers: { 'ratelimit-policy': policy, 'ratelimit-remaining': String(held - 10) },
      })
      // Half of what is above the level: min(2/5 of the bucket, 800), or in singles half that (200).
      const level = held === 2_000 ? 800 : 200
      expect(typeof limiter.acquire(Math.floor((held - 10 - level) / 2), {}, undefined)).toBe('number')
      expect(limiter.acquire(5, {}, undefined)).toBeInstanceOf(Promise)
    }
  })

  it('is read leniently: parameters in any order, quoted or not, unknown ones kept, only the first policy', () => {
    expect(
      parseRateLimitPolicy(
        '100;w=5;burst=110;comment="token bucket";category="trigger";cost="bulk";serviceLevel="business"',
      ),
    ).toEqual({
      limit: 100,
      parameters: {
        w: '5',
        burst: '110',
        comment: 'token bucket',
        category: 'trigger',
        cost: 'bulk',
        servicelevel: 'business',
      },
    })
    expect(parseRateLimitPolicy(' 100 ; category=trigger ; W="5";pk=:abc:, 10;w=1')).toEqual({
      limit: 100,
      parameters: { category: 'trigger', w: '5', pk: ':abc:' },
    })
    expect(parseRateLimitPolicy('10;w=1')).toEqual({ limit: 10, parameters: { w: '1' } })
    for (const header of [undefined, '', 'w=1', '0;w=1', '-5;w=1', 'abc;w=1']) {
      expect(parseRateLimitPolicy(header)).toBeUndefined()
    }
  })
})
