import { TimeoutError } from '../../core/errors.js'

/**
 * Waits `ms`, or rejects with `onAbort()` as soon as the signal fires, so that a caller's abort
 * never waits out a backoff.
 */
export function sleep(ms: number, signal: AbortSignal | undefined, onAbort: () => Error): Promise<void> {
  if (signal?.aborted) return Promise.reject(onAbort())
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer)
      reject(onAbort())
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', abort, { once: true })
  })
}

/**
 * The whole call ran past its `deadlineMs`. `cause` is the failure of the last attempt, if any;
 * `notSent` says the request never went out (a bulk request whose turn came after the deadline).
 */
export function deadlineError(
  deadlineMs: number | undefined,
  { cause, notSent = false }: { cause?: unknown; notSent?: boolean } = {},
): TimeoutError {
  const when = notSent ? ' before this request was sent' : ''
  return new TimeoutError(`The call ran past its deadline of ${deadlineMs} ms${when}`, { cause })
}
