import { type ClientOptions, NotificationClient, TimeoutError } from 'notifykit'
import { createFakeService, type FakeService } from 'notifykit/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { inMemoryFetch } from '../../src/testing/in-memory-fetch.js'

const API_KEY = 'fetch-key'
const headers = { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' }

function welcomeFake(): FakeService {
  return createFakeService({
    apiKey: API_KEY,
    workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
  })
}

function clientFor(fake: FakeService, options: Partial<ClientOptions> = {}): NotificationClient {
  return new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://fake.test',
    fetch: fake.fetch,
    logLevel: 'off',
    ...options,
  })
}

afterEach(() => {
  vi.useRealTimers()
})

describe('fake.fetch with the client', () => {
  it('reaches the fake in memory: the calls change its state and read it back', async () => {
    const fake = welcomeFake()
    const client = clientFor(fake)
    const { transactionId } = await client.events.trigger({ name: 'welcome', to: 'alice' })
    const [stored] = fake.notifications
    expect(stored?.transactionId).toBe(transactionId)
    const read = await client.notifications.get(stored?._id ?? '')
    expect(read.transactionId).toBe(transactionId)
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/events/trigger',
      `GET /v1/notifications/${stored?._id}`,
    ])
  })

  it('gets the free stale-socket retry for a dropped connection, as over undici', async () => {
    const fake = welcomeFake()
    // No ordinary retry allowed: only the stale-socket one can resend.
    const client = clientFor(fake, { maxRetries: 0 })
    fake.failNext({ dropConnection: true, afterApply: true })
    const { response } = await client.events.trigger({ name: 'welcome', to: 'alice' }).withResponse()
    expect(response.attempts).toBe(2)
    expect(response.headers['idempotency-replay']).toBe('true')
    expect(fake.notifications).toHaveLength(1)
  })

  it('lets the attempt time out while the fake delays its answer', async () => {
    const fake = welcomeFake()
    const client = clientFor(fake, { timeoutMs: 50, maxRetries: 0 })
    fake.delay(1_000)
    await expect(client.notifications.get('n1')).rejects.toBeInstanceOf(TimeoutError)
  })
})

describe('fake.fetch as a fetch', () => {
  it('takes a string, a URL or a Request, and is bound to its fake', async () => {
    const { fetch } = welcomeFake()
    const url = 'https://fake.test/v1/notifications/000000000000000000000000'
    expect((await fetch(url, { headers })).status).toBe(404)
    expect((await fetch(new URL(url), { headers })).status).toBe(404)
    const triggered = await fetch(
      new Request('https://fake.test/v1/events/trigger', {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'welcome', to: 'alice' }),
      }),
    )
    expect(triggered.status).toBe(201)
    expect(await triggered.json()).toMatchObject({ data: { status: 'processed' } })
  })

  it('fits wherever the global fetch does', () => {
    const fake = welcomeFake()
    const asGlobal: typeof globalThis.fetch = fake.fetch
    const asOption: ClientOptions['fetch'] = fake.fetch
    expect([asGlobal, asOption]).toEqual([fake.fetch, fake.fetch])
  })

  it('rejects with the reason of a signal aborted before the call', async () => {
    const fake = welcomeFake()
    const reason = new Error('gave up early')
    const signal = AbortSignal.abort(reason)
    await expect(
      fake.fetch('https://fake.test/v1/notifications/000000000000000000000000', { headers, signal }),
    ).rejects.toBe(reason)
    await expect(
      fake.fetch(new Request('https://fake.test/v1/notifications/000000000000000000000000', { signal })),
    ).rejects.toBe(reason)
    expect(fake.requests).toEqual([])
  })

  it('rejects with the reason of a signal aborted while the fake delays its answer', async () => {
    vi.useFakeTimers()
    const fake = welcomeFake()
    fake.delay(60_000)
    const controller = new AbortController()
    const pending = fake.fetch('https://fake.test/v1/notifications/000000000000000000000000', {
      headers,
      signal: controller.signal,
    })
    const reason = new Error('user navigated away')
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
  })

  it('rejects a dropped connection as fetch does: TypeError, ECONNRESET in its cause', async () => {
    const fake = welcomeFake()
    fake.failNext({ dropConnection: true })
    const failure = await fake
      .fetch('https://fake.test/v1/notifications/000000000000000000000000', { headers })
      .catch((e) => e)
    expect(failure).toBeInstanceOf(TypeError)
    expect(failure).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } })
  })
})

describe('inMemoryFetch', () => {
  it('can abort a handler that never answers', async () => {
    const fetch = inMemoryFetch(() => new Promise<Response>(() => {}))
    const controller = new AbortController()
    const pending = fetch('https://any.test/', { signal: controller.signal })
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('fails loudly, as a network error, when the handler answers nothing or throws', async () => {
    const silent = inMemoryFetch(() => undefined)
    await expect(silent('https://any.test/x')).rejects.toMatchObject({
      name: 'TypeError',
      cause: { message: 'No handler answered GET https://any.test/x' },
    })
    const bug = new Error('handler bug')
    const throwing = inMemoryFetch(() => {
      throw bug
    })
    await expect(throwing('https://any.test/x')).rejects.toMatchObject({ name: 'TypeError', cause: bug })
  })
})
