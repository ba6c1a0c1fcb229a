import { NotifyKitError } from '../../core/errors.js'
import type { RateLimiter } from '../../core/options.js'
import type { Pacer } from './rate-limiter.js'

/**
 * The application's own `RateLimiter` (the `rateLimit` option) in the pacer's place. Its refusal
 * fails the call; an exception from its `settle` is dropped, since the attempt is over by then.
 * @internal
 */
export function externalPacer(limiter: RateLimiter): Pacer {
  return {
    acquire(cost, { signal }, deadline) {
      let turn: PromiseLike<void> | void
      try {
        turn = limiter.acquire({ cost, signal, deadline })
      } catch (error) {
        throw refusal(error)
      }
      if (turn === undefined || typeof turn?.then !== 'function') return 0
      return Promise.resolve(turn).then(
        () => 0,
        (error: unknown) => {
          throw refusal(error)
        },
      )
    },
    settle(cost, _mark, response) {
      try {
        limiter.settle?.({ cost, signal: undefined, deadline: undefined }, response)
      } catch {
        // The attempt is over: its outcome stands, whatever the limiter makes of it.
      }
    },
    // The application's limiter paces bulk requests as they are: no reason to split them.
    coarse: () => false,
  }
}

function refusal(error: unknown): NotifyKitError {
  if (error instanceof NotifyKitError) return error
  const reason = error instanceof Error ? error.message : String(error)
  return new NotifyKitError(`The rateLimit limiter refused the request: ${reason}`, { cause: error })
}
