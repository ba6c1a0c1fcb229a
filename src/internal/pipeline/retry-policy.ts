import {
  ApiError,
  ConnectionError,
  IdempotencyReplayError,
  type NotifyKitError,
  TimeoutError,
} from '../../core/errors.js'

const INITIAL_DELAY_MS = 500
const MAX_DELAY_MS = 8_000
/** A server asking for a longer wait than this is not waited for: the application decides. */
export const MAX_RETRY_AFTER_MS = 60_000

const RETRYABLE_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504])

/** What to do after a failed attempt. */
type RetryDecision = { retry: false } | { retry: true; delayMs: number; reason: string; staleSocket: boolean }

export interface RetryState {
  /** Attempts made so far, the failed one included. */
  attempts: number
  /** Retries allowed by `maxRetries`. */
  maxRetries: number
  /** Whether the one free retry for a stale keep-alive socket was already spent. */
  staleSocketRetryUsed: boolean
}

/**
 * Decides whether a failed attempt is tried again and after how long. Pure: the request core owns
 * the loop, the clock and the logging.
 *
 * Every retry goes out under the call's idempotency key, and the service records the outcome of a
 * keyed POST or PATCH that reached its handler, an error included, as its answer to that key for a
 * day: a request under the key again gets a replay (`503` with `Idempotency-Replay: true`), never a
 * new run. So an error the service recorded is final for the key, and is not retried:
 * - a replay is never retried, and is no sign of an outage (the service works: it repeats an answer);
 * - an error that echoes the `idempotency-key` header went through the service's idempotency layer,
 *   which recorded it (a 500 from the application, an organisation's `503` kill switch, a 4xx). A
 *   retry under the same key could only be replayed; a retry under a new key could send twice if
 *   the first attempt was applied (a 500 can follow the trigger's queueing), which a client trusted
 *   with sends that must happen once does not do behind its caller's back. So the call fails at once
 *   with that first error, and the caller, who can tell whether a repeat is safe (a trigger's
 *   `transactionId` makes the service ignore one), sends again under a new key. The exceptions
 *   are the answers the layer does not record: a 409 (the first request under the key is still
 *   running) and a 429 (the rate limiter runs before it).
 * Failures that never reached the service's handler stay retried under the same key, which is what
 * makes them safe: connection errors and timeouts, 502 and 504 from gateways, and 5xx with no echo
 * of the key (a proxy's, or a service whose idempotency layer is off).
 * @internal
 */
export function decideRetry(
  error: NotifyKitError,
  state: RetryState,
  random: () => number = Math.random,
): RetryDecision {
  const retriesDone = state.attempts - 1
  if (error instanceof ApiError) {
    if (isFinalForTheKey(error) || !shouldRetryStatus(error)) return NO_RETRY
    if (retriesDone >= state.maxRetries) return NO_RETRY
    const requested = error.retryAfterMs
    if (requested !== undefined && requested > MAX_RETRY_AFTER_MS) return NO_RETRY
    return {
      retry: true,
      delayMs: requested ?? backoffMs(retriesDone, random),
      reason: `status ${error.status}`,
      staleSocket: false,
    } satisfies RetryDecision
  }
  if (!(error instanceof ConnectionError) || isPermanentConnectionError(error)) return NO_RETRY
  // A socket the server closed while it sat idle in the pool fails before a single response byte.
  // Serverless functions thawing after a freeze hit this on their first call: one free retry.
  if (!state.staleSocketRetryUsed && isStaleSocket(error)) {
    return {
      retry: true,
      delayMs: 0,
      reason: 'stale keep-alive socket',
      staleSocket: true,
    } satisfies RetryDecision
  }
  if (retriesDone >= state.maxRetries) return NO_RETRY
  return {
    retry: true,
    delayMs: backoffMs(retriesDone, random),
    reason: error instanceof TimeoutError ? 'attempt timed out' : 'connection error',
    staleSocket: false,
  } satisfies RetryDecision
}

const NO_RETRY: RetryDecision = { retry: false }

/**
 * Whether the failure is of a kind retries are for, the attempts left aside: a retryable status
 * but 429 (the server says when to come back, and the pacer holds every request for it), a timeout
 * or a connection error that a retry can mend. These draw on the retry budget.
 */
export function failsLikeAnOutage(error: NotifyKitError): boolean {
  if (error instanceof IdempotencyReplayError) return false
  if (error instanceof ApiError) return error.status !== 429 && shouldRetryStatus(error)
  return error instanceof ConnectionError && !isPermanentConnectionError(error)
}

/** The statuses the service's idempotency layer answers without recording them for the key. */
const UNRECORDED_STATUSES = new Set([409, 429])

/** A replay, or an error the service recorded as its answer to the key (it echoes the key). */
function isFinalForTheKey(error: ApiError): boolean {
  if (error instanceof IdempotencyReplayError) return true
  return error.headers['idempotency-key'] !== undefined && !UNRECORDED_STATUSES.has(error.status)
}

function shouldRetryStatus(error: ApiError): boolean {
  const override = error.headers['x-should-retry']
  if (override === 'true') return true
  if (override === 'false') return false
  return RETRYABLE_STATUSES.has(error.status)
}

/** About 0.5 s, 1 s, 2 s, … capped at 8 s, each shortened by up to a quarter at random. */
export function backoffMs(retriesDone: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_DELAY_MS * 2 ** retriesDone, MAX_DELAY_MS)
  return Math.round(base * (1 - random() * 0.25))
}

// A closed or destroyed dispatcher (a user's, closed under the client) and a request undici refuses to
// send fail the same way every time: retrying them only delays the error.
const PERMANENT_CONNECTION_CODES = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'UND_ERR_INVALID_ARG'])

/**
 * Failures that no retry can mend: the codes above, and code the runtime refuses to run (undici's
 * WebAssembly parser where the embedder forbids compiling it, as workerd does).
 */
function isPermanentConnectionError(error: ConnectionError): boolean {
  return someCause(
    error,
    ({ code, name }) =>
      (typeof code === 'string' && PERMANENT_CONNECTION_CODES.has(code)) || name === 'CompileError',
  )
}

const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])

/**
 * A reset, broken pipe or "other side closed" before the response started. undici reports the
 * socket's lifetime byte counts, which are not zero on a reused socket, so the test is whether the
 * response's headers had arrived, not `bytesRead`.
 */
export function isStaleSocket(error: ConnectionError): boolean {
  if (error instanceof TimeoutError || error.responseStarted) return false
  // undici puts the code on the error itself; Node's fetch wraps it: `TypeError: fetch failed` → cause.
  return someCause(error, ({ code }) => typeof code === 'string' && STALE_SOCKET_CODES.has(code))
}

const MAX_CAUSE_DEPTH = 4

interface CauseFields {
  code?: unknown
  name?: unknown
  cause?: unknown
}

/** Whether the error's cause, or a cause of that, up to a few levels, matches. */
function someCause(error: ConnectionError, matches: (cause: CauseFields) => boolean): boolean {
  let cause = error.cause
  for (let depth = 0; typeof cause === 'object' && cause !== null && depth < MAX_CAUSE_DEPTH; depth++) {
    if (matches(cause as CauseFields)) return true
    cause = (cause as CauseFields).cause
  }
  return false
}
