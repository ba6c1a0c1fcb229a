/**
 * Anything with these four methods: `console`, pino, winston, a test spy. Each line is a message
 * string, then an object of details.
 * @example
 * ```ts
 * // pino takes the object first: adapt it, or pass `console` as it is.
 * const logger: Logger = {
 *   debug: (message, ...details) => pinoLogger.debug({ details }, message),
 *   info: (message, ...details) => pinoLogger.info({ details }, message),
 *   warn: (message, ...details) => pinoLogger.warn({ details }, message),
 *   error: (message, ...details) => pinoLogger.error({ details }, message),
 * }
 * new NotificationClient({ logger, logLevel: 'debug' })
 * ```
 */
export interface Logger {
  debug(message: string, ...details: unknown[]): void
  info(message: string, ...details: unknown[]): void
  warn(message: string, ...details: unknown[]): void
  error(message: string, ...details: unknown[]): void
}

/** `warn` by default; `debug` logs every attempt and, with `logBodies`, request and response bodies. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug'
