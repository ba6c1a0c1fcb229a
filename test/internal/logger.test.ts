import { HttpResponse, http } from 'msw'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  type LogFields,
  type Logger,
  type LogLevel,
  NotificationClient,
  type NotificationClientOptions,
  NotifyKitError,
} from '../../src/index.js'
import { LevelLogger } from '../../src/internal/text/level-logger.js'
import { createMswDispatcher } from '../../src/testing/msw/index.js'
import { captureLogs, type SinkLevel } from '../helpers/logs.js'
import { startServer } from '../helpers/servers.js'
import { rejectionOf } from '../helpers/wire.js'

const API_KEY = 'nk_live_9d2f61c0e8b34a7f'
const BASE_URL = 'https://api.test'
const TRIGGER = { name: 'welcome', to: 'user-1', payload: { email: 'ada@example.com' } }

/**
 * A trigger that produces a line at every level the SDK logs at: a 503 (an attempt line at debug,
 * a retry line at info), then a 201 whose result drifted from its schema (an attempt line at debug,
 * a warning). `retry-after-ms: 0` keeps the retry immediate.
 */
function flakyThenDriftingServer() {
  let calls = 0
  return http.post(`${BASE_URL}/v1/events/trigger`, async ({ request }) => {
    calls++
    await request.text()
    if (calls === 1) {
      return HttpResponse.json(
        { statusCode: 503, message: 'try again', error: 'Service Unavailable' },
        { status: 503, headers: { 'retry-after-ms': '0', 'x-request-id': 'req-first' } },
      )
    }
    return HttpResponse.json(
      { data: { acknowledged: 'yes', status: 'processed', transactionId: 'tx-1' } },
      { status: 201, headers: { 'x-request-id': 'req-second' } },
    )
  })
}

function clientWith(options: NotificationClientOptions, handlers = [flakyThenDriftingServer()]) {
  return new NotificationClient({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    dispatcher: createMswDispatcher(handlers),
    ...options,
  })
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('logLevel', () => {
  it.each<[LogLevel | undefined, Record<SinkLevel, number>]>([
    ['off', { debug: 0, info: 0, warn: 0, error: 0 }],
    ['error', { debug: 0, info: 0, warn: 0, error: 0 }],
    ['warn', { debug: 0, info: 0, warn: 1, error: 0 }],
    [undefined, { debug: 0, info: 0, warn: 1, error: 0 }],
    ['info', { debug: 0, info: 1, warn: 1, error: 0 }],
    ['debug', { debug: 2, info: 1, warn: 1, error: 0 }],
  ])(
    '%s: writes exactly the lines at or above the level, each to its own method',
    async (logLevel, expected) => {
      const { logger, countByLevel } = captureLogs()
      const client = clientWith(logLevel === undefined ? { logger } : { logger, logLevel })
      await client.events.trigger(TRIGGER)
      expect(countByLevel()).toEqual(expected)
    },
  )

  it('the retry line at info says what is retried, why, and which attempt comes next', async () => {
    const { logger, lines } = captureLogs()
    await clientWith({ logger, logLevel: 'info' }).events.trigger(TRIGGER)
    const retry = lines.find((line) => line.level === 'info')
    expect(retry?.args[0]).toMatch(/^notifykit: retrying POST \/v1\/events\/trigger in 0 ms: status 503$/)
    expect(retry?.args[1]).toMatchObject({ attempt: 2, maxAttempts: 3, delayMs: 0, reason: 'status 503' })
  })

  it('the schema-drift warning names the operation', async () => {
    const { logger, lines } = captureLogs()
    await clientWith({ logger }).events.trigger(TRIGGER)
    expect(lines).toHaveLength(1)
    expect(lines[0]?.level).toBe('warn')
    expect(lines[0]?.args[0]).toContain('events.trigger')
  })

  it('falls back to NOTIFYKIT_LOG, in any case, and the option wins over it', async () => {
    vi.stubEnv('NOTIFYKIT_LOG', 'DEBUG')
    const fromEnv = captureLogs()
    await clientWith({ logger: fromEnv.logger }).events.trigger(TRIGGER)
    expect(fromEnv.countByLevel()).toEqual({ debug: 2, info: 1, warn: 1, error: 0 })

    const fromOption = captureLogs()
    await clientWith({ logger: fromOption.logger, logLevel: 'off' }).events.trigger(TRIGGER)
    expect(fromOption.lines).toEqual([])
  })

  it('an empty NOTIFYKIT_LOG means the default, warn', async () => {
    vi.stubEnv('NOTIFYKIT_LOG', '')
    const { logger, countByLevel } = captureLogs()
    await clientWith({ logger }).events.trigger(TRIGGER)
    expect(countByLevel()).toEqual({ debug: 0, info: 0, warn: 1, error: 0 })
  })

  it('an unknown level, from the option or NOTIFYKIT_LOG, fails at construction and lists the levels', () => {
    vi.stubEnv('NOTIFYKIT_LOG', 'verbose')
    expect(() => clientWith({})).toThrow(NotifyKitError)
    expect(() => clientWith({})).toThrow(/NOTIFYKIT_LOG.*off, error, warn, info, debug/)
    vi.unstubAllEnvs()
    expect(() => clientWith({ logLevel: 'trace' as LogLevel })).toThrow(/off, error, warn, info, debug/)
  })

  it('writes to console when no logger is given', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await clientWith({}).events.trigger(TRIGGER)
      expect(warn).toHaveBeenCalledTimes(1)
      expect(warn.mock.calls[0]?.[0]).toContain('events.trigger')
    } finally {
      warn.mockRestore()
    }
  })
})

describe('debug: one line per attempt', () => {
  it('each attempt is one call whose message holds method, path, status, duration, attempt and request id', async () => {
    const { logger, lines } = captureLogs()
    await clientWith({ logger, logLevel: 'debug' }).events.trigger(TRIGGER)
    const attempts = lines.filter((line) => line.level === 'debug')
    expect(attempts).toHaveLength(2)
    const [first, second] = attempts.map((line) => line.args)
    expect(first?.[0]).toMatch(
      /^notifykit: POST \/v1\/events\/trigger 503 in \d+ ms \(attempt 1, request req-first\)$/,
    )
    expect(first?.[1]).toEqual({
      method: 'POST',
      path: '/v1/events/trigger',
      status: 503,
      durationMs: expect.any(Number),
      attempt: 1,
      requestId: 'req-first',
    })
    expect(second?.[0]).toMatch(
      /^notifykit: POST \/v1\/events\/trigger 201 in \d+ ms \(attempt 2, request req-second\)$/,
    )
    expect(second?.[1]).toMatchObject({ status: 201, attempt: 2, requestId: 'req-second' })
  })

  it('an attempt without a response is logged too, with the error instead of a status', async () => {
    const { logger, lines } = captureLogs()
    const client = clientWith({ logger, logLevel: 'debug', maxRetries: 0 }, [
      http.post(`${BASE_URL}/v1/events/trigger`, () => Response.error()),
    ])
    const error = (await rejectionOf(client.events.trigger(TRIGGER))) as NotifyKitError
    // A dropped connection gets one free retry (stale keep-alive socket): two attempts, two lines.
    const attempts = lines.filter((line) => line.level === 'debug')
    expect(attempts).toHaveLength(error.attempts)
    expect(attempts.length).toBeGreaterThan(0)
    attempts.forEach((line, index) => {
      expect(line.args[0]).toMatch(
        new RegExp(`^notifykit: POST /v1/events/trigger failed in \\d+ ms \\(attempt ${index + 1}\\): `),
      )
      expect(line.args[1]).toEqual({
        method: 'POST',
        path: '/v1/events/trigger',
        error: 'ConnectionError',
        durationMs: expect.any(Number),
        attempt: index + 1,
      })
    })
  })

  it('an attempt cut short by the deadline is still logged', async () => {
    const server = await startServer(() => {
      // Never answers: the deadline ends the attempt.
    })
    const { logger, lines } = captureLogs()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: server.baseUrl,
      logger,
      logLevel: 'debug',
    })
    try {
      await rejectionOf(client.events.trigger(TRIGGER, { deadlineMs: 50 }))
      expect(lines.map((line) => line.args[0])).toEqual([
        expect.stringMatching(/^notifykit: POST \/v1\/events\/trigger failed in \d+ ms \(attempt 1\): /),
      ])
    } finally {
      await client.close()
      await server.close()
    }
  })
})

describe('console, the default logger', () => {
  it('gets one single-line string per entry, the details as JSON on the same line', async () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {})
    const info = vi.spyOn(console, 'info').mockImplementation(() => {})
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await clientWith({ logLevel: 'debug', logBodies: true }).events.trigger(TRIGGER)
      const calls = [...debug.mock.calls, ...info.mock.calls, ...warn.mock.calls]
      expect(calls).toHaveLength(4)
      for (const call of calls) {
        expect(call).toHaveLength(1)
        expect(call[0]).toMatch(/^notifykit: [^\n]+ \{.*\}$/)
      }
      const [, json] = /^notifykit: POST \/v1\/events\/trigger 201 [^{]+ (\{.*\})$/.exec(
        String(debug.mock.calls[1]?.[0]),
      ) ?? ['', '{}']
      expect(JSON.parse(json)).toMatchObject({ status: 201, attempt: 2, requestId: 'req-second' })
      expect(JSON.parse(json).requestBody).toBe(JSON.stringify(TRIGGER))
    } finally {
      debug.mockRestore()
      info.mockRestore()
      warn.mockRestore()
    }
  })
})

describe('structured loggers get the facts as top-level fields', () => {
  type Entry = Record<string, unknown>

  /**
   * pino's calling convention, as pino 10 behaves: `(object, message)` merges the object's keys into
   * the entry beside `msg`; `(message, ...args)` keeps the message alone (args only fill `%s`-style
   * placeholders). Entries are JSON, as pino writes them.
   */
  function pinoShaped() {
    const entries: Entry[] = []
    const levels = { debug: 20, info: 30, warn: 40, error: 50 }
    const method =
      (level: number) =>
      (first: object | string, message?: string): void => {
        const entry = typeof first === 'string' ? { level, msg: first } : { level, ...first, msg: message }
        entries.push(JSON.parse(JSON.stringify(entry)))
      }
    const log = {
      debug: method(levels.debug),
      info: method(levels.info),
      warn: method(levels.warn),
      error: method(levels.error),
    }
    return { log, entries }
  }

  /** winston's convention, as winston 3 behaves: `(message, meta)` merges the meta object into the entry. */
  function winstonShaped() {
    const entries: Entry[] = []
    const method =
      (level: string) =>
      (message: string, ...meta: unknown[]): void => {
        const merged = meta.length === 1 && typeof meta[0] === 'object' ? meta[0] : {}
        entries.push(JSON.parse(JSON.stringify({ ...merged, level, message })))
      }
    return {
      logger: { debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error') },
      entries,
    }
  }

  const FIRST_ATTEMPT = {
    method: 'POST',
    path: '/v1/events/trigger',
    status: 503,
    durationMs: expect.any(Number),
    attempt: 1,
    requestId: 'req-first',
  }
  const RETRY = { attempt: 2, maxAttempts: 3, delayMs: 0, reason: 'status 503' }

  it('every line is one call, (message, fields), the fields one flat object', async () => {
    const { logger, lines } = captureLogs()
    await clientWith({ logger, logLevel: 'debug' }).events.trigger(TRIGGER)
    expect(lines).toHaveLength(4)
    for (const line of lines) {
      expect(line.args).toHaveLength(2)
      expect(line.args[0]).toMatch(/^notifykit: /)
      expect(Object.getPrototypeOf(line.args[1])).toBe(Object.prototype)
    }
    expect(lines[0]?.args[1]).toEqual(FIRST_ATTEMPT)
  })

  it('pino, through the adapter the README shows: the fields beside msg, under no key', async () => {
    const { log, entries } = pinoShaped()
    const logger: Logger = {
      debug: (message, fields) => log.debug(fields, message),
      info: (message, fields) => log.info(fields, message),
      warn: (message, fields) => log.warn(fields, message),
      error: (message, fields) => log.error(fields, message),
    }
    await clientWith({ logger, logLevel: 'debug' }).events.trigger(TRIGGER)
    expect(entries[0]).toEqual({
      level: 20,
      ...FIRST_ATTEMPT,
      msg: expect.stringMatching(/^notifykit: POST \/v1\/events\/trigger 503 in \d+ ms/),
    })
    expect(entries[1]).toEqual({ level: 30, ...RETRY, msg: expect.stringMatching(/^notifykit: retrying/) })
    expect(entries.find((entry) => entry.level === 40)).toEqual({
      level: 40,
      issues: [expect.objectContaining({ path: expect.any(Array), message: expect.any(String) })],
      msg: expect.stringContaining('events.trigger'),
    })
  })

  it('winston, passed as it is: the fields beside message, under no key', async () => {
    const { logger, entries } = winstonShaped()
    await clientWith({ logger, logLevel: 'debug' }).events.trigger(TRIGGER)
    expect(entries[0]).toEqual({
      level: 'debug',
      ...FIRST_ATTEMPT,
      message: expect.stringMatching(/^notifykit: POST \/v1\/events\/trigger 503 in \d+ ms/),
    })
    expect(entries[1]).toEqual({
      level: 'info',
      ...RETRY,
      message: expect.stringMatching(/^notifykit: retrying/),
    })
  })

  it('console: the JSON on the line is the flat object, under no key', async () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {})
    const info = vi.spyOn(console, 'info').mockImplementation(() => {})
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await clientWith({ logLevel: 'debug' }).events.trigger(TRIGGER)
      const jsonOf = (line: unknown) =>
        JSON.parse(/ (\{.*\})$/.exec(String(line))?.[1] ?? 'null') as LogFields
      expect(jsonOf(debug.mock.calls[0]?.[0])).toEqual(FIRST_ATTEMPT)
      expect(jsonOf(info.mock.calls[0]?.[0])).toEqual(RETRY)
    } finally {
      debug.mockRestore()
      info.mockRestore()
      warn.mockRestore()
    }
  })
})

describe('bodies', () => {
  const bodyMarker = 'ada@example.com'

  it('are never logged without logBodies, even at debug', async () => {
    const { logger, lines } = captureLogs()
    await clientWith({ logger, logLevel: 'debug' }).events.trigger(TRIGGER)
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) {
      expect(line.rendered).not.toContain(bodyMarker)
      expect(line.rendered).not.toContain('tx-1')
    }
  })

  it('are logged with logBodies at debug: the request and the response body on the attempt line', async () => {
    const { logger, lines } = captureLogs()
    await clientWith({ logger, logLevel: 'debug', logBodies: true }).events.trigger(TRIGGER)
    const last = lines.filter((line) => line.level === 'debug').at(-1)
    expect(last?.args[1]).toMatchObject({ status: 201 })
    const details = last?.args[1] as { requestBody: string; responseBody: string }
    expect(JSON.parse(details.requestBody)).toEqual(TRIGGER)
    expect(JSON.parse(details.responseBody)).toEqual({
      data: { acknowledged: 'yes', status: 'processed', transactionId: 'tx-1' },
    })
  })

  it.each<LogLevel>(['info', 'warn'])('are not logged at %s, even with logBodies', async (logLevel) => {
    const { logger, lines } = captureLogs()
    await clientWith({ logger, logLevel, logBodies: true }).events.trigger(TRIGGER)
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(line.rendered).not.toContain(bodyMarker)
  })
})

// The logger's last line of defence: whatever the SDK or a future caller puts in the fields, the key
// does not reach the sink, as an object key no more than as a value.
describe('the key in a log field', () => {
  function logged(apiKey: string, fields: LogFields): unknown[] {
    const { logger, lines } = captureLogs()
    new LevelLogger(logger, 'debug', new Set([apiKey])).warn('line', fields)
    return lines.map((line) => line.details)
  }

  it('used as an object key, at any depth and inside arrays, is redacted', () => {
    const fields = {
      [API_KEY]: 1,
      nested: { [`prefix-${API_KEY}`]: { [API_KEY]: 2 } },
      list: [{ [API_KEY]: 3 }],
    }
    expect(logged(API_KEY, fields)).toEqual([
      { '[redacted]': 1, nested: { 'prefix-[redacted]': { '[redacted]': 2 } }, list: [{ '[redacted]': 3 }] },
    ])
  })

  it('a test key used as an object key is redacted where it is the whole key, and leaves other keys whole', () => {
    expect(logged('k', { k: 1, kind: 2 })).toEqual([{ '[redacted]': 1, kind: 2 }])
  })
})

// A client and those `withOptions` derives may hold other keys (one per tenant): a body one of them
// logs may carry another's key, and no client of the family writes any of them.
describe('the keys of a client family', () => {
  const TENANT_KEY = 'nk_live_tenant_7c41e2a9b06d'

  it('a body naming the other key is redacted in the logs of the parent and of the derived client', async () => {
    const { logger, lines } = captureLogs()
    const parent = clientWith({ logger, logLevel: 'debug', logBodies: true }, [
      http.post(`${BASE_URL}/v1/events/trigger`, () =>
        HttpResponse.json({ data: { acknowledged: true, status: 'processed' } }, { status: 201 }),
      ),
    ])
    // The parent logs before the other key exists, and after.
    await parent.events.trigger({ name: 'welcome', to: 'user-1' })
    const tenant = parent.withOptions({ apiKey: TENANT_KEY })
    await tenant.events.trigger({ name: 'welcome', to: 'user-1', payload: { note: API_KEY } })
    await parent.events.trigger({ name: 'welcome', to: 'user-1', payload: { note: TENANT_KEY } })
    const rendered = lines.map((line) => line.rendered).join('\n')
    expect(rendered).toContain('[redacted]')
    expect(rendered).not.toContain(API_KEY)
    expect(rendered).not.toContain(TENANT_KEY)
  })
})
