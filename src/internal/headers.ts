import { NotifyKitError, RequestValidationError } from '../core/errors.js'

// RFC 9110 token characters for header names.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// Control characters (CR, LF and NUL among them) would let a value start a new header or end the request.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000a-\u001f\u007f]/
const PRINTABLE_ASCII = /^[\u0020-\u007e]+$/

/** Headers the SDK owns: set from options, never from `defaultHeaders` or per-call `headers`. */
const RESERVED_HEADERS = new Set(['authorization', 'idempotency-key', 'content-length', 'host'])

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

/**
 * Checks user-supplied headers and returns them with lower-case names. `where` names the option in
 * errors. Throws at construction (`defaultHeaders`) or per call (`headers`), before anything is sent.
 */
export function normalizeHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  where: 'defaultHeaders' | 'headers',
): Record<string, string> {
  const result: Record<string, string> = {}
  if (!headers) return result
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerProblem(name, value)
    if (problem) throw headerError(where, name, problem)
    result[name.toLowerCase()] = value
  }
  return result
}

function headerProblem(name: string, value: unknown): string | undefined {
  if (!HEADER_NAME.test(name)) return 'is not a valid header name'
  if (RESERVED_HEADERS.has(name.toLowerCase())) return 'is set by the client and cannot be overridden here'
  if (typeof value !== 'string') return 'must have a string value'
  if (CONTROL_CHARACTER.test(value)) return 'has a control character (CR, LF, NUL, …) in its value'
  return undefined
}

function headerError(where: string, name: string, problem: string): NotifyKitError {
  // Per-call problems are request validation errors; a bad client option is a configuration error.
  const message = `Header ${JSON.stringify(name)} in ${where} ${problem}`
  return where === 'headers'
    ? new RequestValidationError([{ path: ['headers', name], message: problem }], 'Invalid request options')
    : new NotifyKitError(message)
}

/** The API key must be usable as a header value; the message never repeats the key. */
export function checkApiKey(apiKey: string): void {
  if (apiKey.trim() === '') throw new NotifyKitError('The API key is empty')
  if (!PRINTABLE_ASCII.test(apiKey)) {
    throw new NotifyKitError('The API key contains characters not allowed in a header (control or non-ASCII)')
  }
}

/** server-notes.md: at most 255 characters; header-safe by construction. */
export function checkIdempotencyKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') return fail('must be a non-empty string')
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return fail(`must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`)
  if (!PRINTABLE_ASCII.test(key)) return fail('must contain printable ASCII characters only')
  return key
}

function fail(problem: string): never {
  throw new RequestValidationError(
    [{ path: ['idempotencyKey'], message: problem }],
    'Invalid request options',
  )
}
