import { describe, expect, it } from 'vitest'
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
    onAttemptStart: ({ attempt }, state) => log.push(`${tag}attemptStart:${attempt} (${state})`),
    onAttempt: ({ attempt, status, error }) => log.push(`${tag}attempt:${attempt} ${status} ${error?.code}`),
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
      'attemptStart:1 (events.trigger)',
      'attempt:1 503 NOTIFYKIT_INTERNAL_SERVER',
      'retry:1 status 503 0',
      'attemptStart:2 (events.trigger)',
      'attempt:2 201 undefined',
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
        serverAddress: 'fake.test',
        serverPort: 443,
        idempotencyKey: 'welcome-alice',
        batch: false,
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
        idempotencyKey: undefined,
      }),
      { key: undefined, result: false, durationMs: expect.any(Number) },
    ])
  })

  it('see a call refused before sending: start and end, no attempt', async () => {
    const log: string[] = []
    const { client } = clientWith({ hooks: recordingHooks(log) })
    await expect(client.events.trigger({ name: '', to: 'u1' })).rejects.toThrow(NotifyKitError)
    expect(log).toEqual(['start:events.trigger', 'end:0 undefined NOTIFYKIT_REQUEST_VALIDATION'])
  })

  it('a bulk send is one call, its requests calls of their own with its state as parent', async () => {
    const log: string[] = []
    const { client } = clientWith({ hooks: recordingHooks(log) })
    const events = Array.from({ length: 150 }, () => EVENT)
    await client.events.triggerBulk(events, { concurrency: 1, idempotencyKey: 'digest' })
    expect(log.filter((line) => !line.startsWith('attempt'))).toEqual([
      'start:events.triggerBulk',
      'start:events.triggerBulk in events.triggerBulk',
      'end:1 201 undefined',
      'start:events.triggerBulk in events.triggerBulk',
      'end:1 201 undefined',
      'end:2 201 undefined',
    ])
  })

  it('an array of hooks: each called in order, each with its own state', async () => {
    const log: string[] = []
    const { client } = clientWith({ hooks: [recordingHooks(log, 'a.'), recordingHooks(log, 'b.')] })
    await client.events.cancel('tx-1')
    expect(log).toEqual([
      'a.start:events.cancel',
      'b.start:events.cancel',
      'a.attemptStart:1 (a.events.cancel)',
      'b.attemptStart:1 (b.events.cancel)',
      'a.attempt:1 200 undefined',
      'b.attempt:1 200 undefined',
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
      onAttemptStart: boom,
      wrapAttempt: boom,
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
    expect(warnings).toHaveLength(6)
    expect(warnings[0]).toBe('notifykit: hooks: onCallStart threw, ignored (reported once): tracer down')
  })

  it('a wrapper runs the attempt inside it, once, even if it calls send twice or not at all', async () => {
    for (const wrapAttempt of [
      (send: () => void) => {
        send()
        send()
      },
      () => undefined,
    ]) {
      const { fake, client } = clientWith({ hooks: { wrapAttempt } })
      await client.events.cancel('tx-1')
      expect(fake.requests).toHaveLength(1)
    }
  })

  it('headers set in onAttemptStart go out on that attempt; the ones the client owns are never replaced', async () => {
    const logs = captureLogs()
    const { fake, client } = clientWith({
      logger: logs.logger,
      hooks: {
        onAttemptStart: ({ attempt, headers }) => {
          headers.traceparent = `00-${'1'.repeat(32)}-${String(attempt).padStart(16, '0')}-01`
          headers.Authorization = 'ApiKey stolen'
          headers['idempotency-key'] = 'other'
          headers['x-bad'] = 'a\r\nb'
        },
      },
    })
    fake.failNext(RETRY_NOW)
    await client.events.trigger(EVENT, { idempotencyKey: 'mine' })
    const sent = fake.requests.map((request) => request.headers)
    expect(sent.map((headers) => headers.traceparent?.slice(36, 52))).toEqual([
      '0000000000000001',
      '0000000000000002',
    ])
    for (const headers of sent) {
      expect(headers.authorization).toBe(`ApiKey ${API_KEY}`)
      expect(headers['idempotency-key']).toBe('mine')
      expect(headers['x-bad']).toBeUndefined()
    }
  })

  it('a hooks option that is not hooks is a configuration error at construction', () => {
    const construct = (hooks: unknown) => () =>
      new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', hooks: hooks as NotifyKitHooks })
    expect(construct(42)).toThrow('hooks must be an object of callbacks (onCallStart, onCallEnd…)')
    expect(construct([{}, { onCallEnd: 'no' }])).toThrow('hooks[1].onCallEnd must be a function')
  })
})
