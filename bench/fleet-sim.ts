// The fleet controller (src/internal/pipeline/rate-limiter.ts) in a simulation: clients that share
// one token bucket, on a virtual clock, in a second or two instead of the minutes `npm run
// bench:scale` takes, and for fleets larger than this machine runs as processes. A tool for working
// on the controller, not a figure with a target: the figures are bench:scale's, against the fake in
// processes of their own.
//
//   npx tsx bench/fleet-sim.ts <free|pro|business|enterprise|all> [seed]
//
// Each client streams chunks of 100 events, 4 at a time, through a pacer of its own, as triggerStream
// sends them: a bulk request of 100 units, or 100 single triggers where the pacer finds bulk requests
// too coarse for the bucket; a request takes 1 to 9 ms each way, one in twenty 20 to 60 ms; a 429 is
// retried after its pacer's pause and 100 ms. The bucket is the plan's, with the service's headers.
// Fairness counts each client's units when the bucket took them, as bench:scale counts events when
// the fake applied them.
import { createRateLimiter } from '../src/internal/pipeline/rate-limiter.js'
import { jainIndex } from './stats.js'

let now = Date.parse('2026-03-01T12:00:00.000Z')
interface Timer {
  at: number
  order: number
  run: () => void
  cleared: boolean
}
let order = 0
let timers: Timer[] = []
// The pacer reads the time with Date.now and waits with setTimeout: both run on the virtual clock.
Date.now = () => now
const virtualSetTimeout = (run: () => void, ms = 0): Timer => {
  const timer = { at: now + Math.max(0, ms), order: order++, run, cleared: false }
  timers.push(timer)
  return timer
}
const virtualClearTimeout = (timer: Timer | undefined) => {
  if (timer) timer.cleared = true
}
Object.assign(globalThis, { setTimeout: virtualSetTimeout, clearTimeout: virtualClearTimeout })
const { setImmediate } = await import('node:timers')
const settleMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve))
const sleep = (ms: number) => new Promise<void>((resolve) => virtualSetTimeout(resolve, ms))

/** Runs timers in time order, letting promises settle after each, until `done`. */
async function runUntil(done: () => boolean): Promise<void> {
  await settleMicrotasks()
  while (!done()) {
    timers = timers.filter((timer) => !timer.cleared)
    const next = timers.reduce<Timer | undefined>(
      (first, timer) =>
        first === undefined || timer.at < first.at || (timer.at === first.at && timer.order < first.order)
          ? timer
          : first,
      undefined,
    )
    if (next === undefined) throw new Error('every client waits and no timer is set')
    timers.splice(timers.indexOf(next), 1)
    now = Math.max(now, next.at)
    next.run()
    await settleMicrotasks()
  }
}

const PLANS = { free: 60, pro: 240, business: 600, enterprise: 6_000 } as const
type Plan = keyof typeof PLANS
const planArg = (process.argv[2] ?? 'pro') as Plan
let seed = Number(process.argv[3] ?? 1)
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}
const oneWayMs = () => (random() < 0.05 ? 20 + random() * 40 : 1 + random() * 8)

let PER_SECOND = 240
let BURST = 1_320
let POLICY = ''
function usePlan(plan: Plan) {
  PER_SECOND = PLANS[plan]
  BURST = Math.floor(PER_SECOND * 5 * 1.1)
  POLICY = `${PER_SECOND * 5};w=5;burst=${BURST};comment="token bucket";category="trigger";cost="bulk";serviceLevel="${plan}"`
}

function newBucket() {
  let tokens = BURST
  let updatedAt = now
  const statuses = { 201: 0, 429: 0 }
  const take = (cost: number) => {
    tokens = Math.min(BURST, tokens + ((now - updatedAt) * PER_SECOND) / 1000)
    updatedAt = now
    const allowed = tokens >= cost
    if (allowed) tokens -= cost
    statuses[allowed ? 201 : 429]++
    const headers: Record<string, string> = {
      'ratelimit-remaining': String(Math.floor(tokens)),
      'ratelimit-policy': POLICY,
    }
    if (!allowed) headers['retry-after'] = String(Math.ceil((cost - tokens) / PER_SECOND))
    return { status: allowed ? 201 : 429, headers }
  }
  return { take, statuses }
}

interface Scenario {
  name: string
  clients: number
  /** Chunks of 100 units per client. */
  chunks: number
  staggerMs: number
  /** Chunks sent in a burst before an idle spell of 300 to 1,800 ms; none when undefined. */
  burst?: number
}

async function run({ clients, chunks, staggerMs, burst }: Scenario) {
  const bucket = newBucket()
  const startedAt = now
  const reports: { start: number; end: number; taken: [at: number, units: number][] }[] = []
  let running = clients
  for (let c = 0; c < clients; c++) {
    const pacer = createRateLimiter()
    const report = { start: 0, end: 0, taken: [] as [number, number][] }
    reports.push(report)
    let left = chunks
    /** One request of `cost` units, sent again after a 429 until it is applied or `attempts` are spent. */
    const request = async (cost: number, attempts = Infinity) => {
      for (let attempt = 1; ; attempt++) {
        const mark = await pacer.acquire(cost, {}, undefined)
        await sleep(oneWayMs())
        const answer = bucket.take(cost)
        if (answer.status === 201) report.taken.push([now, cost])
        if (process.env.TRACE)
          console.log(
            ((now - startedAt) / 1000).toFixed(2),
            c,
            cost,
            answer.status,
            answer.headers['ratelimit-remaining'],
          )
        await sleep(oneWayMs())
        pacer.settle(cost, mark, answer)
        if (answer.status === 201) return
        if (attempt >= attempts) throw new Error('refused for the rate to the end')
        await sleep(100)
      }
    }
    // As a stream sends a chunk: until an answer describes the bucket, one bulk request alone (one
    // event at a time if it is refused for the rate to the end); then one bulk request, or where bulk
    // requests are too coarse for the bucket, 100 single triggers (the first alone).
    let first: Promise<void> | undefined
    const sendChunk = async () => {
      if (pacer.coarse(100) === undefined && first === undefined) {
        first = request(100, 3).catch(async () => {
          await request(1)
          await Promise.all(Array.from({ length: 99 }, () => request(1)))
        })
        return first
      }
      await first
      if (!pacer.coarse(100)) return request(100)
      await request(1)
      await Promise.all(Array.from({ length: 99 }, () => request(1)))
    }
    const worker = async (quota: { left: number }) => {
      while (quota.left > 0) {
        quota.left--
        await sendChunk()
      }
    }
    void (async () => {
      await sleep(c * staggerMs)
      report.start = now
      while (left > 0) {
        const quota = { left: Math.min(left, burst ?? left) }
        left -= quota.left
        await Promise.all(Array.from({ length: 4 }, () => worker(quota)))
        if (left > 0 && burst !== undefined) await sleep(300 + random() * 1_500)
      }
      report.end = now
      running--
    })()
  }
  await runUntil(() => running === 0)
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)
  const lastStart = Math.max(...reports.map((report) => report.start))
  const firstEnd = Math.min(...reports.map((report) => report.end))
  const from = lastStart + 1_000
  const rates = reports.map((report) =>
    sum(report.taken.filter(([at]) => at > from && at <= firstEnd).map(([, units]) => units)),
  )
  const requests = bucket.statuses[201] + bucket.statuses[429]
  const idealMs = ((clients * chunks * 100 - BURST) / PER_SECOND) * 1000
  const mean = sum(rates) / rates.length
  return {
    timeOverIdeal: (now - startedAt) / idealMs,
    refused: bucket.statuses[429] / requests,
    refusedCount: bucket.statuses[429],
    jain: jainIndex(rates),
    spread: [Math.min(...rates) / mean - 1, Math.max(...rates) / mean - 1],
  }
}

const plans = planArg === ('all' as Plan) ? (Object.keys(PLANS) as Plan[]) : [planArg]
const percent = (ratio: number) => `${(100 * ratio).toFixed(1)}%`
for (const plan of plans) {
  usePlan(plan)
  const chunks = Math.ceil((2 * BURST) / 100)
  const scenarios: Scenario[] = [1, 2, 4, 8].flatMap((clients) =>
    [0, 250].map((staggerMs) => ({
      name: `${plan} ${clients}${staggerMs ? ' apart' : ''}`,
      clients,
      chunks,
      staggerMs,
    })),
  )
  scenarios.push({ name: `${plan} 16`, clients: 16, chunks, staggerMs: 0 })
  for (const scenario of scenarios.filter((one) => !process.env.ONLY || one.name === process.env.ONLY)) {
    const { timeOverIdeal, refused, refusedCount, jain, spread } = await run(scenario)
    const [low, high] = spread.map((ratio) => `${ratio >= 0 ? '+' : '−'}${Math.abs(100 * ratio).toFixed(0)}%`)
    console.log(
      `${scenario.name.padEnd(18)} ${timeOverIdeal.toFixed(3)}× ideal, ${String(refusedCount).padStart(4)} ${percent(refused).padStart(6)} refused, Jain ${jain.toFixed(3)}, ${low} to ${high}`,
    )
    now += 60_000
  }
}
