// Declared here, below the error classes that read headers with this module; the package exports
// the type from there.

/**
 * Response headers: lower-case names; a header the server repeated is one string, its values joined
 * by `, ` (the Fetch standard's form), whichever transport carried the call.
 */
export type ResponseHeaders = Record<string, string>

/** The server's request id, from `x-request-id` or `request-id`. */
export function requestIdOf(headers: ResponseHeaders): string | undefined {
  return headers['x-request-id'] ?? headers['request-id']
}

/** `retry-after-ms` first (milliseconds), then `Retry-After` (seconds or an HTTP date). */
export function parseRetryAfterMs(headers: ResponseHeaders, now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms']
  if (ms !== undefined) {
    const value = Number(ms)
    if (Number.isFinite(value) && value >= 0) return value
  }
  const retryAfter = headers['retry-after']
  if (retryAfter === undefined) return undefined
  const seconds = Number(retryAfter)
  if (retryAfter.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(retryAfter)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** A `RateLimit-Policy`: the limit first, then its parameters by lower-case name, unquoted. */
export interface RateLimitPolicy {
  limit: number
  parameters: Record<string, string>
}

/**
 * The first policy of a `RateLimit-Policy` header, read leniently: parameters in any order, quoted
 * or not, unknown ones kept; `undefined` when it does not start with a positive limit.
 */
export function parseRateLimitPolicy(header: string | undefined): RateLimitPolicy | undefined {
  const [first = '', ...rest] = (header ?? '').split(',')[0]?.split(';') ?? []
  const limit = Number(first.trim())
  if (first.trim() === '' || !(limit > 0)) return undefined
  const parameters: Record<string, string> = {}
  for (const part of rest) {
    const equals = part.indexOf('=')
    if (equals < 0) continue
    const name = part.slice(0, equals).trim().toLowerCase()
    parameters[name] = part
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
  }
  return { limit, parameters }
}
