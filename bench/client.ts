// The measuring process: raw undici and notifykit side by side, in one process, interleaved in
// rounds. harness.ts compiles it to plain JavaScript and runs it under plain `node`, importing the
// built package, so no loader or transpiler is in the measured path.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { Agent, request } from 'undici'
import { API_KEY, NOTIFICATION, NOTIFICATION_ID, TRIGGER_EVENT, TRIGGER_RESULT } from './fixtures.js'
import {
  clientName,
  type MemoryConfig,
  type MemoryResult,
  type MemorySnapshot,
  type Operation,
  type ProfileConfig,
  type ProfileResult,
  RAW_UNDICI,
  type RoundsConfig,
  type RoundsResult,
  type SdkClientSpec,
  type Segment,
  type WorkerConfig,
} from './protocol.js'
import { percentile } from './stats.js'

type NotifyKit = typeof import('notifykit')

interface BenchClient {
  name: string
  trigger(): Promise<unknown>
  get(): Promise<unknown>
  close(): Promise<void>
}

interface TriggerResultShape {
  transactionId?: string
}
interface NotificationShape {
  _id?: string
}

const gc = (globalThis as { gc?: () => void }).gc

/** The floor: what a careful user writes with undici alone. */
function rawUndiciClient(port: number): BenchClient {
  const agent = new Agent()
  const base = `http://127.0.0.1:${port}`
  const triggerUrl = `${base}/v1/events/trigger`
  const headers = { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' }
  const getHeaders = { authorization: `ApiKey ${API_KEY}` }
  return {
    name: RAW_UNDICI,
    async trigger() {
      const response = await request(triggerUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify(TRIGGER_EVENT),
        dispatcher: agent,
      })
      const json = (await response.body.json()) as { data: unknown }
      if (response.statusCode !== 201) throw new Error(`status ${response.statusCode}`)
      return json.data
    },
    async get() {
      const response = await request(`${base}/v1/notifications/${encodeURIComponent(NOTIFICATION_ID)}`, {
        method: 'GET',
        headers: getHeaders,
        dispatcher: agent,
      })
      const json = (await response.body.json()) as { data: unknown }
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`)
      return json.data
    },
    close: () => agent.close(),
  }
}

async function notifyKitClient(spec: SdkClientSpec, port: number): Promise<BenchClient> {
  const sdk: NotifyKit = await import(spec.packageUrl)
  const client = new sdk.NotificationClient({
    apiKey: API_KEY,
    baseUrl: `http://127.0.0.1:${port}`,
    responseValidation: spec.responseValidation,
  })
  return {
    name: clientName(spec),
    trigger: () => client.events.trigger(TRIGGER_EVENT),
    get: () => client.notifications.get(NOTIFICATION_ID),
    close: () => client.close(),
  }
}

/** Every client must return what the server sent, or the comparison means nothing. */
async function checkAnswers(client: BenchClient): Promise<void> {
  const triggered = (await client.trigger()) as TriggerResultShape
  const notification = (await client.get()) as NotificationShape
  if (triggered.transactionId !== TRIGGER_RESULT.transactionId || notification._id !== NOTIFICATION._id) {
    throw new Error(`${client.name} returned something else than the server sent`)
  }
}

interface Measured {
  calls: number
  elapsedMs: number
  cpuUs: number
  latenciesMs: number[]
}

async function measure(
  call: () => Promise<unknown>,
  concurrency: number,
  durationMs: number,
  recordLatency: boolean,
): Promise<Measured> {
  gc?.()
  const latenciesMs: number[] = []
  let calls = 0
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  const end = started + durationMs
  const loop = async () => {
    while (performance.now() < end) {
      if (recordLatency) {
        const callStarted = performance.now()
        await call()
        latenciesMs.push(performance.now() - callStarted)
      } else {
        await call()
      }
      calls++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
  const elapsedMs = performance.now() - started
  const cpu = process.cpuUsage(cpuBefore)
  return { calls, elapsedMs, cpuUs: cpu.user + cpu.system, latenciesMs }
}

function callOf(client: BenchClient, operation: Operation): () => Promise<unknown> {
  return operation === 'trigger' ? () => client.trigger() : () => client.get()
}

async function runRounds(config: RoundsConfig): Promise<RoundsResult> {
  const clients = [rawUndiciClient(config.port)]
  for (const spec of config.clients) clients.push(await notifyKitClient(spec, config.port))
  for (const client of clients) await checkAnswers(client)
  // Warm-up: every client, every scenario, so that the JIT has seen all the code before round 1.
  for (const scenario of config.scenarios) {
    for (const client of clients) {
      await measure(callOf(client, scenario.operation), scenario.concurrency, config.warmupMs, false)
    }
  }
  const segments: Segment[] = []
  for (let round = 1; round <= config.rounds; round++) {
    // A B C, then B C A, then C A B: no client always runs right after the same other one.
    const order = clients.map((_, i) => clients[(i + round - 1) % clients.length] as BenchClient)
    for (const scenario of config.scenarios) {
      for (const client of order) {
        const recordLatency = scenario.concurrency === 1
        const measured = await measure(
          callOf(client, scenario.operation),
          scenario.concurrency,
          config.segmentMs,
          recordLatency,
        )
        segments.push({
          round,
          client: client.name,
          operation: scenario.operation,
          concurrency: scenario.concurrency,
          calls: measured.calls,
          elapsedMs: measured.elapsedMs,
          callsPerSecond: (measured.calls * 1000) / measured.elapsedMs,
          cpuUsPerCall: measured.cpuUs / measured.calls,
          ...(recordLatency
            ? { p50Ms: percentile(measured.latenciesMs, 50), p99Ms: percentile(measured.latenciesMs, 99) }
            : {}),
        })
      }
    }
  }
  for (const client of clients) await client.close()
  return { segments, gcExposed: gc !== undefined }
}

function snapshot(): MemorySnapshot {
  // Twice: the first pass can leave work (weak references, finalizers) for the second.
  gc?.()
  gc?.()
  const usage = process.memoryUsage()
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed }
}

/** `calls` calls at `concurrency`, one get for every four triggers. */
async function callMany(client: BenchClient, calls: number, concurrency: number): Promise<void> {
  let issued = 0
  const loop = async () => {
    while (issued < calls) {
      const index = issued++
      await (index % 5 === 4 ? client.get() : client.trigger())
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
}

async function runMemory(config: MemoryConfig): Promise<MemoryResult> {
  const client = await notifyKitClient(config.client, config.port)
  await checkAnswers(client)
  await callMany(client, config.warmupCalls, config.concurrency)
  const afterWarmup = snapshot()
  await callMany(client, config.calls, config.concurrency)
  const afterCalls = snapshot()
  await client.close()
  return { calls: config.calls, afterWarmup, afterCalls, gcExposed: gc !== undefined }
}

async function runProfile(config: ProfileConfig): Promise<ProfileResult> {
  const client = config.client
    ? await notifyKitClient(config.client, config.port)
    : rawUndiciClient(config.port)
  await checkAnswers(client)
  const call = callOf(client, config.operation)
  await measure(call, config.concurrency, config.warmupMs, false)
  // The profiler runs around the measured calls only: no module loading, no warm-up in the profile.
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: config.samplingIntervalUs })
  await session.post('Profiler.start')
  const measured = await measure(call, config.concurrency, config.durationMs, false)
  const { profile } = await session.post('Profiler.stop')
  session.disconnect()
  writeFileSync(config.profilePath, JSON.stringify(profile))
  await client.close()
  return { calls: measured.calls, cpuUsPerCall: measured.cpuUs / measured.calls }
}

function run(config: WorkerConfig): Promise<unknown> {
  if (config.mode === 'memory') return runMemory(config)
  if (config.mode === 'profile') return runProfile(config)
  return runRounds(config)
}

const result = await run(JSON.parse(process.argv[2] ?? '{}') as WorkerConfig)
process.stdout.write(`${JSON.stringify(result)}\n`)
