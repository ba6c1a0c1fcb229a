// The figures of `npm run bench:scale` where several client processes send with the same API key,
// as a serverless function scaled out does: each instance paces and retries as if it were alone, and
// only the server sees them all. Each process is scale-fleet-client.ts; the server is the fake in
// its own process (scale-fake.ts), which counts every answer it gives.
//
// 5. Fleet: N processes (1, 4, 8) stream their share of the events through triggerStream at
//    concurrency 4 against the fake's bucket (the pacing figure's: 2,000 units/s, burst 2,200); the
//    8 once started together and once 250 ms apart, with Jain's fairness index over their throughput.
// 6. Outage: 8 processes make 50 triggers each while the server answers 503 to everything, then
//    keep calling every 100 ms while it recovers: the attempts the outage drew, and how long after
//    the recovery each process's calls succeed again.
import type { FakeTokenBucket } from '../src/testing/index.js'
import { type LineProcess, startFake, startLineProcess } from './harness.js'
import type {
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

/** Events in all, split evenly; 8 processes send twice as many, so that the run is not over in the burst. */
const FLEETS = [
  { processes: 1, events: 20_000, staggerMs: 0 },
  { processes: 4, events: 20_000, staggerMs: 0 },
  { processes: 8, events: 40_000, staggerMs: 0 },
  { processes: 8, events: 40_000, staggerMs: 250 },
]
/** The last process to start is judged on its throughput from this long after its start. */
const JOINER_SETTLED_MS = 3_000
/** triggerStream's concurrency in each process, as in the pacing figure. */
const STREAM_CONCURRENCY = 4
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

export interface FleetFigure {
  processes: number
  events: number
  /** Between two processes' starts. */
  staggerMs: number
  /** From the first process's start to the last one's end. */
  seconds: number
  /** Each process's own time: how evenly the bucket was shared. */
  processSeconds: number[]
  /** What the fake applied, and every answer it gave by status. */
  server: FakeStats
  /** The processes' own counts, summed. */
  clients: ClientCounts & { chunks: number; failedChunks: number }
  fairness: Fairness
}

/**
 * How evenly the processes shared the bucket while all of them ran: from the last start to the
 * first end. Started together with equal work, a process's throughput is its events over its own
 * time; started apart, the events it had applied within that span over the span.
 */
export interface Fairness {
  /** Jain's index over the processes' throughput: 1 when equal, 1/n when one takes all. */
  jain: number
  /** Each process's throughput over the mean, in the order they started. */
  ofMean: number[]
  /** The last to start: its throughput from `JOINER_SETTLED_MS` after its start to the first end, over the mean's. */
  lastJoiner: number | undefined
}

function fairnessOf(reports: FleetStreamReport[], staggered: boolean): Fairness {
  const appliedIn = (report: FleetStreamReport, from: number, to: number) =>
    sum(
      report.applied.filter(([at]) => at > from && at <= to),
      ([, events]) => events,
    )
  const lastStart = Math.max(...reports.map((report) => report.startedAt))
  const firstEnd = Math.min(...reports.map((report) => report.endedAt))
  const rates = staggered
    ? reports.map((report) => appliedIn(report, lastStart, firstEnd) / (firstEnd - lastStart))
    : reports.map(
        (report) => sum(report.applied, ([, events]) => events) / (report.endedAt - report.startedAt),
      )
  const mean = sum(rates, (x) => x) / rates.length
  const settledFrom = lastStart + JOINER_SETTLED_MS
  const last = reports.find((report) => report.startedAt === lastStart)
  const lastJoiner =
    staggered && last !== undefined && settledFrom < firstEnd
      ? appliedIn(last, settledFrom, firstEnd) /
        (sum(reports, (report) => appliedIn(report, settledFrom, firstEnd)) / reports.length)
      : undefined
  return { jain: jainIndex(rates), ofMean: rates.map((rate) => rate / mean), lastJoiner }
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

async function fleetOf(
  scripts: FleetScripts,
  bucket: FakeTokenBucket,
  { processes, events, staggerMs }: (typeof FLEETS)[number],
): Promise<FleetFigure> {
  const fake = await startFake(scripts.fake, { rateLimit: bucket })
  try {
    const share = events / processes
    const clients = await startClients(
      scripts.fleetClient,
      Array.from({ length: processes }, (_, k) => ({
        task: 'stream',
        port: fake.port,
        first: k * share,
        events: share,
        concurrency: STREAM_CONCURRENCY,
      })),
    )
    // Every process loaded before any sends: the fleet starts together, or `staggerMs` apart.
    const reports = await Promise.all(
      clients.map(async (client, k) => {
        await new Promise((resolve) => setTimeout(resolve, k * staggerMs))
        client.send('go')
        return client.next<FleetStreamReport>()
      }),
    )
    await Promise.all(clients.map((client) => client.exited))
    const startedAt = Math.min(...reports.map((report) => report.startedAt))
    const endedAt = Math.max(...reports.map((report) => report.endedAt))
    return {
      processes,
      events,
      staggerMs,
      seconds: (endedAt - startedAt) / 1000,
      processSeconds: reports.map((report) => (report.endedAt - report.startedAt) / 1000),
      server: await fake.stats(),
      clients: {
        ...counts(reports),
        chunks: sum(reports, (report) => report.chunks),
        failedChunks: sum(reports, (report) => report.failedChunks),
      },
      fairness: fairnessOf(reports, staggerMs > 0),
    }
  } finally {
    fake.stop()
  }
}

export async function fleet(scripts: FleetScripts, bucket: FakeTokenBucket): Promise<FleetFigure[]> {
  const figures: FleetFigure[] = []
  for (const fleet of FLEETS) figures.push(await fleetOf(scripts, bucket, fleet))
  return figures
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
 * The ideal is the bucket's own pace: every unit beyond the burst, which is there at the start, at
 * `perSecond` (a bulk request of 100 events costs 100 units, so units = events). `events / perSecond`,
 * the pacing figure's ideal, is shown beside it: at 20,000 events the burst is 11% of the send.
 */
export function fleetRows(figures: FleetFigure[], bucket: FakeTokenBucket): Row[] {
  const burst = bucket.burst ?? bucket.perSecond
  return figures.map((figure) => {
    const { server, clients } = figure
    const ideal = (figure.events - burst) / bucket.perSecond
    const plain = figure.events / bucket.perSecond
    const requests = sum(Object.values(server.statuses), (count) => count)
    const status429 = server.statuses['429'] ?? 0
    const others = requests - status429 - answersOf(server, '2')
    const slowest = Math.max(...figure.processSeconds)
    const fastest = Math.min(...figure.processSeconds)
    const { fairness } = figure
    const percent = (ratio: number) => `${ratio >= 1 ? '+' : '−'}${fixed(Math.abs(100 * (ratio - 1)), 0)}%`
    return [
      `5. fleet of ${figure.processes}, same key, triggerStream at concurrency ${STREAM_CONCURRENCY} each, ${thousands(figure.events)} events in all${figure.staggerMs > 0 ? `, started ${figure.staggerMs} ms apart` : ', started together'}`,
      [
        `${fixed(figure.seconds, 1)} s: ${fixed(figure.seconds / ideal, 3)}× ideal ${fixed(ideal, 1)} s ((${thousands(figure.events)} − ${thousands(burst)} burst) units ÷ ${thousands(bucket.perSecond)}/s), ${fixed(figure.seconds / plain, 3)}× ${plain} s (units ÷ ${thousands(bucket.perSecond)}/s); processes ${fixed(fastest, 1)} to ${fixed(slowest, 1)} s`,
        `server: ${thousands(status429)} 429s of ${thousands(requests)} requests (${fixed((100 * status429) / requests, 1)}%), ${thousands(answersOf(server, '2'))} 2xx${others > 0 ? `, ${others} other` : ''}`,
        `applied ${thousands(server.distinctEvents)} of ${thousands(figure.events)} events, ${server.duplicates} twice; ${clients.failedChunks} of ${clients.chunks} chunks failed`,
        `clients: ${thousands(clients.retries)} retries, ${thousands(clients.attempts)} attempts, ${thousands(clients.status429)} 429s`,
        ...(figure.processes > 1
          ? [
              `fairness ${figure.staggerMs > 0 ? 'while all run' : 'over each process’s time'}: Jain's index ${fixed(fairness.jain, 3)}, each process against the mean ${fairness.ofMean.map(percent).join(' ')}${fairness.lastJoiner === undefined ? '' : `; the last to start, from ${JOINER_SETTLED_MS / 1000} s after its start: ${percent(fairness.lastJoiner)} of its fair share`}`,
            ]
          : []),
      ].join('; '),
      '—',
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
