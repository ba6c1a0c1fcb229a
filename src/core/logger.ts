/**
 * The facts of one log line as one flat object, for structured loggers: `method`, `path`, `status`
 * (or `error`, the error's class, when no response came), `durationMs`, `attempt`, `requestId` on an
 * attempt line; `attempt`, `maxAttempts`, `delayMs`, `reason` on a retry line; `issues` on a drift
 * warning; `requestBody` and `responseBody` with `logBodies`.
 */
export type LogFields = Readonly<Record<string, unknown>>

/**
 * Where the client's log lines go: anything with these four methods. Each line is one call,
 * `logger[level](message, fields)`: the whole line as text, starting with `notifykit:`, then its
 * facts as one flat object, whose keys a structured logger puts at the top level of its entry.
 * `console` and winston take that order as they are (winston merges the object into the entry).
 * pino and bunyan take the object first: `logger: pino()` would compile and drop the fields, so swap
 * the arguments.
 * @example
 * ```ts
 * const log = pino()
 * const logger: Logger = {
 *   debug: (message, fields) => log.debug(fields, message),
 *   info: (message, fields) => log.info(fields, message),
 *   warn: (message, fields) => log.warn(fields, message),
 *   error: (message, fields) => log.error(fields, message),
 * }
 * new NotificationClient({ logger, logLevel: 'debug' })
 * ```
 */
export interface Logger {
  debug(message: string, fields: LogFields): void
  info(message: string, fields: LogFields): void
  warn(message: string, fields: LogFields): void
  error(message: string, fields: LogFields): void
}

/** `warn` by default; `debug` logs every attempt and, with `logBodies`, request and response bodies. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug'
