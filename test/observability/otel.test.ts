import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { NotificationClient, type NotificationClientOptions } from '../../src/index.js'
import { type OtelHooksOptions, otelHooks } from '../../src/otel/index.js'
import { API_KEY, fakeConnection, seededFake } from '../helpers/fake.js'
import { installGlobalContext, otelProviders, parseTraceparent } from '../helpers/otel.js'
import { TRANSPORTS } from '../helpers/transport.js'

const EVENT = { name: 'welcome', to: 'alice' }
const RETRY_NOW = { status: 503, headers: { 'retry-after-ms': '0' } }

let restoreGlobals: () => void
beforeAll(() => {
  restoreGlobals = installGlobalContext()
})
afterAll(() => restoreGlobals())

describe.each(TRANSPORTS)('otelHooks over %s', (transport) => {
  // Fresh providers per test: metrics are cumulative.
  let otel = otelProviders()
  beforeEach(() => {
    otel = otelProviders()
  })

  const setup = (hookOptions: OtelHooksOptions = {}, options: NotificationClientOptions = {}) => {
    const fake = seededFake()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://fake.test',
      ...fakeConnection(fake, transport),
      hooks: otelHooks({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
        ...hookOptions,
      }),
      ...options,
    })
    return { fake, client }
  }

  const only = (spans: ReadableSpan[]) => {
    expect(spans).toHaveLength(1)
    return spans[0] as ReadableSpan
  }

  it('one CLIENT span per call, named after the operation, with the HTTP client attributes', async () => {
    const { client } = setup()
    const { transactionId } = await client.events.trigger(EVENT)
    const calls: [string, string, string, number, () => PromiseLike<unknown>][] = [
      [
        'events.broadcast',
        'POST',
        '/v1/events/trigger/broadcast',
        201,
        () => client.events.broadcast({ name: 'welcome', payload: {} }),
      ],
      [
        'events.cancel',
        'DELETE',
        '/v1/events/trigger/{transactionId}',
        200,
        () => client.events.cancel(String(transactionId)),
      ],
      [
        'notifications.get',
        'GET',
        '/v1/notifications/{notificationId}',
        404,
        () => client.notifications.get('000000000000000000000000').then(undefined, () => undefined),
      ],
      [
        'subscribers.preferences.update',
        'PATCH',
        '/v2/subscribers/{subscriberId}/preferences',
        200,
        () => client.subscribers.preferences.update('alice', {}),
      ],
      [
        'subscribers.messages.markAll',
        'POST',
        '/v1/subscribers/{subscriberId}/messages/mark-all',
        201,
        () => client.subscribers.messages.markAll('alice', { markAs: 'read' }),
      ],
    ]
    const trigger = only(otel.spans())
    expect(trigger.name).toBe('events.trigger')
    expect(trigger.kind).toBe(SpanKind.CLIENT)
    expect(trigger.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': 'fake.test',
      'server.port': 443,
      'url.template': '/v1/events/trigger',
      'http.response.status_code': 201,
      'notifykit.operation': 'events.trigger',
      'notifykit.attempts': 1,
    })
    expect(trigger.status.code).toBe(SpanStatusCode.UNSET)
    for (const [name, method, template, status, call] of calls) {
      otel.reset()
      await call()
      const span = only(otel.spans())
      expect(span.name).toBe(name)
      expect(span.kind).toBe(SpanKind.CLIENT)
      expect(span.attributes).toMatchObject({
        'http.request.method': method,
        'url.template': template,
        'http.response.status_code': status,
        'notifykit.operation': name,
      })
    }
  })

  it('a span of the caller is the parent of ours', async () => {
    const { client } = setup()
    const parent = otel.tracerProvider.getTracer('app').startSpan('handle-signup')
    await context.with(trace.setSpan(context.active(), parent), () => client.events.trigger(EVENT))
    parent.end()
    const [ours, theirs] = otel.spans()
    expect(ours?.parentSpanContext?.spanId).toBe(theirs?.spanContext().spanId)
    expect(ours?.spanContext().traceId).toBe(theirs?.spanContext().traceId)
  })

  it('a retried call: one span, a retry event, notifykit.attempts 2', async () => {
    const { fake, client } = setup()
    fake.failNext(RETRY_NOW)
    await client.events.trigger(EVENT)
    const span = only(otel.spans())
    expect(span.attributes['notifykit.attempts']).toBe(2)
    expect(span.attributes['http.response.status_code']).toBe(201)
    expect(span.events.map(({ name, attributes }) => ({ name, attributes }))).toEqual([
      {
        name: 'notifykit.retry',
        attributes: {
          'notifykit.retry.reason': 'status 503',
          'notifykit.retry.delay_ms': 0,
          'notifykit.retry.attempt': 2,
        },
      },
    ])
    const retries = await otel.points('notifykit.retries')
    expect(retries).toEqual([
      expect.objectContaining({
        attributes: { 'notifykit.operation': 'events.trigger', 'notifykit.retry.reason': 'status 503' },
        value: 1,
      }),
    ])
  })

  it('a failed call: status ERROR, error.type the error class code, the last status', async () => {
    const { fake, client } = setup({}, { maxRetries: 1 })
    fake.failNext({ ...RETRY_NOW, times: 2 })
    await expect(client.events.trigger(EVENT)).rejects.toMatchObject({ code: 'NOTIFYKIT_INTERNAL_SERVER' })
    const span = only(otel.spans())
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'InternalServerError' })
    expect(span.attributes).toMatchObject({
      'error.type': 'NOTIFYKIT_INTERNAL_SERVER',
      'http.response.status_code': 503,
      'notifykit.attempts': 2,
    })
  })

  it('a call refused before sending is a failed span with no status code', async () => {
    const { client } = setup()
    await expect(client.events.trigger({ name: '', to: 'u1' })).rejects.toThrow()
    const span = only(otel.spans())
    expect(span.attributes['error.type']).toBe('NOTIFYKIT_REQUEST_VALIDATION')
    expect(span.attributes['notifykit.attempts']).toBe(0)
    expect(span.attributes['http.response.status_code']).toBeUndefined()
  })

  it('a bulk send of 250: one parent span, three children, one per request', async () => {
    const { client } = setup()
    const events = Array.from({ length: 250 }, () => EVENT)
    await client.events.triggerBulk(events)
    const spans = otel.spans()
    const parent = spans.find((span) => span.name === 'events.triggerBulk') as ReadableSpan
    const children = spans.filter((span) => span !== parent)
    expect(parent.kind).toBe(SpanKind.INTERNAL)
    expect(parent.attributes['notifykit.attempts']).toBe(3)
    expect(children).toHaveLength(3)
    for (const child of children) {
      expect(child.name).toBe('events.triggerBulk.chunk')
      expect(child.kind).toBe(SpanKind.CLIENT)
      expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
      expect(child.attributes['http.response.status_code']).toBe(201)
    }
    const triggered = await otel.points('notifykit.events.triggered')
    expect(triggered).toEqual([
      expect.objectContaining({ attributes: { 'notifykit.operation': 'events.triggerBulk' }, value: 250 }),
    ])
  })

  it('the idempotency key is an attribute only when asked for', async () => {
    const quiet = setup()
    await quiet.client.events.trigger(EVENT, { idempotencyKey: 'user-42-welcome' })
    expect(only(otel.spans()).attributes['notifykit.idempotency_key']).toBeUndefined()
    otel.reset()
    const { client } = setup({ recordIdempotencyKey: true })
    await client.events.trigger(EVENT, { idempotencyKey: 'user-42-welcome' })
    await client.events.triggerBulk([EVENT], { idempotencyKey: 'digest' })
    expect(otel.spans().map((span) => span.attributes['notifykit.idempotency_key'])).toEqual([
      'user-42-welcome',
      'digest:0',
      'digest',
    ])
  })

  it('traceparent on every attempt names our span; propagateContext: false sends none', async () => {
    const { fake, client } = setup()
    fake.failNext(RETRY_NOW)
    await client.events.trigger(EVENT)
    const span = only(otel.spans())
    const sent = fake.requests.map((request) => parseTraceparent(request.headers.traceparent))
    expect(sent).toEqual([
      { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId },
      { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId },
    ])
    const off = setup({ propagateContext: false })
    await off.client.events.trigger(EVENT)
    expect(off.fake.requests[0]?.headers.traceparent).toBeUndefined()
  })

  it('http.client.request.duration: one measurement per attempt, in seconds, by status; error.type the status of a failed one', async () => {
    const { fake, client } = setup()
    fake.failNext(RETRY_NOW)
    await client.events.trigger(EVENT)
    const points = (await otel.points('http.client.request.duration')) as {
      attributes: Record<string, unknown>
      value: { count: number; sum: number }
    }[]
    const byStatus = Object.fromEntries(points.map((p) => [p.attributes['http.response.status_code'], p]))
    expect(Object.keys(byStatus).sort()).toEqual(['201', '503'])
    expect(byStatus[503]?.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': 'fake.test',
      'server.port': 443,
      'url.template': '/v1/events/trigger',
      'notifykit.operation': 'events.trigger',
      'http.response.status_code': 503,
      // The convention's value for a response that is an error: its status code, as a string.
      'error.type': '503',
    })
    expect(byStatus[201]?.attributes['error.type']).toBeUndefined()
    expect(byStatus[201]?.value.count).toBe(1)
    expect(byStatus[201]?.value.sum).toBeLessThan(5)
  })

  it('an attempt that got no response: error.type is the error class code, no status', async () => {
    const { fake, client } = setup()
    fake.failNext({ dropConnection: true })
    await client.events.trigger(EVENT)
    const points = (await otel.points('http.client.request.duration')) as {
      attributes: Record<string, unknown>
    }[]
    const failed = points.find((point) => point.attributes['error.type'] !== undefined)
    expect(failed?.attributes['error.type']).toBe('NOTIFYKIT_CONNECTION')
    expect(failed?.attributes['http.response.status_code']).toBeUndefined()
    expect(only(otel.spans()).attributes['notifykit.attempts']).toBe(2)
  })
})

describe('otelHooks with the global providers', () => {
  it('uses the global tracer provider when none is given, registered before or after', async () => {
    const otel = otelProviders()
    const fake = seededFake()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://fake.test',
      fetch: fake.fetch,
      hooks: otelHooks(),
    })
    trace.setGlobalTracerProvider(otel.tracerProvider)
    try {
      await client.events.trigger(EVENT)
      expect(otel.spans().map((span) => span.name)).toEqual(['events.trigger'])
    } finally {
      trace.disable()
    }
  })
})

describe('otelHooks with no SDK registered', () => {
  it('makes no span active and sends no traceparent, and the call goes through', async () => {
    const fake = seededFake()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://fake.test',
      fetch: fake.fetch,
      hooks: otelHooks(),
    })
    await expect(client.events.trigger(EVENT)).resolves.toMatchObject({ acknowledged: true })
    expect(fake.requests[0]?.headers.traceparent).toBeUndefined()
  })
})
