import { SpanKind } from '@opentelemetry/api'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { otelHooks } from '../../src/otel/index.js'
import type { ServedHandler } from '../../src/testing/index.js'
import { API_KEY, seededFake } from '../helpers/fake.js'
import { installGlobalContext, otelProviders, parseTraceparent } from '../helpers/otel.js'
import { clientFor, closeClients, TRANSPORTS } from '../helpers/transport.js'

// Over a real socket on 127.0.0.1: the client's own undici Agent, or Node's global fetch.

const EVENT = { name: 'welcome', to: 'alice' }

let restoreGlobals: () => void
beforeAll(() => {
  restoreGlobals = installGlobalContext()
})
afterAll(() => restoreGlobals())
afterEach(() => closeClients())

describe.each(TRANSPORTS)('over %s and a socket', (transport) => {
  const fake = seededFake()
  let server: ServedHandler
  beforeAll(async () => {
    server = await fake.listen()
  })
  afterAll(() => server.close())

  it('the server receives traceparent, with our span as the parent', async () => {
    const otel = otelProviders()
    const hooks = otelHooks({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider })
    const client = clientFor(server, { apiKey: API_KEY, hooks }, transport)
    await client.events.trigger(EVENT)
    const [span] = otel.spans()
    const received = parseTraceparent(fake.requests.at(-1)?.headers.traceparent)
    expect(received).toEqual({ traceId: span?.spanContext().traceId, spanId: span?.spanContext().spanId })
  })

  describe('with @opentelemetry/instrumentation-undici', () => {
    const otel = otelProviders()
    // Made here, not when the file is collected: an instrumentation enables itself on construction,
    // and the test above runs without it.
    let instrumentation: UndiciInstrumentation
    beforeAll(() => {
      instrumentation = new UndiciInstrumentation()
      instrumentation.setTracerProvider(otel.tracerProvider)
    })
    afterAll(() => instrumentation.disable())

    it("its HTTP span is a child of ours, and the server's parent is its span", async () => {
      otel.reset()
      // The instrumentation sends its own traceparent: ours would be a second one.
      const hooks = otelHooks({ tracerProvider: otel.tracerProvider, propagateContext: false })
      const client = clientFor(server, { apiKey: API_KEY, hooks }, transport)
      await client.events.trigger(EVENT)
      const spans = otel.spans()
      const ours = spans.find((span) => span.name === 'events.trigger')
      const http = spans.find((span) => span.name === 'POST')
      expect(http?.kind).toBe(SpanKind.CLIENT)
      expect(http?.parentSpanContext?.spanId).toBe(ours?.spanContext().spanId)
      expect(http?.spanContext().traceId).toBe(ours?.spanContext().traceId)
      const received = fake.requests.at(-1)?.headers.traceparent
      expect(received?.split(',')).toHaveLength(1)
      expect(parseTraceparent(received).spanId).toBe(http?.spanContext().spanId)
    })

    it("left on, propagateContext adds a second traceparent to the instrumentation's (why the README says to turn it off)", async () => {
      const hooks = otelHooks({ tracerProvider: otel.tracerProvider })
      const client = clientFor(server, { apiKey: API_KEY, hooks }, transport)
      await client.events.trigger(EVENT)
      expect(fake.requests.at(-1)?.headers.traceparent?.split(', ')).toHaveLength(2)
    })
  })
})
