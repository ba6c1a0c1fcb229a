import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  NotificationClient,
  type NotificationClientOptions,
  NotifyKitError,
  type NotifyKitHooks,
} from '../../src/index.js'
import { API_KEY, fakeConnection, seededFake } from '../helpers/fake.js'
import { captureLogs } from '../helpers/logs.js'
import { TRANSPORTS } from '../helpers/transport.js'

const EVENT = { name: 'welcome', to: 'alice' }
const RETRY_NOW = { status: 503, headers: { 'retry-after-ms': '0' } }

/** Hooks that write down every callback, as `name:detail`, in the order they came. */
function recordingHooks(log: string[], tag = ''): NotifyKitHooks<string> {
  return {
    onCallStart: ({ operation }, parent) => {
      log.push(`${tag}start:${operation}${parent ? ` in ${parent}` : ''}`)
      return `${tag}${operation}`
    },
    onAttempt: ({ attempt, status, error }, state) =>
      log.push(`${tag}attempt:${attempt} ${status} ${error?.code} (${state})`),
    onRetry: ({ attempt, reason, delayMs }) => log.push(`${tag}retry:${attempt} ${reason} ${delayMs}`),
    onCallEnd: ({ attempts, status, error }) => log.push(`${tag}end:${attempts} ${status} ${error?.code}`),
  }
}

describe.each(TRANSPORTS)('hooks over %s', (transport) => {
  const clientWith = (options: NotificationClientOptions) => {
    const fake = seededFake()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://fake.test',
      ...fakeConnection(fake, transport),
      ...options,
    })
    return { fake, client }
  }

  it('are called in order: start, each attempt, the retry between them, the end', async () => {
    const log: string[] = []
    const { fake, client } = clientWith({ hooks: recordingHooks(log) })
    fake.failNext(RETRY_NOW)
    await client.events.trigger(EVENT)
    expect(log).toEqual([
      'start:events.trigger',
      'attempt:1 503 undefined (events.trigger)',
      'retry:1 status 503 0',
      'attempt:2 201 undefined (events.trigger)',
      'end:2 201 undefined',
    ])
  })

  it('describe the call: operation, method, url template, server, key; the result and the duration', async () => {
    const seen: unknown[] = []
    const { client } = clientWith({
      hooks: {
        onCallStart: (call) => seen.push({ ...call }),
        onCallEnd: ({ call, result, durationMs }) =>
          seen.push({ key: call.idempotencyKey, result, durationMs }),
      },
    })
    const { transactionId } = await client.events.trigger(EVENT, { idempotencyKey: 'welcome-alice' })
    await client.events.cancel(String(transactionId))
    expect(seen).toEqual([
      {
        operation: 'events.trigger',
        method: 'POST',
        urlTemplate: '/v1/events/trigger',
        origin: 'https://fake.test',
        // Known at the end: the client makes one when the caller gave none.
        idempotencyKey: undefined,
        batch: false,
        headers: {},
      },
      {
        key: 'welcome-alice',
        result: expect.objectContaining({ transactionId }),
        durationMs: expect.any(Number),
      },
      expect.objectContaining({
        operation: 'events.cancel',
        method: 'DELETE',
        urlTemplate: '/v1/events/trigger/{transactionId}',
      }),
      { key: undefined, result: false, durationMs: expect.any(Number) },
    ])
  })

  it('see the key the client made, at the end', async () => {
    const keys: (string | undefined)[] = []
    const { fake, client } = clientWith({
      hooks: { onCallEnd: ({ call }) => keys.push(call.idempotencyKey) },
    })
    await client.events.trigger(EVENT)
    expect(keys).toEqual([fake.requests[0]?.headers['idempotency-key']])
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('see a call refused before sending: start and end, no attempt', async () => {
    const log: string[] = []
    const { client } = clientWith({ hooks: recordingHooks(log) })
    await expect(client.events.trigger({ name: '', to: 'u1' })).rejects.toThrow(NotifyKitError)
    expect(log).toEqual(['start:events.trigger', 'end:0 undefined NOTIFYKIT_REQUEST_VALIDATION'])
  })

  it.each([
    ['an array', () => Array.from({ length: 150 }, () => EVENT)],
    [
      'an async generator',
      async function* events() {
        for (let i = 0; i < 150; i++) yield EVENT
      },
    ],
  ])(
    'a bulk send from %s is one call, its requests calls of their own with its state as parent',
    async (_, events) => {
      const log: string[] = []
      const { client } = clientWith({ hooks: recordingHooks(log) })
      await client.events.triggerBulk(events(), { concurrency: 1, idempotencyKey: 'digest' })
      expect(log.filter((line) => !line.startsWith('attempt'))).toEqual([
        'start:events.triggerBulk',
        'start:events.triggerBulk in events.triggerBulk',
        'end:1 201 undefined',
        'start:events.triggerBulk in events.triggerBulk',
        'end:1 201 undefined',
        'end:2 201 undefined',
      ])
    },
  )

  it('a stream is no call of its own: each of its requests is one, with no parent', async () => {
    const log: string[] = []
    const { client } = clientWith({ hooks: recordingHooks(log) })
    const events = Array.from({ length: 150 }, () => EVENT)
    for await (const outcome of client.events.triggerStream(events, { concurrency: 1 })) {
      expect(outcome.error).toBeUndefined()
    }
    expect(log).toEqual([
      'start:events.triggerBulk',
      'attempt:1 201 undefined (events.triggerBulk)',
      'end:1 201 undefined',
      'start:events.triggerBulk',
      'attempt:1 201 undefined (events.triggerBulk)',
      'end:1 201 undefined',
    ])
  })

  it('an array of hooks: each called in order, each with its own state', async () => {
    const log: string[] = []
    const { client } = clientWith({ hooks: [recordingHooks(log, 'a.'), recordingHooks(log, 'b.')] })
    await client.events.cancel('tx-1')
    expect(log).toEqual([
      'a.start:events.cancel',
      'b.start:events.cancel',
      'a.attempt:1 200 undefined (a.events.cancel)',
      'b.attempt:1 200 undefined (b.events.cancel)',
      'a.end:1 200 undefined',
      'b.end:1 200 undefined',
    ])
  })

  it('withOptions({ hooks }) gives the derived client its own hooks', async () => {
    const parentLog: string[] = []
    const derivedLog: string[] = []
    const { client } = clientWith({ hooks: recordingHooks(parentLog) })
    const derived = client.withOptions({ hooks: recordingHooks(derivedLog) })
    await derived.events.cancel('tx-1')
    expect(parentLog).toEqual([])
    expect(derivedLog[0]).toBe('start:events.cancel')
    await client.withOptions({ timeoutMs: 1_000 }).events.cancel('tx-1')
    expect(parentLog[0]).toBe('start:events.cancel')
  })

  it('a hook that throws never fails a call, and is reported once at warn', async () => {
    const logs = captureLogs()
    const boom = () => {
      throw new Error('tracer down')
    }
    const log: string[] = []
    const throwing: NotifyKitHooks = {
      onCallStart: boom,
      wrapCall: boom,
      onAttempt: boom,
      onRetry: boom,
      onCallEnd: boom,
    }
    const { fake, client } = clientWith({ hooks: [throwing, recordingHooks(log)], logger: logs.logger })
    fake.failNext(RETRY_NOW)
    await expect(client.events.trigger(EVENT)).resolves.toMatchObject({ acknowledged: true })
    await expect(client.events.cancel('tx-1')).resolves.toBe(false)
    // Sent once per attempt, whatever the wrapper did; the other hooks saw everything.
    expect(fake.requests).toHaveLength(3)
    expect(log.filter((line) => line.startsWith('end'))).toEqual([
      'end:2 201 undefined',
      'end:1 200 undefined',
    ])
    const warnings = logs.lines.filter((line) => line.level === 'warn').map((line) => line.message)
    expect(warnings).toHaveLength(5)
    expect(warnings[0]).toBe('notifykit: hook onCallStart threw, ignored (reported once): tracer down')
  })

  describe('a hook written async whose promise rejects', () => {
    const unhandled = vi.fn()
    beforeEach(() => {
      unhandled.mockClear()
      process.on('unhandledRejection', unhandled)
    })
    afterEach(() => {
      process.off('unhandledRejection', unhandled)
    })

    const boom = async () => {
      throw new Error('boom')
    }
    const rejecting: [keyof NotifyKitHooks, NotifyKitHooks][] = [
      ['onCallStart', { onCallStart: boom }],
      [
        'wrapCall',
        {
          wrapCall: async (run) => {
            run()
            throw new Error('boom')
          },
        },
      ],
      ['onAttempt', { onAttempt: boom }],
      ['onRetry', { onRetry: boom }],
      ['onCallEnd', { onCallEnd: boom }],
    ]

    it.each(rejecting)(
      '%s: the call succeeds, nothing is left unhandled, and the rejection is reported once at warn',
      async (callback, hooks) => {
        const logs = captureLogs()
        const { fake, client } = clientWith({ hooks, logger: logs.logger })
        fake.failNext(RETRY_NOW)
        await expect(client.events.trigger(EVENT)).resolves.toMatchObject({ acknowledged: true })
        await expect(client.events.cancel('tx-1')).resolves.toBe(false)
        // Sent as without the hook: the 503 retried once, then the cancel.
        expect(fake.requests).toHaveLength(3)
        // Node reports an unhandled rejection after the microtasks of the turn: let a few turns pass.
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0))
        expect(unhandled).not.toHaveBeenCalled()
        const warnings = logs.lines.filter((line) => line.level === 'warn').map((line) => line.message)
        expect(warnings).toEqual([`notifykit: hook ${callback} rejected, ignored (reported once): boom`])
      },
    )
  })

  it('a wrapper runs the call inside it, once, even if it calls run twice or not at all', async () => {
    for (const wrapCall of [
      (run: () => void) => {
        run()
        run()
      },
      () => undefined,
    ]) {
      const { fake, client } = clientWith({ hooks: { wrapCall } })
      await client.events.cancel('tx-1')
      expect(fake.requests).toHaveLength(1)
    }
  })

  it('wrappers nest, the first hook outermost, and the call runs inside them', async () => {
    const log: string[] = []
    const wrapper = (name: string): NotifyKitHooks => ({
      wrapCall: (run) => {
        log.push(`${name} in`)
        run()
        log.push(`${name} out`)
      },
      onCallEnd: () => log.push(`${name} end`),
    })
    const { client } = clientWith({ hooks: [wrapper('a'), wrapper('b')] })
    await client.events.cancel('tx-1')
    expect(log).toEqual(['a in', 'b in', 'b out', 'a out', 'a end', 'b end'])
  })

  it('headers set in onCallStart go out on every attempt; the ones the client owns are never replaced', async () => {
    const logs = captureLogs()
    const { fake, client } = clientWith({
      logger: logs.logger,
      hooks: {
        onCallStart: ({ headers }) => {
          headers.traceparent = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`
          headers.Authorization = 'ApiKey stolen'
          headers['idempotency-key'] = 'other'
          headers['content-type'] = 'text/plain'
          headers['x-bad'] = 'a\r\nb'
        },
      },
    })
    fake.failNext(RETRY_NOW)
    await client.events.trigger(EVENT, { idempotencyKey: 'mine' })
    const sent = fake.requests.map((request) => request.headers)
    expect(sent).toHaveLength(2)
    for (const headers of sent) {
      expect(headers.traceparent).toBe(`00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`)
      expect(headers.authorization).toBe(`ApiKey ${API_KEY}`)
      expect(headers['idempotency-key']).toBe('mine')
      expect(headers['content-type']).toBe('application/json')
      expect(headers['x-bad']).toBeUndefined()
    }
    const warnings = logs.lines.filter((line) => line.level === 'warn').map((line) => line.message)
    expect(warnings).toEqual([
      'notifykit: hook header "Authorization", ignored (reported once): is set by the client and cannot be overridden here',
      'notifykit: hook header "idempotency-key", ignored (reported once): is set by the client and cannot be overridden here',
      'notifykit: hook header "x-bad", ignored (reported once): has a control character (CR, LF, NUL, tab, …) in its value',
    ])
  })

  it('a callback that is not a function, or hooks that are not an object, are reported at the call, never failing it', async () => {
    const logs = captureLogs()
    const { client } = clientWith({
      logger: logs.logger,
      hooks: [{}, { onCallEnd: 'no' }, null] as unknown as NotifyKitHooks[],
    })
    await expect(client.events.cancel('tx-1')).resolves.toBe(false)
    await expect(client.events.cancel('tx-1')).resolves.toBe(false)
    const warnings = logs.lines.filter((line) => line.level === 'warn').map((line) => line.message)
    // Once per callback, however many calls and hooks broke it.
    expect(warnings).toEqual([
      expect.stringMatching(/^notifykit: hook onCallStart threw, ignored \(reported once\): /),
      expect.stringMatching(/^notifykit: hook onAttempt threw, ignored \(reported once\): /),
      expect.stringMatching(/^notifykit: hook onCallEnd threw, ignored \(reported once\): .*not a function/),
    ])
  })

  it('an empty list of hooks is no hooks', async () => {
    const { fake, client } = clientWith({ hooks: [] })
    await client.events.cancel('tx-1')
    expect(fake.requests).toHaveLength(1)
  })
})
