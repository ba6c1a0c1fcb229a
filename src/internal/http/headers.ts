import { NotifyKitError, RequestValidationError, type ValidationIssue } from '../../core/errors.js'

// RFC 9110 token characters for header names, by character code.
const TOKEN_CHARACTERS = new Uint8Array(128)
for (const character of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TOKEN_CHARACTERS[character.charCodeAt(0)] = 1
// Control characters (CR, LF and NUL among them) would let a value start a new header or end the
// request; tab is refused too, so that the rule is simply "no control characters".
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/
const PRINTABLE_ASCII = /^[\u0020-\u007e]+$/

/** Headers the SDK owns: set from options, never from `defaultHeaders` or per-call `headers`. */
const CLIENT_HEADERS = new Set(['authorization', 'idempotency-key', 'content-length', 'host'])
/** Headers about the connection itself; undici refuses them, and only after the call has started. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect'])

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

/**
 * Checks user-supplied headers and returns them with lower-case names. `where` names the option in
 * errors. Throws at construction (`defaultHeaders`) or per call (`headers`), before anything is sent.
 * Messages name the header, never its value: a value may be a credential.
 */
export function normalizeHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  where: 'defaultHeaders' | 'headers',
): Record<string, string> {
  const result: Record<string, string> = {}
  if (!headers) return result
  if (typeof headers !== 'object') throw headerError(where, undefined, 'must be an object of strings')
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerProblem(name, value)
    if (problem) throw headerError(where, name, problem)
    // defineProperty, so that a header named `__proto__` stays a header.
    Object.defineProperty(result, name.toLowerCase(), {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return result
}

/** What is wrong with one header, or `undefined`: the rule of `normalizeHeaders`, for one header. */
export function headerProblem(name: string, value: unknown): string | undefined {
  if (!isToken(name)) return 'is not a valid header name'
  const lowerCase = name.toLowerCase()
  if (CLIENT_HEADERS.has(lowerCase)) return 'is set by the client and cannot be overridden here'
  if (CONNECTION_HEADERS.has(lowerCase)) return 'is managed by the HTTP connection and cannot be set'
  if (typeof value !== 'string') return 'must have a string value'
  // One pass in the usual case: a printable value has no control character either.
  if (isPrintableAscii(value)) return undefined
  if (CONTROL_CHARACTER.test(value)) return 'has a control character (CR, LF, NUL, tab, …) in its value'
  return 'has a non-ASCII character in its value; encode it first (for example with encodeURIComponent)'
}

// Loops rather than regular expressions: with OpenTelemetry on, `headerProblem` checks the
// `traceparent` of every call, and the loops took a fraction of the regular expressions' CPU in the
// benchmark's profiles (bench/README.md).
function isToken(name: string): boolean {
  if (name === '') return false
  for (let index = 0; index < name.length; index++) {
    if (TOKEN_CHARACTERS[name.charCodeAt(index)] !== 1) return false
  }
  return true
}

/** Space to `~`; true for the empty string. */
function isPrintableAscii(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index)
    if (code < 0x20 || code > 0x7e) return false
  }
  return true
}

function headerError(where: string, name: string | undefined, problem: string): NotifyKitError {
  // Per-call problems are request validation errors; a bad client option is a configuration error.
  const subject = name === undefined ? where : `Header ${JSON.stringify(name)} in ${where}`
  return where === 'headers'
    ? invalidRequestOptions([
        { path: name === undefined ? ['headers'] : ['headers', name], message: problem },
      ])
    : new NotifyKitError(`${subject} ${problem}`)
}

/** The API key must be usable as a header value; the message never repeats the key. */
export function checkApiKey(apiKey: unknown): void {
  if (typeof apiKey !== 'string') throw new NotifyKitError('The API key must be a string')
  if (apiKey.trim() === '') throw new NotifyKitError('The API key is empty')
  if (CONTROL_CHARACTER.test(apiKey)) {
    throw new NotifyKitError('The API key contains a control character (CR, LF, NUL, tab, …)')
  }
  if (!PRINTABLE_ASCII.test(apiKey)) throw new NotifyKitError('The API key contains a non-ASCII character')
  // Servers strip the spaces around a header value, so the key sent would not be the key given.
  if (apiKey.trim() !== apiKey) throw new NotifyKitError('The API key starts or ends with a space')
}

/** The server's limit: at most 255 characters; header-safe by construction. */
export function checkIdempotencyKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') return fail('must be a non-empty string')
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return fail(`must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters (got ${key.length})`)
  if (!PRINTABLE_ASCII.test(key)) {
    return fail('must contain printable ASCII characters only (no CR, LF, NUL or other control characters)')
  }
  return key
}

function fail(problem: string): never {
  throw invalidRequestOptions([{ path: ['idempotencyKey'], message: problem }])
}

/** The refusal of a call's options, whichever check found the problems. */
export function invalidRequestOptions(issues: ValidationIssue[]): RequestValidationError {
  return new RequestValidationError(issues, 'Invalid request options')
}
