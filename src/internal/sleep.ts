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
