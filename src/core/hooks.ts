import type { NotifyKitError } from './errors.js'

/** What is known of a call when it starts; the same object is passed to every callback of the call. */
export interface CallInfo {
  /** Dotted operation name, e.g. `events.trigger`. */
  readonly operation: string
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** The route with its parameters unfilled, base path included: `/v1/events/trigger/{transactionId}`. */
  readonly urlTemplate: string
  /** Where the service is, from `baseUrl`: `https://api.example.com`, `http://127.0.0.1:4010`. */
  readonly origin: string
  /** The idempotency key sent on every attempt (POST and PATCH), set here before `onCallEnd`. */
  idempotencyKey: string | undefined
  /**
   * True for a call made of several requests (`events.triggerBulk`): it has no attempts of its own,
   * and each of its requests is a call of its own, started with this call's state as its parent.
   */
  readonly batch: boolean
  /**
   * Headers to send on every attempt of the call, e.g. `traceparent`: set them in `onCallStart`.
   * Lower-case names; one the request already has (`authorization`, `idempotency-key`, yours) is
   * never replaced, and one that breaks the rule of the `headers` option is dropped with a warning.
   */
  readonly headers: Record<string, string>
}

/** Passed to `onAttempt` after each attempt, with its status or its error. */
export interface AttemptInfo {
  readonly call: CallInfo
  /** 1 for the first attempt. */
  readonly attempt: number
  /** The response status, when a response came back. */
  readonly status: number | undefined
  /** Why no response came back: a timeout, a connection error… (a response's status is in `status`). */
  readonly error: NotifyKitError | undefined
  /** From sending to the whole response read, in milliseconds. */
  readonly durationMs: number
}

/** Passed to `onRetry` when a failed attempt is about to be tried again. */
export interface RetryInfo {
  readonly call: CallInfo
  /** The attempt that failed; the next one is `attempt + 1`. */
  readonly attempt: number
  /** Why it is retried: `status 503`, `attempt timed out`, `connection error`, `stale keep-alive socket`. */
  readonly reason: string
  /** The wait before the next attempt, in milliseconds. */
  readonly delayMs: number
}

/** Passed to `onCallEnd` once, with the result or the error. */
export interface CallEndInfo {
  readonly call: CallInfo
  /** Attempts sent, 0 when the call failed before sending (a bad payload); for a batch, all its requests' attempts. */
  readonly attempts: number
  /** The status the call ended with: its response's, or its `ApiError`'s; none when it failed without one. */
  readonly status: number | undefined
  /** What the call resolves to, on success. */
  readonly result: unknown
  /**
   * What the call rejects with, on failure. `error.retryBudgetSpent` is true when it was not
   * retried because the client's retry budget was spent.
   */
  readonly error: NotifyKitError | undefined
  /** From the start of the call to its end, waits between attempts included, in milliseconds. */
  readonly durationMs: number
}

/**
 * Callbacks on the lifecycle of every call a client makes: to trace, measure or log calls. All are
 * optional; a callback that throws (or, written `async`, rejects) is reported at `warn` and never
 * changes the outcome of a call.
 * `State` is whatever `onCallStart` returns (a span, a timer), handed back to the call's other
 * callbacks.
 *
 * @example
 * ```ts
 * const timing: NotifyKitHooks = {
 *   onCallEnd: ({ call, durationMs, error }) => metrics.record(call.operation, durationMs, error?.code),
 * }
 * const client = new NotificationClient({ hooks: timing })
 * ```
 */
export interface NotifyKitHooks<State = unknown> {
  /**
   * A call starts. What it returns is passed to the call's other callbacks. `parent` is this hook's
   * state for the batch the call is a request of (a chunk of `events.triggerBulk`). Set
   * `call.headers` to add headers to the call's attempts.
   * @example `onCallStart: ({ operation, headers }) => { headers['x-caller'] = 'billing'; return Date.now() }`
   */
  onCallStart?(info: CallInfo, parent: State | undefined): State
  /**
   * Runs the call: call `run` once, synchronously, inside whatever context your tracer keeps active,
   * so that what the call does (the transport's own instrumentation, every attempt) nests under your
   * span. A wrapper that does not call it, or throws, does not stop the call.
   * @example `wrapCall: (run, state) => context.with(state.context, run)`
   */
  wrapCall?(run: () => void, state: State): void
  /**
   * An attempt ended, with a status or an error.
   * @example `onAttempt: ({ attempt, status, durationMs }) => console.log(attempt, status, durationMs)`
   */
  onAttempt?(info: AttemptInfo, state: State): void
  /**
   * A failed attempt is retried after `info.delayMs`.
   * @example `onRetry: ({ call, reason }) => retries.add(1, { operation: call.operation, reason })`
   */
  onRetry?(info: RetryInfo, state: State): void
  /**
   * The call ended: `info.result` or `info.error`.
   * @example `onCallEnd: ({ call, error, durationMs }) => log(call.operation, error?.code ?? 'ok', durationMs)`
   */
  onCallEnd?(info: CallEndInfo, state: State): void
}
