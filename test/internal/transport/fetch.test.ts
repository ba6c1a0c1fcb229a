import type { IncomingMessage, ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  AbortError,
  ApiError,
  ConnectionError,
  NotificationClient,
  type NotificationClientOptions,
  NotifyKitError,
  ResponseTooLargeError,
  TimeoutError,
} from '../../../src/index.js'
import { FetchHandlerDispatcher } from '../../../src/testing/index.js'
import { startServer, type TestServer } from '../../helpers/servers.js'
import { API_KEY, rejectionOf, UUID } from '../../helpers/wire.js'

// What only the fetch transport has to get right: a fetch that is not Node's (workerd's plain errors,
// a test double that ignores its signal), the global fetch looked up late, and the construction rules
// of the `fetch` option. What both transports share is asserted on both, over real sockets, here too.

const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  vi.unstubAllGlobals()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function server(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const started = await startServer(handler)
  cleanups.push(started.close)
  return started
}

function fetchClient(baseUrl: string, options: NotificationClientOptions = {}): NotificationClient {
  const created = new NotificationClient({
    apiKey: API_KEY,
    baseUrl,
    maxRetries: 0,
    fetch: (url, init) => fetch(url, init),
    ...options,
  })
  cleanups.push(() => created.close())
  return created
}

function undiciClient(baseUrl: string, options: NotificationClientOptions = {}): NotificationClient {
  const created = new NotificationClient({ apiKey: API_KEY, baseUrl, maxRetries: 0, ...options })
  cleanups.push(() => created.close())
  return created
}

async function body(req: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += chunk
  return text
}

const triggered = JSON.stringify({ data: { acknowledged: true, status: 'processed', transactionId: 'tx-1' } })

describe('FetchTransport on a real socket', () => {
  it('sends the request as the undici transport does: method, path, headers, body', async () => {
    const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[] = []
    const api = await server(async (req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: await body(req) })
      res.writeHead(201, { 'content-type': 'application/json' }).end(triggered)
    })
    const event = { name: 'welcome', to: 'user-1', payload: { firstName: 'Ada' } }
    const { data, response } = await fetchClient(`${api.baseUrl}/base`).events.trigger(event).withResponse()
    expect(data).toEqual({ acknowledged: true, status: 'processed', transactionId: 'tx-1' })
    expect(response).toMatchObject({ status: 201, attempts: 1 })
    const [request] = seen
    expect(request?.method).toBe('POST')
    expect(request?.url).toBe('/base/v1/events/trigger')
    expect(request?.headers.authorization).toBe(`ApiKey ${API_KEY}`)
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.headers['idempotency-key']).toMatch(UUID)
    expect(request?.headers['idempotency-key']).toBe(response.idempotencyKey)
    expect(request?.headers['user-agent']).toMatch(/^notifykit\/\d+\.\d+\.\d+ node\/v\d+/)
    expect(JSON.parse(request?.body ?? '')).toEqual(event)
  })

  it.each([
    ['undici', undiciClient],
    ['fetch', fetchClient],
  ])('%s: a repeated response header is one string, its values joined by ", "', async (_name, clientFor) => {
    const api = await server((_req, res) => {
      res.setHeader('x-multi', ['a', 'b'])
      res.setHeader('set-cookie', ['one=1', 'two=2'])
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":true}')
    })
    const { response } = await clientFor(api.baseUrl).events.cancel('tx-1').withResponse()
    expect(response.headers['x-multi']).toBe('a, b')
    expect(response.headers['set-cookie']).toBe('one=1, two=2')
    expect(response.headers['content-type']).toBe('application/json')
  })

  it('a redirect is an ApiError with its status; its target is never requested', async () => {
    const target = await server((_req, res) => res.writeHead(200).end('{"data":true}'))
    const api = await server((_req, res) => res.writeHead(307, { location: `${target.baseUrl}/v1/x` }).end())
    const error = await rejectionOf(fetchClient(api.baseUrl).events.cancel('tx-1'))
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(307)
    expect((error as ApiError).attempts).toBe(1)
    expect(target.requests()).toBe(0)
  })

  it('a server that never answers ends in TimeoutError after timeoutMs', async () => {
    const hanging = await server(() => undefined)
    const started = performance.now()
    const error = await rejectionOf(fetchClient(hanging.baseUrl, { timeoutMs: 100 }).notifications.get('n-1'))
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).attempts).toBe(1)
    expect(performance.now() - started).toBeGreaterThanOrEqual(90)
  })

  it('a body that stalls after the headers ends in TimeoutError', async () => {
    const stalling = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"data":')
    })
    const error = await rejectionOf(
      fetchClient(stalling.baseUrl, { timeoutMs: 150 }).notifications.get('n-1'),
    )
    expect(error).toBeInstanceOf(TimeoutError)
  })

  it("the caller's abort ends the call with AbortError, the signal's reason as cause", async () => {
    const hanging = await server(() => undefined)
    const controller = new AbortController()
    const reason = new Error('shutting down')
    const pending = rejectionOf(
      fetchClient(hanging.baseUrl).notifications.get('n-1', { signal: controller.signal }),
    )
    setTimeout(() => controller.abort(reason), 20)
    const error = await pending
    expect(error).toBeInstanceOf(AbortError)
    expect((error as AbortError).cause).toBe(reason)
  })

  it.each([
    ['declared by content-length', true],
    ['streamed without a length', false],
  ])('a body over maxResponseBytes, %s, is ResponseTooLargeError', async (_name, declared) => {
    const big = JSON.stringify({ data: { payload: 'x'.repeat(4_000) } })
    const api = await server((_req, res) => {
      res.writeHead(200, declared ? { 'content-length': Buffer.byteLength(big) } : {})
      res.end(big)
    })
    const error = await rejectionOf(
      fetchClient(api.baseUrl, { maxResponseBytes: 1_000 }).notifications.get('n'),
    )
    expect(error).toBeInstanceOf(ResponseTooLargeError)
    expect((error as ResponseTooLargeError).limitBytes).toBe(1_000)
  })

  it('a compressed body that inflates past maxResponseBytes is refused, whatever its declared length', async () => {
    const inflated = JSON.stringify({ data: { payload: 'x'.repeat(50_000) } })
    const compressed = gzipSync(inflated)
    const api = await server((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': compressed.length,
      })
      res.end(compressed)
    })
    expect(compressed.length).toBeLessThan(1_000)
    const error = await rejectionOf(
      fetchClient(api.baseUrl, { maxResponseBytes: 1_000 }).notifications.get('n'),
    )
    expect(error).toBeInstanceOf(ResponseTooLargeError)
  })

  it('drops a UTF-8 byte order mark before the JSON', async () => {
    const api = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"data":true}')]))
    })
    await expect(fetchClient(api.baseUrl).events.cancel('tx-1')).resolves.toBe(true)
  })

  it('a connection reset before the response gets the free stale-socket retry, with the same key', async () => {
    const keys: (string | undefined)[] = []
    const api = await server((req, res) => {
      keys.push(req.headers['idempotency-key'] as string | undefined)
      if (keys.length === 1) {
        req.socket.destroy()
        return
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end(triggered)
    })
    const { response } = await fetchClient(api.baseUrl)
      .events.trigger({ name: 'welcome', to: 'u1' })
      .withResponse()
    expect(response.attempts).toBe(2)
    expect(keys).toEqual([response.idempotencyKey, response.idempotencyKey])
  })

  it('a reset once the response started is a ConnectionError with responseStarted, not retried for free', async () => {
    const api = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"data":')
      setTimeout(() => res.socket?.destroy(), 10)
    })
    const error = await rejectionOf(fetchClient(api.baseUrl).notifications.get('n-1'))
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).not.toBeInstanceOf(TimeoutError)
    expect((error as ConnectionError).responseStarted).toBe(true)
    expect((error as ConnectionError).attempts).toBe(1)
  })
})

describe('a fetch that is not Node’s', () => {
  const baseUrl = 'https://api.test'
  const withFetch = (
    fetchFunction: NotificationClientOptions['fetch'],
    options: NotificationClientOptions = {},
  ) => new NotificationClient({ apiKey: API_KEY, baseUrl, fetch: fetchFunction, ...options })

  it('one that ignores its signal and never answers still ends in TimeoutError', async () => {
    const error = await rejectionOf(
      withFetch(() => new Promise(() => undefined), { timeoutMs: 50, maxRetries: 0 }).events.cancel('tx'),
    )
    expect(error).toBeInstanceOf(TimeoutError)
  })

  it('a plain Error (workerd: "Network connection lost.") is a ConnectionError retried within maxRetries', async () => {
    vi.useFakeTimers()
    try {
      const lost = new Error('Network connection lost.')
      const calls = vi.fn(() => Promise.reject(lost))
      const pending = rejectionOf(withFetch(calls, { maxRetries: 2 }).events.cancel('tx'))
      await vi.runAllTimersAsync()
      const error = await pending
      expect(error).toBeInstanceOf(ConnectionError)
      expect((error as ConnectionError).cause).toBe(lost)
      expect((error as ConnectionError).message).toContain('Network connection lost.')
      expect((error as ConnectionError).attempts).toBe(3)
      expect(calls).toHaveBeenCalledTimes(3)
    } finally {
      vi.useRealTimers()
    }
  })

  it('code the runtime refuses to compile (WebAssembly) fails in one attempt', async () => {
    const refused = Object.assign(
      new Error('WebAssembly.Module(): Wasm code generation disallowed by embedder'),
      {
        name: 'CompileError',
      },
    )
    const calls = vi.fn(() => Promise.reject(new TypeError('fetch failed', { cause: refused })))
    const error = await rejectionOf(withFetch(calls, { maxRetries: 2 }).events.cancel('tx'))
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError).attempts).toBe(1)
    expect(calls).toHaveBeenCalledTimes(1)
  })

  it('an error that quotes the key is scrubbed before it becomes the cause', async () => {
    const leaky = vi.fn(() => Promise.reject(new Error(`refused: Authorization: ApiKey ${API_KEY}`)))
    const error = await rejectionOf(withFetch(leaky, { maxRetries: 0 }).events.cancel('tx'))
    expect(error).toBeInstanceOf(ConnectionError)
    const text = `${String(error)} ${(error as Error).stack} ${String((error as Error).cause)} ${((error as Error).cause as Error).stack}`
    expect(text).not.toContain(API_KEY)
    expect(text).toContain('[redacted]')
  })

  it('the global fetch is looked up at each call, so an interceptor installed later sees the calls', async () => {
    const client = withFetch(globalThis.fetch)
    const intercepted = vi.fn(async () => Response.json({ data: true }))
    vi.stubGlobal('fetch', intercepted)
    await expect(client.events.cancel('tx-1')).resolves.toBe(true)
    expect(intercepted).toHaveBeenCalledTimes(1)
    expect(intercepted).toHaveBeenCalledWith(
      `${baseUrl}/v1/events/trigger/tx-1`,
      expect.objectContaining({ method: 'DELETE', redirect: 'manual' }),
    )
  })
})

describe('the fetch option at construction', () => {
  const options = { apiKey: API_KEY, baseUrl: 'https://api.test' }
  // An undici dispatcher answering `{"data": true}` in memory, counting what it answered.
  const countingAgent = (() => {
    let answered = 0
    const dispatcher = new FetchHandlerDispatcher(() => {
      answered++
      return Response.json({ data: true })
    })
    return { dispatcher, calls: () => answered }
  })()

  it('must be a function', () => {
    const notAFunction = 'fetch' as unknown as NotificationClientOptions['fetch']
    expect(() => new NotificationClient({ ...options, fetch: notAFunction })).toThrow(
      new NotifyKitError('fetch must be a function'),
    )
  })

  it('does not go with dispatcher', () => {
    const dispatcher = { dispatch: () => true } as unknown as NotificationClientOptions['dispatcher']
    expect(() => new NotificationClient({ ...options, fetch, dispatcher })).toThrow(
      /either dispatcher \(undici\) or fetch/,
    )
  })

  it('withOptions can move a client from its dispatcher to a fetch and back', async () => {
    const viaFetch = vi.fn(async () => Response.json({ data: true }))
    const viaDispatcher = new NotificationClient({
      ...options,
      maxRetries: 0,
      dispatcher: countingAgent.dispatcher,
    })
    const moved = viaDispatcher.withOptions({ fetch: viaFetch })
    await expect(moved.events.cancel('tx-1')).resolves.toBe(true)
    expect(viaFetch).toHaveBeenCalledTimes(1)
    const back = moved.withOptions({ dispatcher: countingAgent.dispatcher })
    await expect(back.events.cancel('tx-2')).resolves.toBe(true)
    expect(viaFetch).toHaveBeenCalledTimes(1)
    expect(countingAgent.calls()).toBe(1)
  })

  it('a dispatcher without dispatch() (Bun’s undici stand-in) is refused at construction, not at each call', () => {
    const agentWithoutDispatch = {
      close: async () => undefined,
    } as unknown as NotificationClientOptions['dispatcher']
    expect(() => new NotificationClient({ ...options, dispatcher: agentWithoutDispatch })).toThrow(
      /no dispatch\(\) method.*pass fetch instead/,
    )
  })
})
