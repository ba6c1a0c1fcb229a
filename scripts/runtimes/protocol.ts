// What the scenario (in every runtime) and the Node side (fake server, checks) agree on. Plain data
// only: this module ends up in the scenario's bundles.

/** Requests under this prefix get a 503 on the first attempt with a given idempotency key. */
export const FLAKY_PREFIX = '/flaky-once'
/** Requests under this prefix get a 307 to {@link REDIRECT_TARGET_PREFIX} on the same server. */
export const REDIRECT_PREFIX = '/redirect'
/** Must never be contacted: a client that follows the redirect would send its API key there. */
export const REDIRECT_TARGET_PREFIX = '/redirect-target'

export const SUBSCRIBER_ID = 'matrix-subscriber'
/** in_app and email steps: a trigger leaves a message to mark. */
export const WELCOME_WORKFLOW = 'matrix-welcome'
/** A delay step first: its trigger stays cancellable. */
export const DELAYED_WORKFLOW = 'matrix-delayed'
export const BULK_WORKFLOW = 'matrix-bulk'
export const BROADCAST_WORKFLOW = 'matrix-broadcast'
/** Three bulk requests: 100, 100 and 50 events. */
export const BULK_EVENTS = 250

/** What the launcher hands the scenario. */
export interface ScenarioConfig {
  baseUrl: string
  apiKey: string
  /** A notification the Node side created before the run, for `notifications.get`. */
  notificationId: string
  /** A loopback URL where nothing listens: the connection is refused. */
  refusedUrl: string
}

export interface CheckResult {
  name: string
  ok: boolean
  /** Why it failed, or what was seen. */
  detail?: string
}

/** What the scenario answers; the Node side checks it against its own records. */
export interface ScenarioReport {
  /** The runtime as the runtime names itself (`bun 1.4.5`, `workerd`, …). */
  runtime: string
  /** Which build of notifykit the runtime resolved: `node` (undici) or `portable` (fetch). */
  build: 'node' | 'portable' | 'unknown'
  checks: CheckResult[]
  /** The idempotency key of the call that met the 503, as the SDK reported it. */
  retriedKey?: string
  triggerTransactionId?: string
  broadcastTransactionId?: string
  bulkTransactionIds?: string[]
  durationMs: number
}
