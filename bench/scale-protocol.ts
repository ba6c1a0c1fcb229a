// What the processes of `npm run bench:scale` say to each other.

export const SCALE_WORKFLOW = 'scale-test'

/** What the fake applied: events are told apart by `payload.i`, so a double send shows. */
export interface FakeStats {
  notifications: number
  distinctEvents: number
  duplicates: number
  requests: number
  /** Every answer the fake's process gave, by status (`dropped`: the connection cut instead). */
  statuses: Record<string, number>
}

/** What `applied` answers: each event's index (its payload's `i`), and when the fake first applied it. */
export type AppliedAt = [number, number][]

/** What `down` and `up` answer: when the outage began or ended, by the fake's clock (`Date.now()`). */
export interface SwitchedAt {
  at: number
}

/** The events every scale figure sends: event `i` carries `i`, so the fake can count each once. */
export function scaleEvent(i: number) {
  return { name: SCALE_WORKFLOW, to: `user-${i % 1_000}`, payload: { i } }
}

/** The client process's tasks. */
export type ScaleClientConfig =
  | { task: 'memory'; port: number; events: number; sampleEvery: number; concurrency: number }
  | { task: 'stream'; port: number; events: number; idempotencyKey: string; startAtChunk: number }

/** Memory after two forced full collections: what the process holds, and where. */
export interface MemorySample {
  /** Events whose outcome the consumer had when the sample was taken. */
  events: number
  rssMb: number
  /** Live JavaScript objects: what a retention would grow. */
  heapUsedMb: number
  /** Pages V8's young generation has touched: it grows with the allocation rate, not with retention. */
  newSpaceMb: number
  /** RSS outside V8's heap: code, the allocator's pages, buffers. */
  outsideHeapMb: number
}

/**
 * The memory task's answer: a baseline before the send, then a sample at each multiple of
 * `sampleEvery`. Each figure is the median of the samples around a checkpoint, so that one reading
 * taken while the allocator holds pages it is about to return does not decide it.
 */
export interface MemoryReport {
  baseline: MemorySample
  samples: MemorySample[]
  failedChunks: number
  seconds: number
}

/** One line per outcome of the stream task, as soon as the consumer has it. */
export interface OutcomeLine {
  chunkIndex: number
  applied: boolean
}

/**
 * The fleet and outage figures' client process (scale-fleet-client.ts): one instance of a function
 * scaled out. `stream` sends events `first` to `first + events - 1`; `outage` makes `calls` triggers
 * against the failing server, then calls every `probeEveryMs` until one succeeds.
 */
export type FleetClientConfig =
  | { task: 'stream'; port: number; first: number; events: number; concurrency: number }
  | { task: 'outage'; port: number; calls: number; concurrency: number; probeEveryMs: number }

/** What a client process counted from its own log lines. */
export interface ClientCounts {
  /** Requests sent, retries included (one debug line each). */
  attempts: number
  status429: number
  /** Attempts after a failed one (one `retrying` info line each). */
  retries: number
}

/** The stream task's answer; the times are `Date.now()`, from the `go` to the last outcome. */
export interface FleetStreamReport extends ClientCounts {
  startedAt: number
  endedAt: number
  chunks: number
  failedChunks: number
  /** The errors the failed chunks ended with, each once (the name and message). */
  chunkErrors: string[]
}

/** The outage task's first answer, once its calls have all ended. */
export interface OutageCallsReport extends ClientCounts {
  calls: number
  failures: number
}

/** The outage task's second answer: when its first call succeeded (`Date.now()`), or null if none did. */
export interface OutageProbeReport {
  firstSuccessAt: number | null
  probes: number
}
