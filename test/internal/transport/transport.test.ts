import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import { Agent, type Dispatcher, MockAgent } from 'undici'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AbortError, ApiError, ClientClosedError, ConnectionError, TimeoutError } from '../../../src/index.js'
import { captureLogs } from '../../helpers/logs.js'
import {
  bodyText,
  closedPort,
  type ServerHandler,
  sendJson,
  startServer,
  type TestServer,
} from '../../helpers/servers.js'
import { clientFor, closeClients, TRANSPORTS, type TransportName } from '../../helpers/transport.js'
import { API_KEY, rejectionOf } from '../../helpers/wire.js'

// The SDK's transports on real sockets (node:http servers on 127.0.0.1): what goes on the wire,
// connection reuse, timeouts, aborts, dropped and stale connections. The shared contract runs once
// over undici (the SDK's own Agent) and once over Node's global fetch (the `fetch` option); what
// only undici's pool and user-passed dispatchers can do is in the undici-only describe at the end.
// Real timers with small timeouts unless a test says otherwise.

const EVENT = { name: 'order-shipped', to: 'user-1', payload: { orderId: 'o-42' } }
// Most tests look at one attempt; retries are asked for where they are the subject.
const NO_RETRIES = { maxRetries: 0 }

const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  vi.useRealTimers()
  vi.restoreAllMocks()
  await closeClients()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function serve(handler: ServerHandler, options?: { port?: number }): Promise<TestServer> {
  const started = await startServer(handler, options)
  cleanups.push(started.close)
  return started
}

/** A client logging its retries at info, to see which the SDK made and why. */
function loggingClientFor(
  target: { baseUrl: string },
  options: Parameters<typeof clientFor>[1] = {},
  transport: TransportName = 'undici',
) {
  const logs = captureLogs()
  const client = clientFor(target, { logger: logs.logger, logLevel: 'info', ...options }, transport)
  return { client, retries: logs.retries }
}

/** The `code` of each error in a cause chain: undici puts it on the error, Node's fetch one level down. */
function causeCodes(error: unknown): string[] {
  const codes: string[] = []
  for (let cause = (error as Error).cause; cause instanceof Error; cause = cause.cause) {
    const { code } = cause as { code?: unknown }
    if (typeof code === 'string') codes.push(code)
  }
  return codes
}

/** An undici Agent with one connection, closed after the test. */
function onePool(): Agent {
  const dispatcher = new Agent({ connections: 1 })
  cleanups.push(() => dispatcher.close())
  return dispatcher
}

/** undici returns a socket to its pool one event-loop turn after the response ends. */
function nextEventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** A few turns: enough for undici to hand a finished socket back and see a closed one. */
async function nextTurns(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await nextEventLoopTurn()
}
describe.each(TRANSPORTS)('over %s', (transport) => {
  const connect = (target: { baseUrl: string }, options: Parameters<typeof clientFor>[1] = {}) =>
    clientFor(target, options, transport)

  describe('over real sockets on 127.0.0.1', () => {
    it('a server that never answers gives TimeoutError after timeoutMs, in one attempt', async () => {
      const hanging = await serve(() => {
        // Never answers: the request stays open until the client gives up.
      })
      const started = performance.now()
      const error = await rejectionOf(
        connect(hanging, { ...NO_RETRIES, timeoutMs: 100 }).events.trigger(EVENT),
      )
      const elapsed = performance.now() - started
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error).toBeInstanceOf(ConnectionError)
      const timeout = error as TimeoutError
      expect(timeout.code).toBe('NOTIFYKIT_TIMEOUT')
      expect(timeout.message).toBe('Attempt timed out after 100 ms')
      expect(timeout.attempts).toBe(1)
      // Not before timeoutMs; the upper bound is loose because a loaded machine delays timers.
      expect(elapsed).toBeGreaterThanOrEqual(90)
      expect(elapsed).toBeLessThan(3_000)
    })

    it.each([
      ['the client', { timeoutMs: 100 }, {}],
      ['the call', {}, { timeoutMs: 100 }],
    ])(
      'timeoutMs set on %s bounds a body that stalls after the headers',
      async (_where, onClient, onCall) => {
        const stalling = await serve((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.write('{"data":')
        })
        const error = await rejectionOf(
          connect(stalling, { ...NO_RETRIES, ...onClient }).events.cancel('tx', onCall),
        )
        expect(error).toBeInstanceOf(TimeoutError)
        expect((error as TimeoutError).attempts).toBe(1)
      },
    )

    it('a refused connection gives ConnectionError with the cause, after one attempt', async () => {
      const port = await closedPort()
      const error = await rejectionOf(
        connect({ baseUrl: `http://127.0.0.1:${port}` }, NO_RETRIES).events.trigger({ name: 'w', to: 'u' }),
      )
      expect(error).toBeInstanceOf(ConnectionError)
      expect(error).not.toBeInstanceOf(TimeoutError)
      const connectionError = error as ConnectionError
      expect(connectionError.code).toBe('NOTIFYKIT_CONNECTION')
      expect(connectionError.attempts).toBe(1)
      expect(connectionError.cause).toBeInstanceOf(Error)
      expect(causeCodes(connectionError)).toContain('ECONNREFUSED')
      expect(connectionError.message).toContain('ECONNREFUSED')
      if (transport === 'undici') {
        expect((connectionError.cause as { code?: string }).code).toBe('ECONNREFUSED')
      } else {
        // Node's fetch: `TypeError: fetch failed`, the socket's error as its cause.
        expect(connectionError.cause).toBeInstanceOf(TypeError)
        expect((connectionError.cause as Error).message).toBe('fetch failed')
        expect(connectionError.message).toMatch(/^Connection failed: fetch failed: .*ECONNREFUSED/)
      }
      expect(connectionError.idempotencyKey).toEqual(expect.any(String))
    })

    it('two sequential calls reuse one keep-alive socket', async () => {
      const triggered = { acknowledged: true, status: 'processed', transactionId: 'tx-2' }
      const keepAlive = await serve((req, res) =>
        req.method === 'DELETE'
          ? sendJson(res, 200, { data: true })
          : sendJson(res, 201, { data: triggered }),
      )
      const sdk = connect(keepAlive, NO_RETRIES)
      await expect(sdk.events.cancel('tx-1')).resolves.toBe(true)
      await nextEventLoopTurn()
      await expect(sdk.events.trigger({ name: 'w', to: 'u' })).resolves.toStrictEqual(triggered)
      expect(keepAlive.requests()).toBe(2)
      expect(keepAlive.connections()).toBe(1)
    })

    it('back-to-back calls do not open a connection per call', async () => {
      const keepAlive = await serve((_req, res) => sendJson(res, 200, { data: true }))
      const sdk = connect(keepAlive, NO_RETRIES)
      for (let call = 0; call < 10; call++) await sdk.events.cancel(`tx-${call}`)
      expect(keepAlive.requests()).toBe(10)
      // undici hands a socket back to the pool one event-loop turn after a response ends, so a call
      // started in the same turn takes a second socket; from then on the two are reused.
      expect(keepAlive.connections()).toBeLessThanOrEqual(2)
    })

    it('sends the request as documented on a real socket (method, path, headers, body)', async () => {
      let body = ''
      const echo = await serve(async (req, res) => {
        body = await bodyText(req)
        sendJson(res, 201, { data: 4 })
      })
      await connect(echo, NO_RETRIES).subscribers.messages.markAll(
        'a/b c',
        { markAs: 'seen' },
        { idempotencyKey: 'k-1' },
      )
      const [seen] = echo.received
      expect(seen?.method).toBe('POST')
      expect(seen?.path).toBe('/v1/subscribers/a%2Fb%20c/messages/mark-all')
      expect(seen?.headers.authorization).toBe(`ApiKey ${API_KEY}`)
      expect(seen?.headers['idempotency-key']).toBe('k-1')
      expect(seen?.headers['content-type']).toBe('application/json')
      expect(body).toBe('{"markAs":"seen"}')
    })

    it("the caller's signal aborting mid-request gives AbortError at once", async () => {
      let received: () => void = () => undefined
      const requestArrived = new Promise<void>((resolve) => {
        received = resolve
      })
      const hanging = await serve(() => received())
      const controller = new AbortController()
      const call = connect(hanging, { ...NO_RETRIES, timeoutMs: 10_000 }).events.trigger(
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
      const dripping = await serve((req, res) => {
        if (req.method === 'DELETE') return sendJson(res, 200, { data: true })
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"data":{"_id":', () => bodyStarted())
      })
      // Over undici, a pool of one connection: a cut body left on it would hold the next call. Node's
      // fetch takes no pool settings (its pool is Node's global dispatcher).
      const pool = transport === 'undici' ? { dispatcher: onePool() } : {}
      const sdk = connect(dripping, { ...NO_RETRIES, ...pool, timeoutMs: 10_000 })
      const controller = new AbortController()
      const call = sdk.notifications.get('n-1', { signal: controller.signal })
      await started
      controller.abort(new Error('shutting down'))
      const error = await rejectionOf(call)
      expect(error).toBeInstanceOf(AbortError)
      expect((error as AbortError).attempts).toBe(1)
      // The connection was given up with the cut body, not reused for (or holding) the next call.
      await expect(sdk.events.cancel('tx')).resolves.toBe(true)
      expect(
        dripping.received.map((seen) => [seen.method, seen.connection, seen.requestOnConnection]),
      ).toEqual([
        ['GET', 1, 1],
        ['DELETE', 2, 1],
      ])
      // undici's pool of one replaced its only connection; Node's fetch pool may open a spare one
      // that carries nothing (seen: 3 connections, 2 requests), so only the requests are asserted there.
      if (transport === 'undici') expect(dripping.connections()).toBe(2)
    })

    it('an already-aborted signal sends nothing and reports 0 attempts', async () => {
      const never = await serve((_req, res) => sendJson(res, 200, { data: true }))
      const error = await rejectionOf(connect(never).events.cancel('tx', { signal: AbortSignal.abort() }))
      expect(error).toBeInstanceOf(AbortError)
      expect((error as AbortError).attempts).toBe(0)
      expect(never.requests()).toBe(0)
    })

    it('a body that starts with a UTF-8 byte order mark is read as its JSON', async () => {
      const marked = await serve((_req, res) => {
        const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"data":5}')])
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
        res.end(body)
      })
      await expect(
        connect(marked, NO_RETRIES).subscribers.messages.markAll('u', { markAs: 'read' }),
      ).resolves.toBe(5)
    })

    it('an informational 103 before the response is skipped', async () => {
      const hinting = await serve((_req, res) => {
        res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' }, () =>
          sendJson(res, 201, { data: 4 }),
        )
      })
      const result = await connect(hinting, NO_RETRIES)
        .subscribers.messages.markAll('u', { markAs: 'seen' })
        .withResponse()
      expect(result.data).toBe(4)
      expect(result.response.status).toBe(201)
    })
  })

  describe('redirects are never followed', () => {
    it.each([301, 302, 303, 307, 308])(
      'a %i is an ApiError after one attempt, with retries allowed; its Location is never contacted',
      async (status) => {
        // Stands for another host: any request reaching it would carry the key there.
        const elsewhere = await serve((_req, res) => sendJson(res, 200, { data: true }))
        const origin = await serve((_req, res) => {
          res.writeHead(status, {
            location: `${elsewhere.baseUrl}/v1/events/trigger/stolen`,
            'content-length': 0,
          })
          res.end()
        })
        const error = await rejectionOf(connect(origin).events.cancel('tx-1'))
        expect(error).toBeInstanceOf(ApiError)
        const apiError = error as ApiError
        expect(apiError.constructor).toBe(ApiError)
        expect(apiError.status).toBe(status)
        expect(apiError.headers.location).toBe(`${elsewhere.baseUrl}/v1/events/trigger/stolen`)
        expect(apiError.attempts).toBe(1)
        expect(origin.requests()).toBe(1)
        expect(elsewhere.connections()).toBe(0)
      },
    )

    it('the same holds for a POST carrying a body', async () => {
      const elsewhere = await serve((_req, res) => sendJson(res, 201, { data: true }))
      const origin = await serve((_req, res) => {
        res.writeHead(307, { location: `${elsewhere.baseUrl}/v1/events/trigger`, 'content-length': 0 })
        res.end()
      })
      const error = await rejectionOf(connect(origin).events.trigger({ name: 'w', to: 'u' }))
      expect(error).toBeInstanceOf(ApiError)
      expect(elsewhere.connections()).toBe(0)
    })
  })

  describe('a trigger the server applied before the connection dropped', () => {
    /**
     * A server in miniature that applies a trigger under its idempotency key, replays the stored
     * result for the same key, and here drops the first connection right after applying, before a
     * byte of the answer.
     */
    async function applyThenDropServer() {
      const applied = new Map<string, { result: unknown; body: string; applications: number }>()
      let drops = 0
      const started = await serve(async (request, response) => {
        const body = await bodyText(request)
        const key = request.headers['idempotency-key'] as string
        const stored = applied.get(key)
        if (stored) {
          if (stored.body !== body) {
            return sendJson(response, 422, { statusCode: 422, message: 'Idempotency key reused' })
          }
          const replayed = { 'idempotency-key': key, 'idempotency-replay': 'true' }
          return sendJson(response, 201, { data: stored.result }, replayed)
        }
        const result = { acknowledged: true, status: 'processed', transactionId: randomUUID() }
        applied.set(key, { result, body, applications: 1 })
        if (drops++ === 0) return request.socket.destroy()
        sendJson(response, 201, { data: result })
      })
      return { applied, server: started }
    }

    it('is applied exactly once: the retry carries the same key and gets the replayed result', async () => {
      const { applied, server } = await applyThenDropServer()
      const { client, retries } = loggingClientFor(server, {}, transport)

      const { data, response } = await client.events.trigger(EVENT).withResponse()

      const key = response.idempotencyKey!
      expect(server.received.map((seen) => seen.headers['idempotency-key'])).toEqual([key, key])
      expect(server.received.map((seen) => seen.connection)).toEqual([1, 2])
      expect(applied.size).toBe(1)
      expect(applied.get(key)?.applications).toBe(1)
      expect(data).toEqual(applied.get(key)?.result)
      expect(response.attempts).toBe(2)
      expect(response.headers['idempotency-replay']).toBe('true')
      expect(retries()).toHaveLength(1)
      expect(JSON.stringify(retries())).not.toContain(key)
    })

    it('a job re-run with a key from the business event is not applied twice either', async () => {
      const { applied, server } = await applyThenDropServer()
      const client = connect(server)
      const idempotencyKey = 'order-o-42-shipped'

      const first = await client.events.trigger(EVENT, { idempotencyKey })
      // The queue runs the handler again (it crashed after the call, say): same event, same key.
      const rerun = await client.events.trigger(EVENT, { idempotencyKey }).withResponse()

      expect(server.received.map((seen) => seen.headers['idempotency-key'])).toEqual([
        idempotencyKey,
        idempotencyKey,
        idempotencyKey,
      ])
      expect(applied.size).toBe(1)
      expect(applied.get(idempotencyKey)?.applications).toBe(1)
      expect(rerun.data).toEqual(first)
      expect(rerun.response.attempts).toBe(1)
    })
  })

  describe('stale keep-alive sockets', () => {
    it('a pooled socket the server kills on its next request: retried once, even with maxRetries 0', async () => {
      // On the second request of a connection, destroy it on receipt: what a reused socket looks like
      // when the server (or a NAT, or a frozen serverless host) dropped it while it sat in the pool.
      const server = await serve((request, response, seen) => {
        if (seen.requestOnConnection === 2) return request.socket.destroy()
        const triggered = { acknowledged: true, status: 'processed', transactionId: `tx-${seen.connection}` }
        sendJson(response, 201, { data: triggered })
      })
      const { client, retries } = loggingClientFor(server, NO_RETRIES, transport)

      await client.events.trigger(EVENT)
      await nextTurns()
      const { data, response } = await client.events.trigger(EVENT).withResponse()

      expect(data.transactionId).toBe('tx-2')
      expect(response.attempts).toBe(2)
      expect(server.received.map((seen) => [seen.connection, seen.requestOnConnection])).toEqual([
        [1, 1],
        [1, 2],
        [2, 1],
      ])
      expect(server.received[1]!.headers['idempotency-key']).toBe(response.idempotencyKey)
      expect(server.received[2]!.headers['idempotency-key']).toBe(response.idempotencyKey)
      expect(retries().map((line) => line.details)).toEqual([
        { attempt: 2, maxAttempts: 2, delayMs: 0, reason: 'stale keep-alive socket' },
      ])
    })

    it('the free retry is only one: a second drop fails the call with ConnectionError', async () => {
      const server = await serve((request, response, seen) => {
        if (seen.connection === 1 && seen.requestOnConnection === 1)
          return sendJson(response, 200, { data: true })
        request.socket.destroy()
      })
      const client = connect(server, NO_RETRIES)

      await client.events.cancel('tx-1')
      await nextTurns()
      const error = await rejectionOf(client.events.cancel('tx-2'))

      expect(error).toBeInstanceOf(ConnectionError)
      expect(error).not.toBeInstanceOf(TimeoutError)
      expect((error as ConnectionError).attempts).toBe(2)
      expect(server.received).toHaveLength(3)
    })

    it('an idle keep-alive socket closed by the server: the next call succeeds', async () => {
      const server = await serve((_request, response) => sendJson(response, 200, { data: true }))
      server.server.keepAliveTimeout = 20
      const closed = new Promise<void>((resolve) =>
        server.server.once('connection', (socket: Socket) => socket.once('close', () => resolve())),
      )
      const client = connect(server, NO_RETRIES)

      await client.events.cancel('tx-1')
      await closed
      const { data, response } = await client.events.cancel('tx-2').withResponse()

      expect(data).toBe(true)
      expect(response.attempts).toBeLessThanOrEqual(2)
      expect(server.received.map((seen) => seen.connection)).toEqual([1, 2])
    })

    it('a connection cut after the response started is not a stale socket: no free retry', async () => {
      const server = await serve((request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
        response.write('{"data":')
        setImmediate(() => request.socket.destroy())
      })
      const client = connect(server, NO_RETRIES)

      const error = await rejectionOf(client.events.cancel('tx-1'))

      expect(error).toBeInstanceOf(ConnectionError)
      expect((error as ConnectionError).responseStarted).toBe(true)
      expect((error as ConnectionError).attempts).toBe(1)
      expect(server.received).toHaveLength(1)
    })
  })

  describe('a refused connection, retried', () => {
    it('is retried with backoff and succeeds once the server is up', async () => {
      // A port free a moment ago, left closed for the first attempt.
      const port = await closedPort()
      const { client, retries } = loggingClientFor({ baseUrl: `http://127.0.0.1:${port}` }, {}, transport)
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
      vi.spyOn(Math, 'random').mockReturnValue(0)

      const call = client.events.cancel('tx-1').withResponse()
      while (retries().length < 1) await nextTurns()
      expect(retries()[0]!.details).toMatchObject({ delayMs: 500, reason: 'connection error' })
      const up = await serve((_request, response) => sendJson(response, 200, { data: true }), { port })
      await vi.advanceTimersByTimeAsync(500)
      const { data, response } = await call

      expect(data).toBe(true)
      expect(response.attempts).toBe(2)
      expect(up.received).toHaveLength(1)
    })
  })

  describe('close()', () => {
    it('a call after close() fails with ClientClosedError, nothing sent; the SDK closes only what it made', async () => {
      const ok = await serve((_req, res) => sendJson(res, 200, { data: true }))
      const { client: sdk, retries } = loggingClientFor(ok, {}, transport)
      await sdk.events.cancel('tx')
      const [socket] = ok.sockets()
      expect(ok.sockets()).toHaveLength(1)
      const socketClosed = new Promise<void>((resolve) => socket?.once('close', () => resolve()))
      await sdk.close()
      if (transport === 'undici') {
        // The client's own Agent is closed, and its idle socket with it.
        await socketClosed
      } else {
        // The fetch is the user's (here Node's global one): its pool and socket are left alone.
        await nextTurns()
        expect(ok.sockets()).toEqual([socket])
      }
      const error = await rejectionOf(sdk.events.cancel('tx'))
      expect(error).toBeInstanceOf(ClientClosedError)
      expect((error as ClientClosedError).code).toBe('NOTIFYKIT_CLIENT_CLOSED')
      expect((error as ClientClosedError).attempts).toBe(0)
      expect(retries()).toHaveLength(0)
      expect(ok.requests()).toBe(1)
    })
  })
})

// What only undici's pool offers: a bound on its connections, and dispatchers the user passes (an
// Agent, MockAgent, a composed interceptor). The `fetch` option takes a function, not a pool, so
// none of these exist over fetch.
describe('undici only: its pool and the dispatchers the user passes', () => {
  it('a timeout while the request waits for a connection: TimeoutError, and it is never sent', async () => {
    const slow = await serve((_req, res) => {
      setTimeout(() => sendJson(res, 200, { data: true }), 1_000)
    })
    const sdk = clientFor(slow, { ...NO_RETRIES, dispatcher: onePool() })
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
    const error = await rejectionOf(
      clientFor({ baseUrl: 'http://127.0.0.1:9' }, { ...NO_RETRIES, dispatcher }).events.cancel('tx'),
    )
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError).message).toContain('dispatcher out of order')
    expect(((error as ConnectionError).cause as Error).message).toBe('dispatcher out of order')
  })

  it('never closes a dispatcher the user passed in', async () => {
    const ok = await serve((_req, res) => sendJson(res, 200, { data: true }))
    const agent = new Agent()
    cleanups.push(() => agent.close())
    const first = clientFor(ok, { dispatcher: agent })
    await first.events.cancel('tx-1')
    await first.close()
    expect(agent.closed).toBe(false)
    // The closed client sends nothing more, even through a dispatcher that is still open.
    await expect(first.events.cancel('tx-1')).rejects.toBeInstanceOf(ClientClosedError)
    expect(ok.requests()).toBe(1)
    await nextEventLoopTurn()
    const second = clientFor(ok, { dispatcher: agent })
    await expect(second.events.cancel('tx-2')).resolves.toBe(true)
    // Still the same pooled socket: the user's Agent was left alone.
    expect(ok.connections()).toBe(1)
  })

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
    const sdk = clientFor({ baseUrl: 'https://api.test' }, { dispatcher: mockAgent, maxRetries: 2 })
    await expect(sdk.events.cancel('tx-1')).resolves.toBe(true)
    const triggered = await sdk.events.trigger({ name: 'w', to: 'u' }, { maxRetries: 1 }).withResponse()
    expect(triggered.data.transactionId).toBe('tx-2')
    expect(triggered.response.attempts).toBe(2)
    mockAgent.assertNoPendingInterceptors()
  })

  it('an Agent composed with an interceptor carries the calls over a real socket', async () => {
    const ok = await serve((_req, res) => sendJson(res, 200, { data: true }))
    const seen: string[] = []
    const logPaths: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
      seen.push(`${options.method} ${options.path}`)
      return dispatch(options, handler)
    }
    const agent = new Agent()
    cleanups.push(() => agent.close())
    const sdk = clientFor(ok, { ...NO_RETRIES, dispatcher: agent.compose(logPaths) })
    await expect(sdk.events.cancel('tx-1')).resolves.toBe(true)
    expect(seen).toEqual(['DELETE /v1/events/trigger/tx-1'])
  })
})
