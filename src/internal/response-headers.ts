/**
 * What the SDK reads from response headers. The headers arrive as undici parses them (lower-case
 * names, a repeated header as an array): the public `ResponseHeaders`, spelled out here because the
 * error classes use this module and it must not import from theirs.
 */
type Headers = Readonly<Record<string, string | string[] | undefined>>

/** The first value of a header. */
export function headerValue(headers: Headers, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The server's request id, from `x-request-id` or `request-id`. */
export function requestIdOf(headers: Headers): string | undefined {
  return headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id')
}

/** `retry-after-ms` first (milliseconds), then `Retry-After` (seconds or an HTTP date). */
export function parseRetryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms')
  if (ms !== undefined) {
    const value = Number(ms)
    if (Number.isFinite(value) && value >= 0) return value
  }
  const retryAfter = headerValue(headers, 'retry-after')
  if (retryAfter === undefined) return undefined
  const seconds = Number(retryAfter)
  if (retryAfter.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(retryAfter)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
