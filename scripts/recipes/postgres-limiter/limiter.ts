import { setTimeout as sleep } from 'node:timers/promises'
import type { RateLimiter } from 'notifykit'
import type { Pool } from 'pg'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'

export interface PostgresRateLimiterOptions {
  /** This instance's pool; every instance sharing an API key points at the same database. */
  pool: Pool
  /**
   * Units per window, for all instances together. The store counts fixed windows; the server refills a
   * token bucket. Windows never overdraw the bucket when `points <= refill per second × duration` and
   * `2 × points <= burst`: the end of one window and the start of the next can reach the server
   * together. The rest of the burst absorbs requests that reach the server later than their turn
   * (network jitter, a paused instance) and the instances' clock skew.
   */
  points: number
  /** The window, in seconds (fractions allowed): short windows keep `2 × points` well under the burst. */
  duration: number
  /** One row per key prefix: instances sharing an API key share it. */
  keyPrefix: string
}

const KEY = 'trigger'

/**
 * notifykit's `rateLimit`, shared through PostgreSQL. In each instance, for a bucket of 2,000 units/s
 * with a burst of 2,200 (`RateLimit-Policy: 10000;w=5;burst=2200;…`):
 *
 *     const rateLimit = await postgresRateLimiter({ pool, points: 500, duration: 0.25, keyPrefix: 'notifykit' })
 *     const client = new NotificationClient({ rateLimit })
 */
export async function postgresRateLimiter(options: PostgresRateLimiterOptions): Promise<RateLimiter> {
  const { pool, points, duration, keyPrefix } = options
  // The constructor creates the table if it is missing, then calls back: wait for it.
  const store = await new Promise<RateLimiterPostgres>((resolve, reject) => {
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      { storeClient: pool, tableName: 'notifykit_rate_limits', keyPrefix, points, duration },
      (error) => (error ? reject(error) : resolve(limiter)),
    )
  })
  return {
    async acquire({ cost, signal, deadline }) {
      if (cost > points) throw new Error(`${cost} units can never fit a window of ${points} points`)
      for (;;) {
        signal?.throwIfAborted()
        try {
          await store.consume(KEY, cost)
          return
        } catch (rejection) {
          // An Error is the store failing: the call fails, nothing is sent.
          if (!(rejection instanceof RateLimiterRes)) throw rejection
          const wait = rejection.msBeforeNext
          if (deadline !== undefined && Date.now() + wait > deadline) {
            throw new Error(`the next window opens in ${wait} ms, after the call's deadline`)
          }
          await sleep(wait, undefined, { signal })
        }
      }
    },
    settle(_request, answer) {
      // A 429 means something outside the store drew from the bucket: every instance waits it out.
      const seconds = answer?.status === 429 ? Number(answer.headers['retry-after']) : 0
      if (seconds > 0) store.block(KEY, seconds).catch(() => {})
    },
  }
}
