// One instance of a scaled-out function for the fleet and outage figures of `npm run bench:scale`:
// several of these run at once against one server with the same API key, each with a client of its
// own and the default options (retries, pacing), as each instance of a serverless function would.
// Only the logger is set, to count attempts, 429s and retries from the client's own log lines.
//
// A stream task starts sending as soon as it is loaded, as a cold serverless instance does: the
// fleet is spawned process by process at the times each should start. The outage task prints
// `{ "ready": true }` once loaded and waits for `go` on stdin, so that its processes start together,
// then waits for `probe` between its two phases, so that the server counts the calls' attempts alone.
import { createInterface } from 'node:readline'
import { BulkTriggerError, type Logger, NotificationClient } from '../src/index.js'
import { API_KEY } from './fixtures.js'
import {
  type ClientCounts,
  type FleetClientConfig,
  type FleetStreamReport,
  type OutageCallsReport,
  type OutageProbeReport,
  scaleEvent,
} from './scale-protocol.js'

/** A probe phase with no success by then is reported as such rather than left hanging. */
const PROBE_GIVE_UP_MS = 60_000

const config = JSON.parse(process.argv[2] ?? '{}') as FleetClientConfig
const commands = createInterface({ input: process.stdin })[Symbol.asyncIterator]()

async function waitFor(command: string): Promise<void> {
  for (let line = await commands.next(); !line.done; line = await commands.next())
    if (line.value.trim() === command) return
  throw new Error(`stdin ended before ${command}`)
}

function answer(report: object): void {
  process.stdout.write(`${JSON.stringify(report)}\n`)
}

const counts: ClientCounts = { attempts: 0, status429: 0, retries: 0 }
const logger: Logger = {
  // One debug line per attempt, with its status when an answer came.
  debug: (_message, ...details) => {
    counts.attempts++
    if ((details[0] as { status?: number } | undefined)?.status === 429) counts.status429++
  },
  // One info line per retry, as the client decides it (every line starts with `notifykit: `).
  info: (message) => {
    if (message.startsWith('notifykit: retrying ')) counts.retries++
  },
  warn: () => {},
  error: () => {},
}
const client = new NotificationClient({
  apiKey: API_KEY,
  baseUrl: `http://127.0.0.1:${config.port}`,
  logger,
  logLevel: 'debug',
})

function* events(first: number, count: number) {
  for (let i = first; i < first + count; i++) yield scaleEvent(i)
}

async function stream(task: Extract<FleetClientConfig, { task: 'stream' }>): Promise<FleetStreamReport> {
  const startedAt = Date.now()
  let chunks = 0
  let failedChunks = 0
  const chunkErrors = new Set<string>()
  for await (const outcome of client.events.triggerStream(events(task.first, task.events), {
    concurrency: task.concurrency,
  })) {
    chunks++
    if (outcome.error) {
      failedChunks++
      const { error } = outcome
      const first = error instanceof BulkTriggerError ? (error.failures[0]?.error ?? error) : error
      chunkErrors.add(`${first.name}: ${first.message}`)
    }
  }
  return {
    ...counts,
    startedAt,
    endedAt: Date.now(),
    chunks,
    failedChunks,
    chunkErrors: [...chunkErrors],
  }
}

/** `calls` triggers, `concurrency` at a time, each retried as the client's defaults say. */
async function callThroughOutage(task: Extract<FleetClientConfig, { task: 'outage' }>) {
  let next = 0
  let failures = 0
  const caller = async () => {
    while (next < task.calls) {
      const i = next++
      await client.events.trigger(scaleEvent(i)).catch(() => failures++)
    }
  }
  await Promise.all(Array.from({ length: task.concurrency }, caller))
  const report: OutageCallsReport = { ...counts, calls: task.calls, failures }
  return report
}

/**
 * A call every `probeEveryMs`, each started whether or not the ones before have ended (traffic does
 * not wait for the server to recover), until one succeeds: when that happens is the figure.
 */
function probeUntilSuccess(task: Extract<FleetClientConfig, { task: 'outage' }>) {
  return new Promise<OutageProbeReport>((resolve) => {
    let probes = 0
    const finish = (firstSuccessAt: number | null) => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ firstSuccessAt, probes })
    }
    const probe = () => {
      // Indices past the calls': the fake applies these once it is up.
      const event = scaleEvent(task.calls + probes++)
      client.events.trigger(event).then(
        () => finish(Date.now()),
        () => {},
      )
    }
    const timer = setInterval(probe, task.probeEveryMs)
    const giveUp = setTimeout(() => finish(null), PROBE_GIVE_UP_MS)
    probe()
  })
}

if (config.task === 'stream') {
  answer(await stream(config))
} else {
  answer({ ready: true })
  await waitFor('go')
  answer(await callThroughOutage(config))
  await waitFor('probe')
  answer(await probeUntilSuccess(config))
}
// Probes still in their retry waits are not part of the figure; nothing else is pending.
process.exit(0)
