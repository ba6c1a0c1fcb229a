import type { LogFields, Logger, LogLevel } from '../../core/logger.js'
import { keyRedactor, redactDeep } from './redact.js'

export const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug']

const SEVERITY: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 }

/**
 * The SDK's own view of a logger: level filtering in one place, and a last line of defence that
 * scrubs the API keys from anything about to be written, whatever a caller put in a message.
 * @internal
 */
export class LevelLogger {
  readonly #sink: Logger
  readonly #threshold: number
  /** The keys of the client family (a client and those `withOptions` derives), which grows. */
  readonly #secrets: ReadonlySet<string>
  #redact: (text: string) => string = (text) => text
  #redactedKeys = 0

  constructor(sink: Logger, level: LogLevel, secrets: ReadonlySet<string>) {
    this.#sink = sink
    this.#threshold = SEVERITY[level]
    this.#secrets = secrets
  }

  enabled(level: Exclude<LogLevel, 'off'>): boolean {
    return SEVERITY[level] <= this.#threshold
  }

  debug(message: string, fields: LogFields): void {
    if (this.enabled('debug')) this.#write('debug', message, fields)
  }

  info(message: string, fields: LogFields): void {
    if (this.enabled('info')) this.#write('info', message, fields)
  }

  warn(message: string, fields: LogFields): void {
    if (this.enabled('warn')) this.#write('warn', message, fields)
  }

  /** One call per line, `(message, fields)`, the fields one flat object: the `Logger` contract. */
  #write(level: Exclude<LogLevel, 'off'>, message: string, fields: LogFields) {
    try {
      // A derived client's key may stand in a body another client of the family logs.
      if (this.#secrets.size !== this.#redactedKeys) {
        this.#redact = keyRedactor(...this.#secrets)
        this.#redactedKeys = this.#secrets.size
      }
      const line = this.#redact(`notifykit: ${message}`)
      const facts = redactDeep(fields, this.#redact) as LogFields
      // console prints an object over several lines; log collectors expect one entry per line.
      if (this.#sink === console) console[level](`${line} ${JSON.stringify(facts)}`)
      else this.#sink[level](line, facts)
    } catch {
      // A logger that throws must not change the outcome of a call: a trigger that went out and was
      // then reported as failed would be sent again by the caller.
    }
  }
}
