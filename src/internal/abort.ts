import { AbortError } from '../core/errors.js'

/** The caller's `signal` fired: the one message and cause for every place a call can be aborted. */
export function callerAbortError(signal: AbortSignal | undefined): AbortError {
  return new AbortError('The request was aborted by the caller', { cause: signal?.reason })
}
