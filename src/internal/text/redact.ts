import type { ResponseHeaders } from '../http/response-headers.js'
import { isPlainObject } from '../validation/parse.js'

// Keeping the API key out of everything the SDK writes or hands back: log lines, errors raised by
// undici or a user's dispatcher, and responses from a server that echoes the key.

const REDACTED = '[redacted]'

/**
 * Below this length a key is a test key (`'k'`, `'test'`), not a secret: a real key is long and
 * random, and cannot occur by chance in a word, an id or a response, while a short one does (the `k`
 * of `notifykit`, a field named `test`).
 */
const MIN_REAL_KEY_LENGTH = 16

/** The Authorization header's value, whichever key it holds, unless it is already replaced. */
const AUTHORIZATION_VALUE = /\bApiKey (?!\[redacted\])[^\s"',;]+/g

/**
 * The function that takes the keys out of a text the SDK writes (a log line) or raises (a foreign
 * error). A real key is replaced wherever it occurs, inside a word or an encoded URL too. A test key
 * is replaced only where it stands alone (`ApiKey k`, `"k"`, `/k/`), so that it leaves other words
 * whole. Then any `ApiKey <value>` left is replaced too: the header's value never shows, whatever
 * the key's length or neighbours.
 */
export function keyRedactor(...secrets: string[]): (text: string) => string {
  const forms = secrets
    .filter(Boolean)
    .flatMap((secret) =>
      secretForms(secret).map((form) => ({ form, real: secret.length >= MIN_REAL_KEY_LENGTH })),
    )
  // The longest key first, whatever its pattern's length: a key that begins with another of the
  // family (`nk.` and `nk.live_…`) is replaced whole, not its first part alone.
  forms.sort((a, b) => b.form.length - a.form.length)
  const alternatives = forms.map(({ form, real }) => {
    const escaped = form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    if (real) return escaped
    // A boundary is required only on a side where the key itself begins or ends with a word character.
    const before = /^[\w-]/.test(form) ? '(?<![\\w-])' : ''
    const after = /[\w-]$/.test(form) ? '(?![\\w-])' : ''
    return before + escaped + after
  })
  const pattern = alternatives.length > 0 ? new RegExp(alternatives.join('|'), 'g') : undefined
  return (text) =>
    (pattern ? text.replace(pattern, REDACTED) : text).replace(AUTHORIZATION_VALUE, `ApiKey ${REDACTED}`)
}

/** Replaces every occurrence of one form of the secret in a string. */
function redactSecret(text: string, secret: string): string {
  return secret && text.includes(secret) ? text.split(secret).join(REDACTED) : text
}

function redactForms(text: string, forms: readonly string[]): string {
  return forms.reduce((result, form) => redactSecret(result, form), text)
}

const MAX_DEPTH = 32

/**
 * A copy of `value` with the secret replaced in every string, object keys included. It walks the
 * value instead of editing its JSON text, so that no secret, however short, can break the JSON apart.
 */
export function redactDeep(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value)
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_DEPTH) return '[too deep to log]'
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact, depth + 1))
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    // defineProperty, so that a `__proto__` key stays a key instead of replacing the copy's prototype.
    Object.defineProperty(copy, redact(key), {
      value: redactDeep(item, redact, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return copy
}

/**
 * Removes the secret, in place, from an error raised outside the SDK (undici, a dispatcher the user
 * passed) before the SDK wraps it as a `cause`: message, stack and string properties, through plain
 * objects, arrays and nested causes. undici's MockAgent, for one, prints the request headers,
 * `authorization` included, into its "Mock dispatch not matched" message.
 * @internal
 */
export function redactErrorSecret(error: unknown, secret: string): void {
  if (secret) scrubInPlace(error, keyRedactor(secret), 0, new Set())
}

/**
 * Scrubs responses of any echo of the secret: a server or proxy that repeats the key ("invalid key
 * sk_live_…") must not put it into error messages, `error.body`, `withResponse()` headers or results.
 * Built once per key, since it runs on every response: the search forms are computed here, and the
 * per-response checks are plain loops that allocate nothing when there is nothing to replace.
 * @internal
 */
export class ResponseSecretScrubber {
  readonly #forms: readonly string[]

  constructor(secret: string) {
    // A test key is not looked for at all: replacing it would rewrite ordinary data (`_id: 'test'`).
    this.#forms = secret.length < MIN_REAL_KEY_LENGTH ? [] : secretForms(secret)
  }

  /** The text with every echo replaced; the same string when there is none. */
  text(text: string): string {
    return includesAny(text, this.#forms) ? redactForms(text, this.#forms) : text
  }

  /** The headers with every echo replaced; the same object when there is none. */
  headers(headers: ResponseHeaders): ResponseHeaders {
    const forms = this.#forms
    if (forms.length === 0 || !headersEcho(headers, forms)) return headers
    const copy: ResponseHeaders = {}
    for (const [name, value] of Object.entries(headers)) {
      // defineProperty, so that a header named `__proto__` stays a header.
      Object.defineProperty(copy, name, {
        value: redactForms(value, forms),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return copy
  }
}

function includesAny(text: string, forms: readonly string[]): boolean {
  for (const form of forms) if (text.includes(form)) return true
  return false
}

function headersEcho(headers: ResponseHeaders, forms: readonly string[]): boolean {
  for (const name in headers) if (includesAny(headers[name] as string, forms)) return true
  return false
}

/** The secret as written, and as it appears inside a JSON string when it holds `"` or `\`. */
function secretForms(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1)
  return escaped === secret ? [secret] : [secret, escaped]
}

const MAX_ERROR_DEPTH = 8

function scrubInPlace(
  value: unknown,
  redact: (text: string) => string,
  depth: number,
  seen: Set<object>,
): void {
  if (value === null || typeof value !== 'object' || depth > MAX_ERROR_DEPTH || seen.has(value)) return
  seen.add(value)
  const isError = value instanceof Error
  // Live objects (sockets, requests) are not walked: only what an error carries as plain data.
  if (!isError && !Array.isArray(value) && !isPlainObject(value)) return
  const record = value as Record<string, unknown>
  const names = isError ? ['message', 'stack', ...Object.keys(record)] : Object.keys(record)
  for (const name of names) {
    const item = record[name]
    if (typeof item === 'string') {
      const redacted = redact(item)
      if (redacted !== item) setQuietly(record, name, redacted)
    } else {
      scrubInPlace(item, redact, depth + 1, seen)
    }
  }
  if (isError) scrubInPlace(value.cause, redact, depth + 1, seen)
  if (value instanceof AggregateError) scrubInPlace(value.errors, redact, depth + 1, seen)
}

function setQuietly(record: Record<string, unknown>, name: string, value: string): void {
  try {
    record[name] = value
  } catch {
    // A read-only property of a frozen foreign error: nothing more can be done in place.
  }
}
