// What the orchestrator (run.ts) and the measuring process (client.ts) tell each other.

/** The floor every SDK client is compared with; always measured first in each round. */
export const RAW_UNDICI = 'raw undici'

/** A notifykit client to measure: a build of the package and a validation mode. */
export interface SdkClientSpec {
  /** `notifykit` in `npm run bench`; `before` and `after` in `bench/ab.ts`. */
  label: string
  /** file: URL of the built package's ESM entry. */
  packageUrl: string
  responseValidation: 'lenient' | 'off'
}

export function clientName(spec: SdkClientSpec): string {
  return `${spec.label} ${spec.responseValidation}`
}

export type Operation = 'trigger' | 'get'

export interface Scenario {
  operation: Operation
  concurrency: number
}

export interface RoundsConfig {
  mode: 'rounds'
  port: number
  /** Measured after raw undici, in this order, in every round. */
  clients: SdkClientSpec[]
  rounds: number
  segmentMs: number
  warmupMs: number
  scenarios: Scenario[]
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
  /** Undefined profiles raw undici. */
  client: SdkClientSpec | undefined
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

export type WorkerConfig = RoundsConfig | MemoryConfig | ProfileConfig

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
  /** Latency percentiles in ms; recorded at concurrency 1 only. */
  p50Ms?: number
  p99Ms?: number
}

export interface RoundsResult {
  segments: Segment[]
  gcExposed: boolean
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
