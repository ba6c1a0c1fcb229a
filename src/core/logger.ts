/** Anything with these four methods: `console`, pino, winston, a test spy. */
export interface Logger {
  debug(message: string, ...details: unknown[]): void
  info(message: string, ...details: unknown[]): void
  warn(message: string, ...details: unknown[]): void
  error(message: string, ...details: unknown[]): void
}

/** `warn` by default; `debug` logs every attempt and, with `logBodies`, request and response bodies. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug'

export const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug']

const SEVERITY: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 }

/**
 * The SDK's own view of a logger: level filtering in one place, and a last line of defence that
 * scrubs the API key from anything about to be written, whatever a caller put in a message.
 * @internal
 */
export class LevelLogger {
  readonly level: LogLevel
  readonly #sink: Logger
  readonly #threshold: number
  readonly #secret: string

  constructor(sink: Logger, level: LogLevel, secret: string) {
    this.#sink = sink
    this.level = level
    this.#threshold = SEVERITY[level]
    this.#secret = secret
  }

  enabled(level: Exclude<LogLevel, 'off'>): boolean {
    return SEVERITY[level] <= this.#threshold
  }

  debug(message: string, details?: Record<string, unknown>): void {
    if (this.enabled('debug')) this.#write('debug', message, details)
  }

  info(message: string, details?: Record<string, unknown>): void {
    if (this.enabled('info')) this.#write('info', message, details)
  }

  warn(message: string, details?: Record<string, unknown>): void {
    if (this.enabled('warn')) this.#write('warn', message, details)
  }

  error(message: string, details?: Record<string, unknown>): void {
    if (this.enabled('error')) this.#write('error', message, details)
  }

  #write(level: Exclude<LogLevel, 'off'>, message: string, details?: Record<string, unknown>) {
    const line = redactSecret(`notifykit: ${message}`, this.#secret)
    if (details === undefined) this.#sink[level](line)
    else this.#sink[level](line, scrubDetails(details, this.#secret))
  }
}

/** Replaces every occurrence of the secret in a string. */
export function redactSecret(text: string, secret: string): string {
  return secret && text.includes(secret) ? text.split(secret).join('[redacted]') : text
}

function scrubDetails(details: Record<string, unknown>, secret: string): Record<string, unknown> {
  if (!secret) return details
  const serialized = safeStringify(details)
  return serialized.includes(secret) ? JSON.parse(redactSecret(serialized, secret)) : details
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return ''
  }
}

/** Header names whose values are never shown. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'])

/** A copy of the headers safe to log: credentials replaced by `[redacted]`. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(headers)) {
    copy[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value
  }
  return copy
}
