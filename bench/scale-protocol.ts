// What the processes of `npm run bench:scale` say to each other.

export const SCALE_WORKFLOW = 'scale-test'

/** What the fake applied: events are told apart by `payload.i`, so a double send shows. */
export interface FakeStats {
  notifications: number
  distinctEvents: number
  duplicates: number
  requests: number
}

/** The events every scale figure sends: event `i` carries `i`, so the fake can count each once. */
export function scaleEvent(i: number) {
  return { name: SCALE_WORKFLOW, to: `user-${i % 1_000}`, payload: { i } }
}

/** The client process's tasks. */
export type ScaleClientConfig =
  | { task: 'memory'; port: number; events: number; checkpoints: number[]; concurrency: number }
  | { task: 'stream'; port: number; events: number; idempotencyKey: string; startAtChunk: number }

/** The memory task's answer: RSS after a forced collection, before the send and at each checkpoint. */
export interface MemoryReport {
  baselineRssMb: number
  baselineHeapUsedMb: number
  checkpoints: { events: number; rssMb: number; heapUsedMb: number; growthMb: number }[]
  failedChunks: number
  seconds: number
}

/** One line per outcome of the stream task, as soon as the consumer has it. */
export interface OutcomeLine {
  chunkIndex: number
  applied: boolean
}
