import type { ServerResponse } from 'node:http'
import { Agent, type Dispatcher, MockAgent } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import {
  AbortError,
  ConnectionError,
  NotificationClient,
  type NotificationClientOptions,
  ResponseTooLargeError,
  TimeoutError,
} from '../../../src/index.js'
import { closedPort, startServer, type TestServer } from '../../helpers/servers.js'
import { API_KEY, rejectionOf } from '../../helpers/wire.js'

const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler)
  cleanups.push(started.close)
  return started
}

function client(baseUrl: string, options: NotificationClientOptions = {}): NotificationClient {
  const created = new NotificationClient({ apiKey: API_KEY, baseUrl, maxRetries: 0, ...options })
  cleanups.push(() => created.close())
  return created
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

describe('over real sockets on 127.0.0.1', () => {
  it('a server that never answers gives TimeoutError after timeoutMs', async () => {
    const hanging = await server(() => {
      // Never answers: the request stays open until the client gives up.
    })
    const started = performance.now()
    const error = await rejectionOf(client(hanging.baseUrl, { timeoutMs: 100 }).notifications.get('n-1'))
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as TimeoutError).code).toBe('NOTIFYKIT_TIMEOUT')
    expect((error as TimeoutError).attempts).toBe(1)
    expect(elapsed).toBeGreaterThanOrEqual(90)
    expect(elapsed).toBeLessThan(3_000)
  })

  it('a per-request timeoutMs bounds a body that stalls after the headers', async () => {
    const stalling = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"data":')
    })
    const error = await rejectionOf(client(stalling.baseUrl).events.cancel('tx', { timeoutMs: 100 }))
    expect(error).toBeInstanceOf(TimeoutError)
  })

  it('a refused connection gives ConnectionError with the cause', async () => {
    const port = await closedPort()
    const error = await rejectionOf(client(`http://127.0.0.1:${port}`).events.trigger({ name: 'w', to: 'u' }))
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).not.toBeInstanceOf(TimeoutError)
    const connectionError = error as ConnectionError
    expect(connectionError.code).toBe('NOTIFYKIT_CONNECTION')
    expect(connectionError.cause).toBeInstanceOf(Error)
    expect((connectionError.cause as { code?: string }).code).toBe('ECONNREFUSED')
    expect(connectionError.message).toContain('ECONNREFUSED')
    expect(connectionError.idempotencyKey).toEqual(expect.any(String))
  })

  it('two sequential calls reuse one keep-alive socket', async () => {
    const triggered = { acknowledged: true, status: 'processed', transactionId: 'tx-2' }
    const keepAlive = await server((req, res) =>
      req.method === 'DELETE' ? sendJson(res, 200, { data: true }) : sendJson(res, 201, { data: triggered }),
    )
    const sdk = client(keepAlive.baseUrl)
    await expect(sdk.events.cancel('tx-1')).resolves.toBe(true)
    await nextEventLoopTurn()
    await expect(sdk.events.trigger({ name: 'w', to: 'u' })).resolves.toStrictEqual(triggered)
    expect(keepAlive.requests()).toBe(2)
    expect(keepAlive.connections()).toBe(1)
  })

  it('back-to-back calls do not open a connection per call', async () => {
    const keepAlive = await server((_req, res) => sendJson(res, 200, { data: true }))
    const sdk = client(keepAlive.baseUrl)
    for (let call = 0; call < 10; call++) await sdk.events.cancel(`tx-${call}`)
    expect(keepAlive.requests()).toBe(10)
    // undici hands a socket back to the pool one event-loop turn after a response ends, so a call
    // started in the same turn takes a second socket; from then on the two are reused.
    expect(keepAlive.connections()).toBeLessThanOrEqual(2)
  })

  it('sends the request as documented on a real socket (method, path, headers, body)', async () => {
    let seen: { method?: string; url?: string; headers?: Record<string, unknown>; body?: string } = {}
    const echo = await server((req, res) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk: string) => {
        body += chunk
      })
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body }
        sendJson(res, 201, { data: 4 })
      })
    })
    await client(echo.baseUrl).subscribers.messages.markAll(
      'a/b c',
      { markAs: 'seen' },
      { idempotencyKey: 'k-1' },
    )
    expect(seen.method).toBe('POST')
    expect(seen.url).toBe('/v1/subscribers/a%2Fb%20c/messages/mark-all')
    expect(seen.headers?.authorization).toBe(`ApiKey ${API_KEY}`)
    expect(seen.headers?.['idempotency-key']).toBe('k-1')
    expect(seen.headers?.['content-type']).toBe('application/json')
    expect(seen.body).toBe('{"markAs":"seen"}')
  })

  it.each([
    ['declared by content-length', true],
    ['chunked, without a length', false],
  ])('a body larger than maxResponseBytes (%s) gives ResponseTooLargeError', async (_how, declared) => {
    const big = JSON.stringify({
      data: { acknowledged: true, status: 'processed', padding: 'x'.repeat(4_096) },
    })
    const large = await server((_req, res) => {
      if (declared) res.writeHead(201, { 'content-type': 'application/json', 'content-length': big.length })
      else res.writeHead(201, { 'content-type': 'application/json' })
      // Two writes, so an unsized body arrives as more than one chunk.
      res.write(big.slice(0, 100))
      res.end(big.slice(100))
    })
    const error = await rejectionOf(
      client(large.baseUrl, { maxResponseBytes: 1_024 }).events.trigger({ name: 'w', to: 'u' }),
    )
    expect(error).toBeInstanceOf(ResponseTooLargeError)
    expect((error as ResponseTooLargeError).limitBytes).toBe(1_024)
    expect((error as ResponseTooLargeError).code).toBe('NOTIFYKIT_RESPONSE_TOO_LARGE')
  })

  it('a body within maxResponseBytes is read whole', async () => {
    const ok = await server((_req, res) => sendJson(res, 201, { data: 7 }))
    await expect(
      client(ok.baseUrl, { maxResponseBytes: 1_024 }).subscribers.messages.markAll('u', { markAs: 'read' }),
    ).resolves.toBe(7)
  })

  it("the caller's signal aborting mid-request gives AbortError at once", async () => {
    let received: () => void = () => undefined
    const requestArrived = new Promise<void>((resolve) => {
      received = resolve
    })
    const hanging = await server(() => received())
    const controller = new AbortController()
    const call = client(hanging.baseUrl, { timeoutMs: 10_000 }).events.trigger(
      { name: 'w', to: 'u' },
      { signal: controller.signal },
    )
    await requestArrived
    const started = performance.now()
    const reason = new Error('user navigated away')
    controller.abort(reason)
    const error = await rejectionOf(call)
    expect(error).toBeInstanceOf(AbortError)
    expect((error as AbortError).code).toBe('NOTIFYKIT_ABORTED')
    expect((error as AbortError).cause).toBe(reason)
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  it("the caller's signal aborting while the body arrives gives AbortError and frees the connection", async () => {
    let bodyStarted: () => void = () => undefined
    const started = new Promise<void>((resolve) => {
      bodyStarted = resolve
    })
    const dripping = await server((req, res) => {
      if (req.method === 'DELETE') return sendJson(res, 200, { data: true })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"data":{"_id":', () => bodyStarted())
    })
    const dispatcher = new Agent({ connections: 1 })
    cleanups.push(() => dispatcher.close())
    const sdk = client(dripping.baseUrl, { dispatcher, timeoutMs: 10_000 })
    const controller = new AbortController()
    const call = sdk.notifications.get('n-1', { signal: controller.signal })
    await started
    controller.abort(new Error('shutting down'))
    const error = await rejectionOf(call)
    expect(error).toBeInstanceOf(AbortError)
    expect((error as AbortError).attempts).toBe(1)
    // The one connection was given up with the cut body, not left holding the next call.
    await expect(sdk.events.cancel('tx')).resolves.toBe(true)
    expect(dripping.connections()).toBe(2)
  })

  it('a body that starts with a UTF-8 byte order mark is read as its JSON', async () => {
    const marked = await server((_req, res) => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"data":5}')])
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
      res.end(body)
    })
    await expect(client(marked.baseUrl).subscribers.messages.markAll('u', { markAs: 'read' })).resolves.toBe(
      5,
    )
  })

  it('an informational 103 before the response is skipped', async () => {
    const hinting = await server((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' }, () =>
        sendJson(res, 201, { data: 4 }),
      )
    })
    const result = await client(hinting.baseUrl)
      .subscribers.messages.markAll('u', { markAs: 'seen' })
      .withResponse()
    expect(result.data).toBe(4)
    expect(result.response.status).toBe(201)
  })

  it('a timeout while the request waits for a connection: TimeoutError, and it is never sent', async () => {
    const slow = await server((_req, res) => {
      setTimeout(() => sendJson(res, 200, { data: true }), 1_000)
    })
    const dispatcher = new Agent({ connections: 1 })
    cleanups.push(() => dispatcher.close())
    const sdk = client(slow.baseUrl, { dispatcher })
    const first = sdk.events.cancel('first', { timeoutMs: 5_000 })
    // Queued behind the first on the only connection: its 100 ms run out before it reaches a socket,
    // and the caller hears of it then, not when the connection comes free.
    const started = performance.now()
    const queued = await rejectionOf(sdk.events.cancel('queued', { timeoutMs: 100 }))
    expect(queued).toBeInstanceOf(TimeoutError)
    expect(performance.now() - started).toBeLessThan(700)
    await expect(first).resolves.toBe(true)
    await expect(sdk.events.cancel('after', { timeoutMs: 5_000 })).resolves.toBe(true)
    expect(slow.requests()).toBe(2)
  })

  it('a dispatcher that throws instead of answering gives ConnectionError with its error as cause', async () => {
    class ThrowingDispatcher extends Agent {
      override dispatch(): boolean {
        throw new Error('dispatcher out of order')
      }
    }
    const dispatcher = new ThrowingDispatcher()
    cleanups.push(() => dispatcher.close())
    const error = await rejectionOf(client('http://127.0.0.1:9', { dispatcher }).events.cancel('tx'))
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError).message).toContain('dispatcher out of order')
    expect(((error as ConnectionError).cause as Error).message).toBe('dispatcher out of order')
  })

  it('an already-aborted signal sends nothing', async () => {
    const never = await server((_req, res) => sendJson(res, 200, { data: true }))
    const error = await rejectionOf(
      client(never.baseUrl).events.cancel('tx', { signal: AbortSignal.abort() }),
    )
    expect(error).toBeInstanceOf(AbortError)
    expect(never.requests()).toBe(0)
  })
})

describe('close()', () => {
  it("closes the client's own Agent: its idle socket is closed and later calls fail", async () => {
    const ok = await server((_req, res) => sendJson(res, 200, { data: true }))
    const sdk = new NotificationClient({ apiKey: API_KEY, baseUrl: ok.baseUrl, maxRetries: 0 })
    await sdk.events.cancel('tx')
    const [socket] = ok.sockets()
    expect(ok.sockets()).toHaveLength(1)
    const socketClosed = new Promise<void>((resolve) => socket?.once('close', () => resolve()))
    await sdk.close()
    await socketClosed
    await expect(sdk.events.cancel('tx')).rejects.toBeInstanceOf(ConnectionError)
    expect(ok.requests()).toBe(1)
  })

  it('never closes a dispatcher the user passed in', async () => {
    const ok = await server((_req, res) => sendJson(res, 200, { data: true }))
    const agent = new Agent()
    cleanups.push(() => agent.close())
    const first = new NotificationClient({ apiKey: API_KEY, baseUrl: ok.baseUrl, dispatcher: agent })
    await first.events.cancel('tx-1')
    await first.close()
    expect(agent.closed).toBe(false)
    await nextEventLoopTurn()
    const second = new NotificationClient({ apiKey: API_KEY, baseUrl: ok.baseUrl, dispatcher: agent })
    await expect(second.events.cancel('tx-2')).resolves.toBe(true)
    // Still the same pooled socket: the user's Agent was left alone.
    expect(ok.connections()).toBe(1)
  })
})

/** undici returns a socket to its pool one event-loop turn after the response ends. */
function nextEventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

describe('dispatchers the user passes', () => {
  it("undici's MockAgent answers the SDK's calls, retries included", async () => {
    const mockAgent = new MockAgent()
    mockAgent.disableNetConnect()
    cleanups.push(() => mockAgent.close())
    const pool = mockAgent.get('https://api.test')
    const json = { headers: { 'content-type': 'application/json' } }
    pool.intercept({ path: '/v1/events/trigger/tx-1', method: 'DELETE' }).reply(200, { data: true }, json)
    pool.intercept({ path: '/v1/events/trigger', method: 'POST' }).reply(503, { message: 'busy' }, json)
    pool
      .intercept({ path: '/v1/events/trigger', method: 'POST' })
      .reply(201, { data: { acknowledged: true, status: 'processed', transactionId: 'tx-2' } }, json)
    const sdk = client('https://api.test', { dispatcher: mockAgent, maxRetries: 2 })
    await expect(sdk.events.cancel('tx-1')).resolves.toBe(true)
    const triggered = await sdk.events.trigger({ name: 'w', to: 'u' }, { maxRetries: 1 }).withResponse()
    expect(triggered.data.transactionId).toBe('tx-2')
    expect(triggered.response.attempts).toBe(2)
    mockAgent.assertNoPendingInterceptors()
  })

  it('an Agent composed with an interceptor carries the calls over a real socket', async () => {
    const ok = await server((_req, res) => sendJson(res, 200, { data: true }))
    const seen: string[] = []
    const logPaths: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
      seen.push(`${options.method} ${options.path}`)
      return dispatch(options, handler)
    }
    const agent = new Agent()
    cleanups.push(() => agent.close())
    const sdk = client(ok.baseUrl, { dispatcher: agent.compose(logPaths) })
    await expect(sdk.events.cancel('tx-1')).resolves.toBe(true)
    expect(seen).toEqual(['DELETE /v1/events/trigger/tx-1'])
  })
})
