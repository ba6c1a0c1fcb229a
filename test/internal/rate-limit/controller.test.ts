import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseRateLimitPolicy } from '../../../src/internal/http/response-headers.js'
import { createRateLimiter } from '../../../src/internal/pipeline/rate-limiter.js'

// The fleet controller, driven by hand on a fake clock: answers carry the bucket's headers as the
// service sends them, and a client's share shows as the pace of its requests. The bucket: 1,000 units
// refilled per second (a unit per ms), 1,000 held; a fleet keeps a quarter of it (250), and the
// window is the time the refill takes to restore that quarter: 250 ms.

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

/**
 * A client's pacer that has sent `sent` units and read its first answer, `remaining` left of the
 * bucket (full before), so that its share is `sent / (1,000 - remaining)`, 1 alone; then, a window
 * later, its first decision from the bucket at the level kept, which adds a step to that.
 */
async function joined(sent: number, remaining: number, policy = POLICY, windowMs = WINDOW_MS) {
  return (await fleetOf([[sent, remaining]], policy, windowMs))[0] as Client
}

type Client = ReturnType<typeof clientOf>

/** Clients that joined together, as `joined` says of one. */
async function fleetOf(
  firstAnswers: [sent: number, remaining: number][],
  policy = POLICY,
  windowMs = WINDOW_MS,
) {
  const clients = firstAnswers.map(([sent, remaining]) => clientOf(sent, remaining, policy))
  await at(windowMs)
  for (const client of clients) client.read((LEVEL_KEPT * windowMs) / WINDOW_MS)
  return clients
}

function clientOf(sent: number, remaining: number, policy: string) {
  const limiter = createRateLimiter()
  let latestMark = limiter.acquire(sent, {}, undefined) as number
  limiter.settle(sent, latestMark, answer(remaining, { policy }))
  /** An answer to the latest request, nothing left in flight. */
  const read = (remaining: number, options: AnswerOptions = {}) =>
    limiter.settle(0, latestMark, answer(remaining, { ...options, policy: options.policy ?? policy }))
  /**
   * How long a request of 100 units waits once a report puts the bucket at the level kept (this
   * client's credit 0): 100 / share ms at a unit per ms. Read within the window of the last
   * decision, so that the report decides nothing.
   */
  const paceMs = async (): Promise<number> => (await pacesOf(client))[0] as number
  /** How long a request of 100 units waits from now, the picture as it is. */
  const waitMs = async (): Promise<number> => (await waitsOf(client.startTurn()))[0] as number
  /** Starts a request of 100 units; its promise says how long it waited, once the clock has moved. */
  const startTurn = (): Promise<number> => {
    const from = Date.now()
    return Promise.resolve(limiter.acquire(100, {}, undefined)).then((mark) => {
      latestMark = mark
      limiter.settle(100, mark)
      return Date.now() - from
    })
  }
  const client = { read, paceMs, waitMs, startTurn }
  return client
}

/** The paces of clients side by side, measured at the same instant (see `paceMs`). */
function pacesOf(...clients: Client[]): Promise<number[]> {
  for (const client of clients) client.read(LEVEL_KEPT)
  return waitsOf(...clients.map((client) => client.startTurn()))
}

/** Moves the clock a millisecond at a time until every turn has come. */
async function waitsOf(...turns: Promise<number>[]): Promise<number[]> {
  const waits: (number | undefined)[] = turns.map(() => undefined)
  turns.forEach((turn, k) => void turn.then((ms) => (waits[k] = ms)))
  await vi.advanceTimersByTimeAsync(0)
  while (waits.includes(undefined)) await vi.advanceTimersByTimeAsync(1)
  return waits as number[]
}

/** When a client made its first decision. */
const JOINED = WINDOW_MS

describe('a newcomer', () => {
  it('is paced from its first answer by its part of what the bucket lacks: alone all of it, among others theirs', async () => {
    // Sent 10 and found 990 left: alone, the whole refill, 100 units in 100 ms.
    // Sent 10 and found 960 left: others drew 30, its share a quarter, and a step: 100 units in 320 ms.
    const [alone, among] = (await fleetOf([
      [10, 990],
      [10, 960],
    ])) as [Client, Client]
    expect(await pacesOf(alone, among)).toEqual([100, 320])
  })

  it('in its first window, takes each answer as others drawing what the bucket lacks beyond its own', async () => {
    const limiter = createRateLimiter()
    const mark = limiter.acquire(10, {}, undefined) as number
    limiter.settle(10, mark, answer(990))
    // Others drew 30 meanwhile: a quarter. Past the window, its decision adds a step: 5/16.
    await at(WINDOW_MS / 2)
    limiter.settle(0, mark, answer(960))
    await at(WINDOW_MS)
    limiter.settle(0, mark, answer(LEVEL_KEPT))
    limiter.settle(0, mark, answer(LEVEL_KEPT))
    const turn = limiter.acquire(100, {}, undefined) as Promise<number>
    let wentAt: number | undefined
    void turn.then(() => (wentAt = Date.now() - START))
    await at(WINDOW_MS + 400)
    expect(wentAt).toBe(WINDOW_MS + 320)
  })

  it('in its first window, keeps no level: alone, it spends what its first answer shows', () => {
    const limiter = createRateLimiter()
    const mark = limiter.acquire(10, {}, undefined) as number
    // A bucket of 100 with 90 left: all 90 are this client's, the quarter a fleet keeps included.
    limiter.settle(10, mark, answer(90, { policy: '100;w=1;burst=100' }))
    expect(limiter.acquire(90, {}, undefined)).toBe(100)
  })

  it('in its first window, sends no more than the first wave at once: others that started with it may not show yet', async () => {
    const limiter = createRateLimiter()
    const mark = limiter.acquire(10, {}, undefined) as number
    // Alone as far as it can tell: 740 above the level kept, but 200 at most.
    limiter.settle(10, mark, answer(990))
    expect(limiter.acquire(100, {}, undefined)).toBe(110)
    expect(limiter.acquire(100, {}, undefined)).toBe(210)
    const third = limiter.acquire(100, {}, undefined)
    expect(third).toBeInstanceOf(Promise)
    let wentAt: number | undefined
    void (third as Promise<number>).then(() => (wentAt = Date.now() - START))
    await at(150)
    expect(wentAt).toBe(100)
  })
})

describe('one decision per window', () => {
  it('when the fleet drew what the refill allows, every share grows by the same step, up to the whole bucket', async () => {
    const [half, alone] = (await fleetOf([
      [10, 980],
      [10, 990],
    ])) as [Client, Client]
    // 1/2 + 1/16, and the whole bucket for the client that had it.
    expect(await pacesOf(half, alone)).toEqual([178, 100])
    await at(JOINED + WINDOW_MS)
    half.read(LEVEL_KEPT)
    expect(await half.paceMs()).toBe(160) // 1/2 + 2/16
  })

  it('steps by the windows of time since its last decision: a client that reads seldom grows as fast', async () => {
    const [half] = (await fleetOf([[10, 980]])) as [Client]
    await at(JOINED + 2 * WINDOW_MS)
    half.read(LEVEL_KEPT)
    expect(await half.paceMs()).toBe(146) // 9/16 + 2/16
  })

  it('decides nothing more before the window has passed', async () => {
    const half = await joined(10, 980)
    await at(JOINED + WINDOW_MS - 1)
    half.read(LEVEL_KEPT)
    expect(await half.paceMs()).toBe(178)
  })

  it('scales the shares by one factor, how far the draw missed the refill and the level kept, after the step: large and small alike', async () => {
    // 1/2 + 1/16 and 1/4 + 1/16.
    const [large, small] = (await fleetOf([
      [10, 980],
      [10, 960],
    ])) as [Client, Client]
    // Over the next window, 250 units refilled and the fleet drew 500: the bucket is empty, and the
    // 250 it could have drawn leaving the level kept are half of what it drew. Both take (share + 1/16) × 1/2.
    await at(JOINED + WINDOW_MS)
    large.read(0)
    small.read(0)
    // (9/16 + 1/16) / 2 = 5/16 and (5/16 + 1/16) / 2 = 3/16.
    expect(await pacesOf(large, small)).toEqual([320, 534])
    // Their ratio went from 2 to 1.8 to 5/3: the equal steps close the gap the factor keeps.
  })

  it('cuts at least as a 429 does when the window ends with the bucket below the level kept', async () => {
    const [half] = (await fleetOf([[10, 980]])) as [Client]
    await at(JOINED + WINDOW_MS)
    // One unit short of the level: the draw missed the refill by next to nothing, but the fleet
    // asks for more than the refill, or the level would hold.
    half.read(LEVEL_KEPT - 1)
    expect(await half.paceMs()).toBe(229) // (9/16 + 1/16) × 0.7
  })

  it('grows a share by at most what a cut takes, however much the bucket has spare', async () => {
    const half = await joined(10, 980)
    await at(JOINED + WINDOW_MS)
    // 400 left of 500 it could have: a factor of 2.5, held to 1 / 0.7.
    half.read(400)
    expect(await half.paceMs()).toBe(112) // (10/16) / 0.7
  })
})

describe('a 429', () => {
  it('cuts the share to 0.7 of it, without Retry-After too', async () => {
    const client = await joined(10, 990)
    await at(JOINED + 300)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(143)
  })

  it("with Retry-After, also pauses every request until then, and the pause's end finds the bucket empty", async () => {
    const client = await joined(10, 990)
    await at(JOINED + 300)
    client.read(0, { status: 429, retryAfter: '1' })
    // 1 s of pause, then 100 units at 0.7 of the refill.
    expect(await client.waitMs()).toBe(1_000 + 143)
  })

  it('cuts at most once per window: a burst of 429s is one cut, and the next window may cut again', async () => {
    const client = await joined(10, 990)
    await at(JOINED + 300)
    client.read(LEVEL_KEPT, { status: 429 })
    await at(JOINED + 310)
    client.read(LEVEL_KEPT, { status: 429 })
    await at(JOINED + 300 + WINDOW_MS - 1)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(143)
    await at(JOINED + 300 + WINDOW_MS + 200)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(205) // 0.49
  })

  it("is the window's decision: it does not cut again right after the window's report", async () => {
    const client = await joined(10, 990)
    await at(JOINED + WINDOW_MS)
    client.read(LEVEL_KEPT)
    client.read(LEVEL_KEPT, { status: 429 })
    expect(await client.paceMs()).toBe(100)
  })
})

describe('the trigger bucket only', () => {
  it("another category's answer moves nothing: not its 429, not its numbers", async () => {
    const client = await joined(10, 990)
    await at(JOINED + 300)
    const global = POLICY.replace('category="trigger"', 'category="global"')
    client.read(0, { status: 429, retryAfter: '5', policy: global })
    client.read(0, { policy: global })
    expect(await client.paceMs()).toBe(100)
  })

  it('a policy without a category is the trigger bucket', async () => {
    const client = await joined(10, 990)
    await at(JOINED + 300)
    client.read(LEVEL_KEPT, { status: 429, policy: '1000;w=1;burst=1000' })
    expect(await client.paceMs()).toBe(143)
  })
})

describe('the policy', () => {
  it('refills the limit per window of w seconds', async () => {
    // 1,000 per 10 s: 100 units take 1 s at the whole refill.
    const [slow] = (await fleetOf([[10, 990]], '1000;w=10;burst=1000', 10 * WINDOW_MS)) as [Client]
    expect(await slow.paceMs()).toBe(1_000)
  })

  it('holds the burst, or the limit without one', async () => {
    // A bucket of 2,000 keeps 500: with 500 left, 100 units wait 100 ms; a bucket of 1,000 (no
    // burst) keeps 250, and they go at once.
    const [large] = (await fleetOf([[10, 1_990]], '1000;w=1;burst=2000', 2 * WINDOW_MS)) as [Client]
    large.read(500)
    expect(await large.waitMs()).toBe(100)
    vi.setSystemTime(START)
    const [plain] = (await fleetOf([[10, 990]], '1000;w=1')) as [Client]
    plain.read(500)
    expect(await plain.waitMs()).toBe(0)
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
