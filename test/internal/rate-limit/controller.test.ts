import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseRateLimitPolicy } from '../../../src/internal/http/response-headers.js'
import { createRateLimiter } from '../../../src/internal/pipeline/rate-limiter.js'

// The fleet controller, driven by hand on a fake clock: a client sends units and reads answers that
// carry the bucket's headers as the service sends them, and its share shows as the pace of its
// requests. The bucket: 1,000 units refilled per second (a unit per ms), 1,000 held. The level a fleet
// keeps is what the refill restores in a window of 250 ms: 250 units, a quarter of the bucket. A
// share grows by a step of 1/16 per window.

const START = Date.parse('2026-03-01T12:00:00.000Z')
const POLICY =
  '1000;w=1;burst=1000;comment="token bucket";category="trigger";cost="single";serviceLevel="free"'
const LEVEL_KEPT = 250
const WINDOW_MS = 250

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

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

/** Moves the fake clock to `ms` after the start. */
async function at(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(START + ms - Date.now())
}

type Client = ReturnType<typeof newClient>

/** A client's pacer, and what a test does with it. */
function newClient(policy = POLICY) {
  const limiter = createRateLimiter()
  let latestMark = 0
  /** Sends `units` at once (it must be their turn) and reads the answer: `remaining` left, or no report. */
  const send = (units: number, remaining?: number, options: AnswerOptions = {}) => {
    const mark = limiter.acquire(units, {}, undefined)
    if (typeof mark !== 'number') throw new Error(`${units} units are not free to go at once`)
    latestMark = mark
    const report = remaining === undefined ? undefined : answer(remaining, { policy, ...options })
    limiter.settle(units, mark, report)
  }
  /** Another answer to the latest request, with nothing in flight: it tells the bucket, it draws nothing. */
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
  /** Its pace: how long 100 units wait once a report puts the bucket at the level kept, `100 / share` ms. */
  const paceMs = () => {
    read(LEVEL_KEPT)
    return waitMs()
  }
  return { limiter, send, read, waitMs, paceMs }
}

/**
 * A client that read a full bucket at first (990 left of its 10 units: alone) and decides a window
 * later, having sent `units` meanwhile, from an answer with `remaining` left: the fleet drew
 * `1,000 - remaining` over the window (its start was full), of which `units` are this client's.
 */
async function decided(units: number, remaining: number, windows = 1): Promise<Client> {
  const client = newClient()
  client.send(10, 990)
  await vi.advanceTimersByTimeAsync(windows * WINDOW_MS)
  client.send(units, remaining)
  return client
}

describe('a newcomer', () => {
  it('takes its part of what the bucket lacks, taken as full before it came: alone all of it, among others theirs', async () => {
    // Sent 10 and found 990 left: alone, all that is above the level kept, then a unit per ms.
    const alone = newClient()
    alone.send(10, 990)
    alone.send(740)
    expect(await alone.waitMs(1)).toBe(1)
    // Sent 10 and found 960 left: others drew 30, its part a quarter: 177.5 units, then 4 ms a unit.
    const among = newClient()
    among.send(10, 960)
    among.send(177)
    expect(await among.waitMs(1)).toBe(2)
  })

  it('lowers that part with each answer before its first decision, never raises it', async () => {
    const client = newClient()
    client.send(10, 990)
    await at(100)
    // 10 of 40 drawn are its own: a quarter; then a report that would make it a half changes nothing.
    client.read(960)
    client.read(980)
    // A quarter of the 730 above the level: 182.5 units, then 4 ms a unit.
    client.send(182)
    expect(await client.waitMs(1)).toBe(2)
  })

  it('sends two bulk requests before its first answer, whatever the server, and waits for that answer', async () => {
    const client = newClient()
    const first = client.limiter.acquire(100, {}, undefined) as number
    expect(client.limiter.acquire(100, {}, undefined)).toBe(200)
    const third = client.limiter.acquire(100, {}, undefined)
    expect(third).toBeInstanceOf(Promise)
    // An answer without a word on the bucket: the server may not limit at all, and the third goes.
    client.limiter.settle(100, first, { status: 201, headers: {} })
    expect(await third).toBe(300)
  })

  it('has no more than one bulk request in flight before its first decision, then as many as its credit holds', async () => {
    const client = newClient()
    client.send(10, 990)
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
    // Its first decision: two go at once.
    const settled = await decided(750, LEVEL_KEPT)
    settled.read(900)
    expect(typeof settled.limiter.acquire(100, {}, undefined)).toBe('number')
    expect(typeof settled.limiter.acquire(100, {}, undefined)).toBe('number')
  })

  it('reads the bucket again a window after its first answer however small its share, unless it owes', async () => {
    // Sent 10, found 250 left: a part of 1/75, held at the smallest share, 1/64. Nothing above the
    // level: 100 units would wait for all its credit can hold (a 64th of the 750 above the level),
    // 750 ms, but the next request goes a window after the answer.
    const small = newClient()
    small.send(10, LEVEL_KEPT)
    expect(await small.waitMs()).toBe(WINDOW_MS)
    // Found 200 left: 50 below the level, its part of that owed first, and the credit to fill.
    const owing = newClient()
    owing.send(10, 200)
    expect(await owing.waitMs()).toBe(800)
  })
})

describe('the credit', () => {
  it('holds no more than its part of the bucket above the level: a quiet spell banks no burst', async () => {
    // 9/16 of the 750 above the level, however long the client was quiet.
    const client = await decided(375, LEVEL_KEPT)
    await vi.advanceTimersByTimeAsync(10_000)
    client.send(421)
    expect(await client.waitMs(1)).toBe(1)
  })
})

describe('a client idle for a window', () => {
  it('joins again: its part from its next answer, one bulk request in flight until it decides', async () => {
    const client = await decided(750, LEVEL_KEPT)
    // Nothing sent for 300 ms, then a request; a second waits for its answer.
    await at(WINDOW_MS + 300)
    const mark = client.limiter.acquire(100, {}, undefined) as number
    let secondAt: number | undefined
    void Promise.resolve(client.limiter.acquire(100, {}, undefined)).then(() => {
      secondAt = Date.now() - START
    })
    await at(WINDOW_MS + 310)
    expect(secondAt).toBeUndefined()
    // 600 left: 400 drawn since the bucket was full, 100 of them its own. A quarter of the 350 above
    // the level is 87.5 units: the second waits 50 ms for the rest, where its whole share of before
    // would have sent it at once.
    client.limiter.settle(100, mark, answer(600))
    await at(WINDOW_MS + 400)
    expect(secondAt).toBe(WINDOW_MS + 310 + 50)
  })
})

describe('one decision per window', () => {
  it('its share becomes its part of what the fleet drew over the window, plus a step', async () => {
    // The fleet drew 750 (from a full bucket to the level): a half is this client's, and a fifth.
    const half = await decided(375, LEVEL_KEPT)
    const fifth = await decided(150, LEVEL_KEPT)
    expect(await half.paceMs()).toBe(178) // 1/2 + 1/16
    expect(await fifth.paceMs()).toBe(381) // 1/5 + 1/16
  })

  it('scales every part by one factor when the fleet drew more than keeps the level, large and small alike', async () => {
    // The fleet drew 1,000 where 750 would have left the level: a factor of 3/4 on both parts.
    const large = await decided(200, 0)
    const small = await decided(100, 0)
    expect(await large.paceMs()).toBe(471) // 1/5 × 3/4 + 1/16
    expect(await small.paceMs()).toBe(728) // 1/10 × 3/4 + 1/16
  })

  it('scales nothing up when the fleet drew less than it could: the equal step is the only growth', async () => {
    // The fleet drew 400 of the 750 it could: this client's quarter of it, and a step.
    const client = await decided(100, 600)
    expect(await client.paceMs()).toBe(320) // 1/4 + 1/16
  })

  it('steps by the windows of time since its last decision: a client that reads seldom grows as fast', async () => {
    const client = await decided(100, 600, 2)
    expect(await client.paceMs()).toBe(267) // 1/4 + 2/16
  })

  it('grows to the whole bucket at most', async () => {
    const alone = await decided(750, LEVEL_KEPT)
    expect(await alone.paceMs()).toBe(100)
  })

  it("counts no draw where the bucket was full: the refill it could not hold is nobody's", async () => {
    // Alone, a second later: a full bucket refilled nothing for most of that second.
    const client = newClient()
    client.send(10, 990)
    await at(1_000)
    client.send(100, 900)
    expect(await client.paceMs()).toBe(100)
  })

  it('decides nothing more before the window has passed, and again once it has', async () => {
    const client = await decided(100, 600)
    await at(2 * WINDOW_MS - 1)
    client.send(50, 0)
    expect(await client.paceMs()).toBe(320)
    // Past the window (the pace above took 320 ms), the next report decides: 150 of the fleet's 400
    // are its own, 3/8, and a step per window of the 569 ms since the last decision.
    client.read(600)
    expect(await client.paceMs()).toBe(194)
  })
})

describe('a 429', () => {
  it('never cuts a share below a 64th: a client keeps reading the bucket', async () => {
    const client = await decided(750, LEVEL_KEPT)
    // Twelve cuts a window apart would leave 0.7 ** 12, less than a 64th.
    for (let cut = 1; cut <= 12; cut++) {
      await at((1 + cut) * WINDOW_MS)
      client.read(LEVEL_KEPT, { status: 429 })
    }
    // 10 units at a 64th of the refill (a larger request would wait for all its credit can hold).
    client.read(LEVEL_KEPT)
    expect(await client.waitMs(10)).toBe(640)
  })

  it('cuts the share to 0.7 of it, without Retry-After too', async () => {
    const client = await decided(750, LEVEL_KEPT)
    await at(2 * WINDOW_MS)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(143)
  })

  it("with Retry-After, also pauses every request until then, and the pause's end finds the bucket empty", async () => {
    const client = await decided(750, LEVEL_KEPT)
    await at(2 * WINDOW_MS)
    client.read(0, { status: 429, retryAfter: '1' })
    // 1 s of pause, then 100 units at 0.7 of the refill.
    expect(await client.waitMs()).toBe(1_000 + 143)
  })

  it('cuts at most once per window: a burst of 429s is one cut, and the next window may cut again', async () => {
    const client = await decided(750, LEVEL_KEPT)
    await at(2 * WINDOW_MS)
    client.read(LEVEL_KEPT, { status: 429 })
    await at(2 * WINDOW_MS + 10)
    client.read(LEVEL_KEPT, { status: 429 })
    await at(3 * WINDOW_MS - 1)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(143)
    await at(4 * WINDOW_MS)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(205) // 0.49
  })

  it("is the window's decision: it does not cut right after the window's report", async () => {
    const client = await decided(750, LEVEL_KEPT)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(100)
  })

  it('cuts a newcomer too, before its first decision', async () => {
    const client = newClient()
    client.send(10, 990)
    await at(50)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(143)
  })
})

describe('the trigger bucket only', () => {
  it("another category's answer moves nothing: not its 429, not its numbers", async () => {
    const client = await decided(750, LEVEL_KEPT)
    await at(2 * WINDOW_MS)
    const global = POLICY.replace('category="trigger"', 'category="global"')
    client.read(0, { status: 429, retryAfter: '5', policy: global })
    client.read(0, { policy: global })
    expect(await client.paceMs()).toBe(100)
  })

  it('a policy without a category is the trigger bucket', async () => {
    const client = await decided(750, LEVEL_KEPT)
    await at(2 * WINDOW_MS)
    client.read(LEVEL_KEPT, { status: 429, policy: '1000;w=1;burst=1000' })
    expect(await client.paceMs()).toBe(143)
  })
})

describe('the policy', () => {
  it('refills the limit per window of w seconds, and keeps what that refill restores in a window', async () => {
    // 1,000 per 10 s: the level kept is 25 units, and a unit takes 10 ms.
    const slow = newClient('1000;w=10;burst=1000')
    slow.send(10, 990)
    slow.send(965)
    expect(await slow.waitMs(1)).toBe(10)
  })

  it('holds the burst, or the limit without one; the level kept is a quarter of it at most', async () => {
    const large = newClient('1000;w=1;burst=2000')
    large.send(10, 1_990)
    large.send(1_740)
    expect(await large.waitMs(1)).toBe(1)
    const plain = newClient('1000;w=1')
    plain.send(10, 990)
    plain.send(740)
    expect(await plain.waitMs(1)).toBe(1)
    // A bucket of 400 keeps 100, less than a window's refill.
    const small = newClient('1000;w=1;burst=400')
    small.send(10, 390)
    small.send(290)
    expect(await small.waitMs(1)).toBe(1)
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
