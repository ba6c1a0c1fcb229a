import { formatWithOptions } from 'node:util'
import { vi } from 'vitest'
import type { Logger, LogLevel } from '../../src/index.js'

export type SinkLevel = Exclude<LogLevel, 'off'>

export interface LogLine {
  level: SinkLevel
  /** What the SDK passed to the logger method. */
  args: unknown[]
  /** The first argument, the line's text. */
  message: string
  /** The second argument, the structured details, when there is one. */
  details: Record<string, unknown> | undefined
  /** The line as `console` would print it, plus the arguments as JSON: what ends up in a log store. */
  rendered: string
}

export interface CapturedLogs {
  /** A logger of the simplest kind the option accepts: four methods, nothing else. */
  logger: Logger
  lines: LogLine[]
  /** The retry lines, logged at info. */
  retries(): LogLine[]
  /** Resolves with the next retry line not yet returned; the backoff timer is armed by the time it is logged. */
  nextRetry(): Promise<LogLine>
  countByLevel(): Record<SinkLevel, number>
}

/** Records every line given to the logger. */
export function captureLogs(): CapturedLogs {
  const lines: LogLine[] = []
  let retriesSeen = 0
  let wake: (() => void) | undefined
  const method =
    (level: SinkLevel) =>
    (...args: unknown[]) => {
      const printed = formatWithOptions({ depth: Number.POSITIVE_INFINITY }, ...args)
      lines.push({
        level,
        args,
        message: String(args[0]),
        details: args[1] as Record<string, unknown> | undefined,
        rendered: `${printed}\n${JSON.stringify(args)}`,
      })
      wake?.()
    }
  const retries = () => lines.filter((line) => line.level === 'info' && line.message.includes('retrying'))
  return {
    logger: { debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error') },
    lines,
    retries,
    async nextRetry() {
      while (retries().length <= retriesSeen) await new Promise<void>((resolve) => (wake = resolve))
      return retries()[retriesSeen++]!
    },
    countByLevel() {
      const counts = { debug: 0, info: 0, warn: 0, error: 0 }
      for (const line of lines) counts[line.level]++
      return counts
    },
  }
}

/** A logger that drops everything: lenient-mode warnings would flood property runs. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
}

/** A logger whose calls can be counted and read with vitest's mock API. */
export function spyLogger() {
  return { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger
}
