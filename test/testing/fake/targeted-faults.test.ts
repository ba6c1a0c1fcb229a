import { describe, expect, it } from 'vitest'
import {
  BulkTriggerError,
  ConnectionError,
  InternalServerError,
  NotificationClient,
} from '../../../src/index.js'
import type { FakeService } from '../../../src/testing/index.js'
import { API_KEY, call, fakeConnection, seededFake } from '../../helpers/fake.js'
import { TRANSPORTS, type TransportName } from '../../helpers/transport.js'

// `failNext` aimed at one route, one chunk, one request: what an app's resilience test needs when
// other calls run around the one it means to break.

const BULK_PATH = '/v1/events/trigger/bulk'

function clientOver(transport: TransportName, fake: FakeService, maxRetries = 2): NotificationClient {
  return new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://fake.test',
    ...fakeConnection(fake, transport),
    logLevel: 'off',
    maxRetries,
  })
}

/** 500 events for u0 … u499: five chunks of 100. */
// A bulk event carries a payload: the server fails one without (a single trigger defaults it to {}).
const events = Array.from({ length: 500 }, (_, i) => ({ name: 'welcome' as const, to: `u${i}`, payload: {} }))

describe('failNext with a target, on the fake directly', () => {
  it('a fault for one path leaves other routes alone and waits for its own', async () => {
    const fake = seededFake()
    fake.failNext({ method: 'post', path: '/v1/events/trigger', status: 503 })
    expect((await call(fake, 'DELETE', '/v1/events/trigger/t1')).status).toBe(200)
    expect((await call(fake, 'GET', '/v1/notifications/000000000000000000000001')).status).toBe(404)
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })).status).toBe(
      503,
    )
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })).status).toBe(
      201,
    )
  })

  it('matches the method too, and a RegExp path', async () => {
    const fake = seededFake()
    fake.failNext({ method: 'PATCH', path: /^\/v2\/subscribers\/[^/]+\/preferences$/, status: 500 })
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })).status).toBe(
      201,
    )
    const patched = await call(fake, 'PATCH', '/v2/subscribers/alice/preferences', {
      channels: { email: false },
    })
    expect(patched.status).toBe(500)
  })

  it('an untargeted fault still takes the next request, whatever it is', async () => {
    const fake = seededFake()
    fake.failNext({ status: 502 })
    expect((await call(fake, 'DELETE', '/v1/events/trigger/t1')).status).toBe(502)
    expect((await call(fake, 'DELETE', '/v1/events/trigger/t1')).status).toBe(200)
  })

  it('each request takes the first armed fault that targets it', async () => {
    const fake = seededFake()
    fake.failNext({ path: '/v1/events/trigger', status: 503 })
    fake.failNext({ status: 500 })
    expect((await call(fake, 'DELETE', '/v1/events/trigger/t1')).status).toBe(500)
    expect((await call(fake, 'DELETE', '/v1/events/trigger/t1')).status).toBe(200)
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })).status).toBe(
      503,
    )
  })

  it('`when` sees the recorded request, parsed body included', async () => {
    const fake = seededFake()
    fake.failNext({ when: (r) => (r.body as { to?: unknown } | undefined)?.to === 'bob', status: 503 })
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })).status).toBe(
      201,
    )
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'bob' })).status).toBe(503)
  })

  it('refuses unknown keys and targets of the wrong type, instead of failing every request', () => {
    const fake = seededFake()
    expect(() => fake.failNext({ status: 503, pathname: '/v1/events/trigger' } as never)).toThrow(
      /unknown option `pathname`/,
    )
    expect(() => fake.failNext({ status: 503, path: 'v1/events/trigger' })).toThrow(/starting with "\/"/)
    expect(() => fake.failNext({ status: 503, path: 42 } as never)).toThrow(/string or a RegExp/)
    expect(() => fake.failNext({ status: 503, method: '' })).toThrow(/method/)
  })

  it('a global RegExp matches the same way on every request', async () => {
    const fake = seededFake()
    fake.failNext({ path: /trigger$/g, status: 503, times: 2 })
    const body = { name: 'welcome', to: 'alice' }
    expect((await call(fake, 'POST', '/v1/events/trigger', body)).status).toBe(503)
    expect((await call(fake, 'POST', '/v1/events/trigger', body)).status).toBe(503)
  })
})

describe.each(TRANSPORTS)('failNext with a target, through the SDK over %s', (transport) => {
  it('fails the chunk meant (by its key suffix) at concurrency 4, on each of its attempts', async () => {
    const fake = seededFake()
    const client = clientOver(transport, fake, 1)
    fake.failNext({ path: BULK_PATH, idempotencyKey: /:2$/, status: 500, times: 2 })
    const error = await client.events.triggerBulk(events, { concurrency: 4 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BulkTriggerError)
    const { failures, results } = error as BulkTriggerError
    expect(failures.map((f) => f.chunkIndex)).toEqual([2])
    expect(failures[0]?.eventIndexes).toEqual(Array.from({ length: 100 }, (_, i) => 200 + i))
    expect(failures[0]?.error).toBeInstanceOf(InternalServerError)
    expect(failures[0]?.error).toMatchObject({ attempts: 2 })
    expect(results.filter((r) => r === undefined)).toHaveLength(100)
    const keys = fake.requests.map((r) => r.headers['idempotency-key'] ?? '')
    expect(keys.filter((k) => k.endsWith(':2'))).toHaveLength(2)
    expect(keys).toHaveLength(6)
    // u200 … u299 were never sent; everyone else was, once.
    const sentTo = fake.notifications.map((n) => n.subscriber.subscriberId)
    expect(sentTo).toHaveLength(400)
    expect(new Set(sentTo).size).toBe(400)
    expect(sentTo).toContain('u199')
    expect(sentTo).not.toContain('u200')
    expect(sentTo).not.toContain('u299')
    expect(sentTo).toContain('u300')
  })

  it('fails the chunk holding a given event, whatever order the chunks arrive in', async () => {
    const fake = seededFake()
    const client = clientOver(transport, fake, 0)
    const holds = (id: string) => (r: { body: unknown }) =>
      ((r.body as { events?: { to: unknown }[] }).events ?? []).some((e) => e.to === id)
    fake.failNext({ path: BULK_PATH, when: holds('u350'), status: 503 })
    const error = (await client.events
      .triggerBulk(events, { concurrency: 4 })
      .catch((e: unknown) => e)) as BulkTriggerError
    expect(error.failures.map((f) => f.chunkIndex)).toEqual([3])
  })

  it('a single dropped connection is absorbed by the free retry; maxRetries + 1 drops reach the app', async () => {
    const fake = seededFake()
    const noRetries = clientOver(transport, fake, 0)
    fake.failNext({ dropConnection: true })
    const { response } = await noRetries.events.trigger({ name: 'welcome', to: 'alice' }).withResponse()
    expect(response.attempts).toBe(2)
    expect(fake.notifications).toHaveLength(1)

    fake.failNext({ dropConnection: true, times: 2 })
    const error = await noRetries.events.trigger({ name: 'welcome', to: 'bob' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ attempts: 2 })
    expect(fake.notifications).toHaveLength(1)
  })

  it('with the default maxRetries (2), three drops reach the app as the README says', async () => {
    const fake = seededFake()
    const client = clientOver(transport, fake)
    fake.failNext({ dropConnection: true, times: 3 })
    const error = await client.events.trigger({ name: 'welcome', to: 'alice' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).toMatchObject({ attempts: 3 })
    expect(fake.requests).toHaveLength(3)
    expect(fake.notifications).toHaveLength(0)
  })
})

describe('a when() that throws', () => {
  it('fails the request naming failNext, the cause kept', async () => {
    const fake = seededFake()
    const bug = new Error('test bug')
    fake.failNext({
      when: () => {
        throw bug
      },
      status: 503,
    })
    const error = await fake
      .handle(new Request('https://fake.test/v1/notifications/000000000000000000000000'))
      .catch((e: unknown) => e)
    expect(error).toMatchObject({
      message: 'failNext: the when() function threw on GET /v1/notifications/000000000000000000000000',
      cause: bug,
    })
  })
})
