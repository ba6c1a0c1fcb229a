// The figures of `npm run bench:scale` where several client processes send with the same API key,
// as a serverless function scaled out does: each instance paces and retries as if it were alone, and
// only the server sees them all. Each process is scale-fleet-client.ts; the server is the fake in
// its own process (scale-fake.ts), which counts every answer it gives.
//
// 5. Fleet matrix: on each of the service's plans (the fake's `rateLimit: { plan }`), fleets of 1, 2,
//    4 and 8 processes stream their events through triggerStream at concurrency 4, started together
//    and 250 ms apart. Every process is cold: spawned at its start, it loads the package and sends.
//    Each process sends twice the plan's burst, so that the fleet's run is long against the burst
//    and the time while all run is long against a process's start. Then one fleet whose processes
//    leave and others join mid-run.
// 6. Outage: 8 processes make 50 triggers each while the server answers 503 to everything, then
//    keep calling every 100 ms while it recovers: the attempts the outage drew, and how long after
//    the recovery each process's calls succeed again.
import type { FakePlan } from '../src/testing/index.js'
import { type LineProcess, startFake, startLineProcess } from './harness.js'
import type {
  AppliedAt,
  ClientCounts,
  FakeStats,
  FleetClientConfig,
  FleetStreamReport,
  OutageCallsReport,
  OutageProbeReport,
} from './scale-protocol.js'
import { jainIndex } from './stats.js'

export interface FleetScripts {
  fake: string
  fleetClient: string
}

/** The service's plans: the trigger bucket's rate per second, and what it holds (5 s of it, + 10%). */
export const PLANS: Record<FakePlan, { perSecond: number; burst: number }> = {
  free: { perSecond: 60, burst: 330 },
  pro: { perSecond: 240, burst: 1_320 },
  business: { perSecond: 600, burst: 3_300 },
  enterprise: { perSecond: 6_000, burst: 33_000 },
}
export const PLAN_NAMES = Object.keys(PLANS) as FakePlan[]
/** Between two processes' starts, in the rows started apart. */
const STAGGER_MS = 250
/** Fairness is judged from this long after the last process started, to the first end. */
const SETTLED_MS = 1_000
/** triggerStream's concurrency in each process. */
const STREAM_CONCURRENCY = 4
/** A process's events, in bursts of the plan's bucket: the fleet runs long against the burst. */
const WORK_IN_BURSTS = 2
const OUTAGE = {
  processes: 8,
  callsPerProcess: 50,
  /**
   * Calls in flight per process: an instance handling a burst of work, not one call at a time. With
   * 3 attempts per call spaced by the default backoff (about 0.5 s, then 1 s), 10 at a time puts 80
   * calls, so up to 80 attempts, at the failing server at once and takes about 6 s.
   */
  concurrency: 10,
  probeEveryMs: 100,
  /**
   * How long the processes probe the failing server before it recovers: past the second backoff, so
   * that at the recovery some probes are waiting to retry and others are about to start, as
   * traffic at that moment would be.
   */
  probingBeforeRecoveryMs: 2_000,
}

/** One process of a row: when it is spawned (ms after the row's start) and its events. */
interface Member {
  startMs: number
  events: number
}

/** A row of the matrix: its plan and processes. */
export interface FleetRow {
  /** `<plan> <n> together`, `<plan> <n> apart`, or `<plan> churn`: the name `--row` takes. */
  name: string
  plan: FakePlan
  members: Member[]
  /** Whether Jain's index is judged: equal work, large against the burst, all running at once. */
  judged: boolean
}

/**
 * Events per process: twice the plan's burst, in whole chunks of 100. Except on enterprise, whose
 * rate this 2-core machine cannot serve: its processes share twice the burst among the largest
 * fleet, so that its rows end in minutes; they are bound by the machine, not by the bucket.
 */
const workOf = (plan: FakePlan) =>
  Math.ceil((WORK_IN_BURSTS * PLANS[plan].burst) / (plan === BOUND_BY_MACHINE ? 8 : 1) / 100) * 100
/** The plan whose rate the machine cannot serve: its rows' Jain's index is shown, not judged. */
const BOUND_BY_MACHINE: FakePlan = 'enterprise'

/** The matrix: per plan, 1 process, then 2, 4 and 8 started together and apart; the churn fleet. */
export function matrixRows(): FleetRow[] {
  const rows: FleetRow[] = []
  for (const plan of PLAN_NAMES) {
    const events = workOf(plan)
    rows.push({ name: `${plan} 1`, plan, members: [{ startMs: 0, events }], judged: false })
    for (const processes of [2, 4, 8]) {
      for (const [start, stagger] of [
        ['together', 0],
        ['apart', STAGGER_MS],
      ] as const) {
        const members = Array.from({ length: processes }, (_, k) => ({ startMs: k * stagger, events }))
        rows.push({
          name: `${plan} ${processes} ${start}`,
          plan,
          members,
          judged: plan !== BOUND_BY_MACHINE,
        })
      }
    }
  }
  // Churn, on pro: four start together; two of them have half the work and leave; two join later,
  // one when the first leave and one a burst's refill after.
  const events = workOf('pro')
  const leaveMs = ((4 * events) / 2 / PLANS.pro.perSecond) * 1000 * 0.6
  rows.push({
    name: 'pro churn',
    plan: 'pro',
    members: [
      { startMs: 0, events },
      { startMs: 0, events },
      { startMs: 0, events: events / 2 },
      { startMs: 0, events: events / 2 },
      { startMs: Math.round(leaveMs), events },
      { startMs: Math.round(leaveMs + (PLANS.pro.burst / PLANS.pro.perSecond) * 1000), events },
    ],
    judged: false,
  })
  return rows
}

export interface FleetFigure {
  row: FleetRow
  /** From the first process's first request to the last one's end. */
  seconds: number
  /** Each process: spawned, started sending (loaded), ended; ms after the row's start. */
  processes: { spawnedAt: number; startedAt: number; endedAt: number }[]
  /** What the fake applied, and every answer it gave by status. */
  server: FakeStats
  /** The processes' own counts, summed. */
  clients: ClientCounts & { chunks: number; failedChunks: number; chunkErrors: string[] }
  fairness: Fairness | undefined
}

/**
 * How evenly the processes shared the bucket while all of them ran: from `SETTLED_MS` after the
 * last one started sending to the first end, the events of each that the service applied in that
 * span, each when the fake took it (a chunk sent as single triggers is taken over seconds).
 */
export interface Fairness {
  /** Jain's index over the processes' events in the span: 1 when equal, 1/n when one takes all. */
  jain: number
  /** Each process's events in the span over the mean, in the order they started. */
  ofMean: number[]
  /** The span, in seconds; not positive when a process ended before the last had settled in. */
  spanSeconds: number
}

function fairnessOf(
  reports: FleetStreamReport[],
  members: { first: number }[],
  appliedAt: AppliedAt,
): Fairness {
  const from = Math.max(...reports.map((report) => report.startedAt)) + SETTLED_MS
  const to = Math.min(...reports.map((report) => report.endedAt))
  const applied = members.map(() => 0)
  for (const [i, at] of appliedAt) {
    if (at <= from || at > to) continue
    const k = members.findLastIndex((member) => member.first <= i)
    applied[k] = (applied[k] ?? 0) + 1
  }
  const mean = sum(applied, (x) => x) / applied.length
  return {
    jain: to > from ? jainIndex(applied) : Number.NaN,
    ofMean: applied.map((events) => events / mean),
    spanSeconds: (to - from) / 1000,
  }
}

export interface OutageFigure {
  processes: number
  callsPerProcess: number
  concurrency: number
  /** What the fake answered while the calls ran: 503 to every attempt. */
  server: FakeStats
  /** The processes' own counts for the calls, summed. */
  clients: ClientCounts & { calls: number; failures: number }
  /** Per process: its first success after the recovery, in ms after it; null if none within a minute. */
  recoveryMs: (number | null)[]
  /** Probes started by the processes in all, before and after the recovery. */
  probes: number
}

function startClients(script: string, configs: FleetClientConfig[]): Promise<LineProcess[]> {
  return Promise.all(
    configs.map(async (config) => {
      const client = startLineProcess(script, [JSON.stringify(config)])
      await client.next<{ ready: true }>()
      return client
    }),
  )
}

function allSay<Line>(clients: LineProcess[], command?: string): Promise<Line[]> {
  return Promise.all(
    clients.map((client) => {
      if (command !== undefined) client.send(command)
      return client.next<Line>()
    }),
  )
}

function sum<Item>(items: Item[], pick: (item: Item) => number): number {
  return items.reduce((total, item) => total + pick(item), 0)
}

function counts(reports: ClientCounts[]): ClientCounts {
  return {
    attempts: sum(reports, (report) => report.attempts),
    status429: sum(reports, (report) => report.status429),
    retries: sum(reports, (report) => report.retries),
  }
}

/** Each member with the first event it sends: the events are numbered on from the earlier members'. */
function numbered(members: Member[]): (Member & { first: number })[] {
  let next = 0
  return members.map((member) => {
    const first = next
    next += member.events
    return { ...member, first }
  })
}

async function fleetOf(scripts: FleetScripts, row: FleetRow): Promise<FleetFigure> {
  const fake = await startFake(scripts.fake, { rateLimit: { plan: row.plan } })
  try {
    const rowStart = Date.now()
    const members = numbered(row.members)
    const runs = members.map(async ({ startMs, events, first }) => {
      await new Promise((resolve) => setTimeout(resolve, rowStart + startMs - Date.now()))
      const spawnedAt = Date.now()
      const config: FleetClientConfig = {
        task: 'stream',
        port: fake.port,
        first,
        events,
        concurrency: STREAM_CONCURRENCY,
      }
      const client = startLineProcess(scripts.fleetClient, [JSON.stringify(config)])
      const report = await client.next<FleetStreamReport>()
      await client.exited
      return { spawnedAt, report }
    })
    const done = await Promise.all(runs)
    const reports = done.map(({ report }) => report)
    const startedAt = Math.min(...reports.map((report) => report.startedAt))
    const endedAt = Math.max(...reports.map((report) => report.endedAt))
    return {
      row,
      seconds: (endedAt - startedAt) / 1000,
      processes: done.map(({ spawnedAt, report }) => ({
        spawnedAt: spawnedAt - rowStart,
        startedAt: report.startedAt - rowStart,
        endedAt: report.endedAt - rowStart,
      })),
      server: await fake.stats(),
      clients: {
        ...counts(reports),
        chunks: sum(reports, (report) => report.chunks),
        failedChunks: sum(reports, (report) => report.failedChunks),
        chunkErrors: [...new Set(reports.flatMap((report) => report.chunkErrors))],
      },
      // Fairness while all run needs them all running at once with equal work: not the churn fleet.
      fairness:
        row.members.length > 1 && row.members.every((member) => member.events === row.members[0]?.events)
          ? fairnessOf(reports, members, await fake.applied())
          : undefined,
    }
  } finally {
    fake.stop()
  }
}

/** Runs the rows given, one after another, logging each as it ends. */
export async function fleet(
  scripts: FleetScripts,
  rows: FleetRow[],
  onRow: (figure: FleetFigure) => void = () => {},
): Promise<FleetFigure[]> {
  const figures: FleetFigure[] = []
  for (const row of rows) {
    const figure = await fleetOf(scripts, row)
    onRow(figure)
    figures.push(figure)
  }
  return figures
}

/**
 * The rows' run time, estimated before running them: each row takes its events beyond the burst at
 * the plan's rate (the ideal), plus a few seconds to start; a plan this machine cannot serve takes
 * longer, which this does not know.
 */
export function estimateSeconds(rows: FleetRow[]): number {
  return sum(rows, (row) => {
    const { perSecond, burst } = PLANS[row.plan]
    const events = sum(row.members, (member) => member.events)
    return Math.max(0, events - burst) / perSecond + 3
  })
}

export async function outage(scripts: FleetScripts): Promise<OutageFigure> {
  const fake = await startFake(scripts.fake, {})
  try {
    await fake.down()
    const { processes, callsPerProcess, concurrency, probeEveryMs } = OUTAGE
    const config: FleetClientConfig = {
      task: 'outage',
      port: fake.port,
      calls: callsPerProcess,
      concurrency,
      probeEveryMs,
    }
    const clients = await startClients(
      scripts.fleetClient,
      Array.from({ length: processes }, () => config),
    )
    const calls = await allSay<OutageCallsReport>(clients, 'go')
    // Read before any probe: every answer so far is an attempt of the calls.
    const server = await fake.stats()
    const probing = allSay<OutageProbeReport>(clients, 'probe')
    await new Promise((resolve) => setTimeout(resolve, OUTAGE.probingBeforeRecoveryMs))
    const recoveredAt = await fake.up()
    const probes = await probing
    await Promise.all(clients.map((client) => client.exited))
    return {
      processes,
      callsPerProcess,
      concurrency,
      server,
      clients: {
        ...counts(calls),
        calls: sum(calls, (report) => report.calls),
        failures: sum(calls, (report) => report.failures),
      },
      recoveryMs: probes.map(({ firstSuccessAt }) =>
        firstSuccessAt === null ? null : firstSuccessAt - recoveredAt,
      ),
      probes: sum(probes, (report) => report.probes),
    }
  } finally {
    fake.stop()
  }
}

type Row = [figure: string, measured: string, target: string, result: 'info']

const thousands = (n: number) => n.toLocaleString('en')
const fixed = (n: number, digits: number) => n.toFixed(digits)

/** Answers of a status class: `2` for 2xx. */
function answersOf(stats: FakeStats, statusClass: string): number {
  return sum(
    Object.entries(stats.statuses).filter(([status]) => status.startsWith(statusClass)),
    ([, count]) => count,
  )
}

/**
 * The ideal is the bucket's own pace: every event beyond the burst, which is there at the start, at
 * the plan's rate (a bulk request of 100 events costs 100 units, so units = events).
 */
export function idealSeconds(figure: FleetFigure): number {
  const { perSecond, burst } = PLANS[figure.row.plan]
  const events = sum(figure.row.members, (member) => member.events)
  return Math.max(0, events - burst) / perSecond
}

/**
 * Whether the bucket sets the row's pace: work within the burst, or beyond it by less than a second
 * of refill, takes the time the machine takes (a ratio to an ideal of a few milliseconds says nothing).
 */
function bucketPaced(figure: FleetFigure): boolean {
  return idealSeconds(figure) >= 1
}

/** What the issue asks of a row, and whether the row met it. */
export function verdicts(figure: FleetFigure) {
  const { server, fairness, row } = figure
  const requests = sum(Object.values(server.statuses), (count) => count)
  const status429 = server.statuses['429'] ?? 0
  const events = sum(row.members, (member) => member.events)
  const allowed429 = Math.max(0.02 * requests, row.members.length)
  const alone = row.members.length === 1
  return {
    requests,
    status429,
    allowed429,
    timeOverIdeal: figure.seconds / idealSeconds(figure),
    appliedOnce: server.distinctEvents === events && server.duplicates === 0,
    ok429: alone ? status429 === 0 : status429 <= allowed429,
    jainOk: !row.judged || (fairness !== undefined && fairness.spanSeconds > 0 && fairness.jain >= 0.95),
  }
}

/** One line per row: what it measured, for the table and for the log as each row ends. */
export function fleetLine(figure: FleetFigure): string {
  const { server, clients, fairness, row } = figure
  const v = verdicts(figure)
  const others = v.requests - v.status429 - answersOf(server, '2')
  const events = sum(row.members, (member) => member.events)
  const percent = (ratio: number) => `${ratio >= 1 ? '+' : '−'}${fixed(Math.abs(100 * (ratio - 1)), 0)}%`
  const started = figure.processes.map((process) => fixed(process.startedAt / 1000, 1)).join(' ')
  const ended = figure.processes.map((process) => fixed(process.endedAt / 1000, 1)).join(' ')
  return [
    `${v.status429} 429s of ${thousands(v.requests)} requests (${fixed((100 * v.status429) / v.requests, 1)}%, allowed ${row.members.length === 1 ? 0 : fixed(v.allowed429, 1)})${others > 0 ? `, ${others} other non-2xx` : ''}`,
    bucketPaced(figure)
      ? `${fixed(figure.seconds, 1)} s, ${fixed(v.timeOverIdeal, 3)}× ideal ${fixed(idealSeconds(figure), 1)} s`
      : `${fixed(figure.seconds, 1)} s (within a second of the burst: the bucket sets no pace), ${thousands(Math.round(events / figure.seconds))} events/s`,
    `applied ${thousands(server.distinctEvents)} of ${thousands(events)} events, ${server.duplicates} twice; ${clients.failedChunks} of ${clients.chunks} chunks failed${clients.chunkErrors.length > 0 ? ` (${clients.chunkErrors.join('; ')})` : ''}; ${clients.retries} retries`,
    ...(fairness === undefined
      ? []
      : [
          `Jain's index while all run ${Number.isNaN(fairness.jain) ? '— (a process ended before the last had settled in)' : fixed(fairness.jain, 3)} over ${fixed(fairness.spanSeconds, 1)} s, each against the mean ${fairness.ofMean.map(percent).join(' ')}`,
        ]),
    `started at ${started} s, ended at ${ended} s`,
  ].join('; ')
}

export function fleetRows(figures: FleetFigure[]): Row[] {
  return figures.map((figure) => {
    const { perSecond, burst } = PLANS[figure.row.plan]
    const v = verdicts(figure)
    const met = v.ok429 && v.appliedOnce && v.jainOk ? 'met' : 'missed'
    return [
      `5. ${figure.row.name} (${figure.row.plan}: ${thousands(perSecond)}/s, burst ${thousands(burst)}), ${figure.row.members.map((member) => thousands(member.events)).join('/')} events per process, cold`,
      fleetLine(figure),
      `429s ≤ max(2%, 1 per process), 0 alone; every event once${figure.row.judged ? '; Jain ≥ 0.95' : ''}: ${met}; time ≤ 1.15× ideal (1.05× alone) where the machine serves the rate${bucketPaced(figure) ? `: ${fixed(v.timeOverIdeal, 2)}×` : ''}`,
      'info',
    ]
  })
}

export function outageRows(figure: OutageFigure): Row[] {
  const { server, clients } = figure
  const attempts = sum(Object.values(server.statuses), (count) => count)
  const recovered = figure.recoveryMs.filter((ms): ms is number => ms !== null).sort((a, b) => a - b)
  const missing = figure.recoveryMs.length - recovered.length
  return [
    [
      `6. outage: ${figure.processes} processes × ${figure.callsPerProcess} triggers (${figure.concurrency} at a time each), every request answered 503, then recovery`,
      [
        `server: ${thousands(attempts)} attempts for ${thousands(clients.calls)} calls (${fixed(attempts / clients.calls, 2)}×), ${thousands(server.statuses['503'] ?? 0)} of them 503`,
        `clients: ${thousands(clients.attempts)} attempts, ${thousands(clients.retries)} retries, ${clients.failures} calls failed`,
        `first success after the recovery, per process: max ${recovered.length > 0 ? `${Math.max(...recovered)} ms` : '—'} (${recovered.join(', ')} ms${missing > 0 ? `; ${missing} with none within a minute` : ''}); ${figure.probes} probes, one every ${OUTAGE.probeEveryMs} ms per process from ${OUTAGE.probingBeforeRecoveryMs} ms before the recovery`,
      ].join('; '),
      '—',
      'info',
    ],
  ]
}
