import { AbortError } from '../core/errors.js'

/** The caller's signal fired: every transport and the retry wait end the call with this error. */
export function callerAbortError(signal: AbortSignal | undefined): AbortError {
  return new AbortError('The request was aborted by the caller', { cause: signal?.reason })
}
