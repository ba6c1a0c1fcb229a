import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NotificationClient } from '../../src/index.js'
import { otelHooks } from '../../src/otel/index.js'
import { fakeConnection, seededFake } from '../helpers/fake.js'
import { installGlobalContext, otelProviders } from '../helpers/otel.js'
import { CANARY_KEY, expectNoSecret, renderings } from '../helpers/secrets.js'
import { TRANSPORTS } from '../helpers/transport.js'
import { inMemory, settle } from '../helpers/wire.js'

let restoreGlobals: () => void
beforeAll(() => {
  restoreGlobals = installGlobalContext()
})
afterAll(() => restoreGlobals())

describe.each(TRANSPORTS)('OpenTelemetry over %s', (transport) => {
  it('no exported span (names, attributes, events, status) nor metric attribute carries the API key', async () => {
    const otel = otelProviders()
    const hooks = otelHooks({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
      // The most the spans can hold: keys too.
      recordIdempotencyKey: true,
    })
    const fake = seededFake({ apiKey: CANARY_KEY })
    const client = new NotificationClient({
      apiKey: CANARY_KEY,
      baseUrl: 'https://fake.test',
      ...fakeConnection(fake, transport),
      hooks,
      logLevel: 'off',
    })
    const outcomes = []
    // Success, retries, a failed call, a refused one, a bulk send, a read.
    fake.failNext({ status: 503, headers: { 'retry-after-ms': '0' } })
    outcomes.push(
      await settle(client.events.trigger({ name: 'welcome', to: 'alice', payload: { key: CANARY_KEY } })),
    )
    fake.failNext({ status: 429, times: 3, headers: { 'retry-after-ms': '0' } })
    outcomes.push(await settle(client.events.broadcast({ name: 'welcome', payload: {} })))
    outcomes.push(await settle(client.events.trigger({ name: '', to: CANARY_KEY })))
    outcomes.push(
      await settle(
        client.events.triggerBulk(Array.from({ length: 120 }, () => ({ name: 'welcome', to: 'bob' }))),
      ),
    )
    outcomes.push(await settle(client.notifications.get(CANARY_KEY)))
    fake.failNext({ dropConnection: true })
    outcomes.push(await settle(client.events.cancel('tx-1')))

    // A server that echoes the key back in its headers, status text and error body.
    const echo = inMemory((request) => {
      const authorization = request.headers.get('authorization') ?? ''
      return Response.json(
        { statusCode: 401, message: `invalid key ${authorization}`, error: authorization },
        { status: 401, headers: { 'x-echo': authorization } },
      )
    }, transport)
    const echoed = client.withOptions({ baseUrl: 'https://api.test', ...echo })
    outcomes.push(await settle(echoed.events.trigger({ name: 'welcome', to: 'alice' })))
    outcomes.push(await settle(echoed.subscribers.preferences.update('alice', {})))
    expect(outcomes.filter((outcome) => !outcome.ok)).toHaveLength(5)
    // The key was really sent.
    expect(fake.requests.some((request) => request.headers.authorization === `ApiKey ${CANARY_KEY}`)).toBe(
      true,
    )

    const spans = otel.spans()
    expect(spans.length).toBeGreaterThanOrEqual(9)
    expect(spans.some((span) => span.events.length > 0)).toBe(true)
    expect(spans.some((span) => span.status.message !== undefined)).toBe(true)
    const spanTexts = spans.flatMap((span) =>
      renderings({
        name: span.name,
        attributes: span.attributes,
        events: span.events.map(({ name, attributes }) => ({ name, attributes })),
        status: span.status,
        links: span.links,
      }),
    )
    const metrics = await otel.metrics()
    const metricTexts = renderings(
      metrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.map((metric) => ({
          name: metric.descriptor.name,
          attributes: metric.dataPoints.map((point) => point.attributes),
        })),
      ),
    )
    expect(metricTexts.join('\n')).toContain('notifykit.retries')
    expectNoSecret([...spanTexts, ...metricTexts], CANARY_KEY, { headerName: false })
  })
})
