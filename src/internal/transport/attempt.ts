import { AbortError, ConnectionError, type NotifyKitError, TimeoutError } from '../../core/errors.js'
import { ResponseSecretScrubber, redactErrorSecret } from '../text/redact.js'
import type { TransportSettings } from './types.js'

// What every transport shares: the lifetime of one attempt, the errors it ends with, and the guard
// that reads a response safely.

/**
 * One attempt's lifetime, whatever carries it: a timer for its timeout and a listener on the
 * caller's signal, and an end that comes exactly once: with the response, a connection failure,
 * or the first of the SDK's own reasons to give it up (the timeout, the caller's abort, a body too
 * large). A transport's attempt extends it with how it drops the request (`abandoned`). The timer
 * is not unref'd: a server that never answers must end in a `TimeoutError`, not in a process that
 * quietly exits.
 * @internal
 */
export abstract class Attempt {
  readonly #timer: ReturnType<typeof setTimeout>
  readonly #signal: AbortSignal | undefined
  readonly #onCallerAbort: (() => void) | undefined
  #ended = false
  /** The SDK's reason to give the attempt up, once it has one. */
  failure: NotifyKitError | undefined

  constructor(timeoutMs: number, signal: AbortSignal | undefined) {
    this.#timer = setTimeout(
      () => this.fail(new TimeoutError(`Attempt timed out after ${timeoutMs} ms`)),
      timeoutMs,
    )
    this.#signal = signal
    // Most calls pass no signal: no listener, no closure.
    if (signal) {
      this.#onCallerAbort = () => this.fail(callerAbortError(signal))
      signal.addEventListener('abort', this.#onCallerAbort, { once: true })
    }
  }

  /** Ends the attempt with the SDK's own `failure`, unless it has ended already. */
  fail(failure: NotifyKitError): void {
    if (!this.end()) return
    this.failure = failure
    this.abandoned(failure)
  }

  /** True the first time only: clears the timer and the caller's listener. */
  end(): boolean {
    if (this.#ended) return false
    this.#ended = true
    clearTimeout(this.#timer)
    if (this.#onCallerAbort) this.#signal?.removeEventListener('abort', this.#onCallerAbort)
    return true
  }

  /** Reports `failure` and makes the transport drop the request. */
  protected abstract abandoned(failure: NotifyKitError): void
}

/** The caller's signal fired: every transport and the retry wait end the call with this error. */
export function callerAbortError(signal: AbortSignal | undefined): AbortError {
  return new AbortError('The request was aborted by the caller', { cause: signal?.reason })
}

/**
 * The connection failed: `error` (undici's, a fetch's) becomes the cause, and its description part
 * of the message, so the key is scrubbed from it first. `responseStarted` says that the status and
 * headers had arrived.
 */
export function connectionError(
  error: unknown,
  guard: ResponseGuard,
  responseStarted: boolean,
  describe: (error: unknown) => string = describeError,
): ConnectionError {
  redactErrorSecret(error, guard.apiKey)
  const failure = new ConnectionError(`Connection failed: ${describe(error)}`, { cause: error })
  failure.responseStarted = responseStarted
  return failure
}

/** `connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED)`: an error's message, with its code where it has one. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? `${error.message} (${code})` : error.message
}

/** What every transport needs to read a response safely: the size cap, and the key to keep out of it. */
export interface ResponseGuard {
  maxResponseBytes: number
  /** To scrub it from errors raised under the transport (undici's, a user's fetch). */
  apiKey: string
  /** To scrub it from what a server echoes back, in headers and body. */
  scrubber: ResponseSecretScrubber
}

/** Built once per client: the scrubber prepares its search forms of the key up front. */
export function responseGuard({ maxResponseBytes, apiKey }: TransportSettings): ResponseGuard {
  return { maxResponseBytes, apiKey, scrubber: new ResponseSecretScrubber(apiKey) }
}
