import { headerValue } from './response-headers.js'

type Headers = Readonly<Record<string, string | string[] | undefined>>

/** The server's `trigger` bucket as one response describes it. */
export interface BucketReading {
  /** Units the bucket holds when full. */
  limit: number
  /** Units left after this request was charged. */
  remaining: number
  /** Units the bucket gains per millisecond, when the headers say. */
  refillPerMs: number | undefined
}

/**
 * Reads `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy`, or
 * `undefined` when the response carries no usable `RateLimit-Remaining` (most servers send none).
 * The refill rate comes from the policy (`<quota>;w=<seconds>`, quota per window), else from how
 * long the reset says the missing units take to come back.
 */
export function readBucket(headers: Headers): BucketReading | undefined {
  const remainingHeader = headerValue(headers, 'ratelimit-remaining')
  if (remainingHeader === undefined) return undefined
  const remaining = Number(remainingHeader)
  const limit = Number(headerValue(headers, 'ratelimit-limit'))
  if (!Number.isFinite(remaining) || !Number.isFinite(limit) || limit <= 0) return undefined
  return {
    limit,
    remaining,
    refillPerMs: refillFromPolicy(headers) ?? refillFromReset(headers, limit, remaining),
  }
}

function refillFromPolicy(headers: Headers): number | undefined {
  const policy = headerValue(headers, 'ratelimit-policy')
  if (policy === undefined) return undefined
  // The first policy is the one the bucket answers for; a server may list others after a comma.
  const match = /^\s*(\d+(?:\.\d+)?)\s*;\s*w\s*=\s*(\d+(?:\.\d+)?)/.exec(policy)
  if (!match) return undefined
  const quota = Number(match[1])
  const windowMs = Number(match[2]) * 1000
  return quota > 0 && windowMs > 0 ? quota / windowMs : undefined
}

function refillFromReset(headers: Headers, limit: number, remaining: number): number | undefined {
  const resetSeconds = Number(headerValue(headers, 'ratelimit-reset'))
  if (!Number.isFinite(resetSeconds) || resetSeconds <= 0 || remaining >= limit) return undefined
  return (limit - remaining) / (resetSeconds * 1000)
}
