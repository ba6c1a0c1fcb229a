// What run.ts and its client processes (client.ts) say to each other over the fork's IPC channel.

export const WORKFLOW = 'pg-limiter-recipe'
export const API_KEY = 'nk_pg_limiter_0123456789abcdef'

/** Event `i` carries `i`, so that the fake can tell a double send from two events. */
export function recipeEvent(i: number) {
  return { name: WORKFLOW, to: `user-${i % 1_000}`, payload: { i } }
}

/** argv[2] of a client process, as JSON. */
export interface ClientConfig {
  baseUrl: string
  postgres: { host: string; port: number; user: string; password: string; database: string }
  points: number
  duration: number
  keyPrefix: string
  /** Events `first` to `first + events - 1`. */
  first: number
  events: number
  concurrency: number
}

/** From a client: loaded and connected, then its report once its send is over. */
export type ClientMessage =
  | { type: 'ready' }
  | {
      type: 'report'
      chunks: number
      failedChunks: number
      /** The first failure, if any, as its message. */
      firstError: string | undefined
      /** Attempts sent (retries included), seen by the client's `onAttempt` hook. */
      attempts: number
      status429: number
      retries: number
    }

/** From run.ts: start sending. */
export type ParentMessage = { type: 'go' }
