// What the orchestrator (run.ts) and the measuring process (client.ts) tell each other.

/**
 * The floor every SDK client is compared with: `undici.request(url, { dispatcher })` over a
 * keep-alive Agent, what a careful user writes with undici alone.
 */
export const RAW_UNDICI = 'raw undici'
/**
 * For reference: `agent.request({ origin, path })`, undici's lowest-level request call: the Agent's
 * `dispatch` that notifykit's transport also uses, without the URL parsing of `undici.request`. The
 * SDK's ratio to it is about the cost of the SDK's own work.
 */
export const RAW_AGENT_REQUEST = 'raw undici, agent.request'

/**
 * The baselines that do the SDK's wire work, call for call: the same `authorization`, `user-agent` and
 * `content-type` headers, and a fresh `randomUUID()` idempotency key on every POST. One per transport:
 * undici's `Pool.request`, and the global `fetch` with `JSON.parse` of the body.
 */
export const RAW_POOL_SAME_WIRE = 'raw undici Pool.request, same wire work and checks'
export const RAW_FETCH_SAME_WIRE = 'raw fetch, same wire work and checks'
/**
 * For reference: the same fetch calls, each with what the SDK gives every attempt, an AbortSignal
 * that a timer aborts. Node's fetch pays to follow a request's signal (a WeakRef, a finalization
 * record and a listener per request); this floor shows that share of the SDK's ratio to plain fetch.
 */
export const RAW_FETCH_TIMEOUT = 'raw fetch, same wire work and checks, with a timeout signal'

/** Raw undici through one of its request calls, or raw fetch (with or without a timeout signal). */
export interface RawClientSpec {
  raw: 'undici.request' | 'agent.request' | 'pool.request' | 'fetch' | 'fetch+timeout'
}

const RAW_NAMES: Record<RawClientSpec['raw'], string> = {
  'undici.request': RAW_UNDICI,
  'agent.request': RAW_AGENT_REQUEST,
  'pool.request': RAW_POOL_SAME_WIRE,
  fetch: RAW_FETCH_SAME_WIRE,
  'fetch+timeout': RAW_FETCH_TIMEOUT,
}

/** A notifykit client to measure: a build of the package and a validation mode. */
export interface SdkClientSpec {
  /** `notifykit` in `npm run bench`; `before` and `after` in `bench/ab.ts`. */
  label: string
  /** file: URL of the built package's ESM entry. */
  packageUrl: string
  responseValidation: 'lenient' | 'off'
  /** `fetch`: the client is given the global fetch (FetchTransport); undici's transport otherwise. */
  transport?: 'fetch'
  /**
   * The client has `otelHooks()` from notifykit/otel (bench/otel.ts): `sdk`, over the OpenTelemetry
   * SDK with discarding providers; `api`, over the API's no-op providers (what notifykit itself adds).
   */
  otel?: 'sdk' | 'api'
}

export type ClientSpec = RawClientSpec | SdkClientSpec

const OTEL_LABEL = { none: '', sdk: ' + OpenTelemetry', api: ' + otelHooks, API only' }

export function clientName(spec: ClientSpec): string {
  if ('raw' in spec) return RAW_NAMES[spec.raw]
  const transport = spec.transport === 'fetch' ? ' over fetch' : ''
  return `${spec.label} ${spec.responseValidation}${transport}${OTEL_LABEL[spec.otel ?? 'none']}`
}

export type Operation = 'trigger' | 'get' | 'list' | 'preferences'

/** Every operation the rounds measure, in the table's order: the sends and reads of the seed, then the reads that read back. */
export const OPERATIONS: readonly Operation[] = ['trigger', 'get', 'list', 'preferences']

export interface Scenario {
  operation: Operation
  concurrency: number
}

/**
 * What the orchestrator (rounds.ts) runs: every client in its own process, interleaved in time.
 * Not sent to a worker as it is: each worker gets a `ServeConfig`, then one `SegmentCommand` at a time.
 */
export interface RoundsConfig {
  port: number
  /** In this order in round 1; the order rotates every round. */
  clients: ClientSpec[]
  rounds: number
  segmentMs: number
  warmupMs: number
  scenarios: Scenario[]
}

/**
 * A worker that holds one client and measures it, segment by segment, when told on stdin. One
 * process per client: in a process that also ran the other clients, undici's code was optimised for
 * all of their call shapes at once, and which client that favoured changed from process to process
 * (two identical builds of notifykit measured 1.03× and 1.17× raw undici in the same run).
 */
export interface ServeConfig {
  mode: 'serve'
  port: number
  client: ClientSpec
}

/** One line on a serving worker's stdin. */
export interface SegmentCommand {
  operation: Operation
  concurrency: number
  durationMs: number
  recordLatency: boolean
}

/** The worker's answer to a `SegmentCommand`, one line on its stdout. */
export interface SegmentMeasurement {
  calls: number
  elapsedMs: number
  /** Process CPU (user + system), in µs. */
  cpuUs: number
  /** Every call's latency in ms, when the command asked for them. */
  latenciesMs?: number[]
}

/** The first line a serving worker prints, once its client answered correctly. */
export interface ServeReady {
  ready: true
  client: string
}

export interface MemoryConfig {
  mode: 'memory'
  port: number
  client: SdkClientSpec
  warmupCalls: number
  calls: number
  concurrency: number
}

/** One client, one operation, for `--cpu-prof`: nothing else runs in the process. */
export interface ProfileConfig {
  mode: 'profile'
  port: number
  client: ClientSpec
  operation: Operation
  concurrency: number
  warmupMs: number
  durationMs: number
  /** Where the CPU profile of the measured part (warm-up excluded) is written. */
  profilePath: string
  samplingIntervalUs: number
}

export interface ProfileResult {
  /** Calls made while the profiler ran. */
  calls: number
  cpuUsPerCall: number
}

export type WorkerConfig = ServeConfig | MemoryConfig | ProfileConfig

/** One client's run of one scenario in one round. */
export interface Segment {
  round: number
  client: string
  operation: Operation
  concurrency: number
  calls: number
  elapsedMs: number
  callsPerSecond: number
  /** Client process CPU (user + system) per call, in µs. */
  cpuUsPerCall: number
}

/**
 * Latency of one client in one scenario, over the calls of all its rounds: a tail of a few slow calls
 * is seen as it is, where per-segment percentiles of short segments would each hide it.
 */
export interface PooledLatency {
  client: string
  operation: Operation
  concurrency: number
  calls: number
  p50Ms: number
  p99Ms: number
}

export interface RoundsResult {
  segments: Segment[]
  /** Recorded at concurrency 1 only: at 32, a call's latency is mostly its wait behind the others. */
  latencies: PooledLatency[]
}

export interface MemorySnapshot {
  rssBytes: number
  heapUsedBytes: number
}

export interface MemoryResult {
  calls: number
  afterWarmup: MemorySnapshot
  afterCalls: MemorySnapshot
  gcExposed: boolean
}
