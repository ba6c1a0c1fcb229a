import { randomUUID } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ConnectionError,
  NotificationClient,
  type NotificationClientOptions,
  TimeoutError,
} from '../../../src/index.js'

// Transport faults on real sockets (node:http servers on 127.0.0.1): dropped connections, stale
// keep-alive sockets, hanging servers. Real timers with small timeouts unless a test says otherwise.

const API_KEY = 'nk_live_socket_suite_0123456789'
const EVENT = { name: 'order-shipped', to: 'user-1', payload: { orderId: 'o-42' } }

/** What a test server saw of one request. */
interface Seen {
  method: string
  path: string
  key: string | undefined
  /** Which connection it came on (1 = the first the server accepted) and its rank on that connection. */
  socket: number
  requestOnSocket: number
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, seen: Seen) => void

interface TestServer {
  baseUrl: string
  port: number
  seen: Seen[]
  server: http.Server
  /** Resolves once `count` requests have arrived. */
  requests(count: number): Promise<void>
  close(): Promise<void>
}

const servers: TestServer[] = []
const clients: NotificationClient[] = []

afterEach(async () => {
  vi.useRealTimers()
  vi.restoreAllMocks()
  await Promise.all(clients.splice(0).map((client) => client.close()))
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** Starts a node:http server on 127.0.0.1 that reads each body fully before `handle` runs. */
async function startServer(handle: Handler, port = 0): Promise<TestServer> {
  const seen: Seen[] = []
  const socketIds = new WeakMap<Socket, { id: number; requests: number }>()
  let sockets = 0
  let arrived: (() => void) | undefined
  const server = http.createServer((request, response) => {
    let socket = socketIds.get(request.socket)
    if (!socket) {
      socket = { id: ++sockets, requests: 0 }
      socketIds.set(request.socket, socket)
    }
    socket.requests++
    const entry: Seen = {
      method: request.method ?? '',
      path: request.url ?? '',
      key: request.headers['idempotency-key'] as string | undefined,
      socket: socket.id,
      requestOnSocket: socket.requests,
    }
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      seen.push(entry)
      arrived?.()
      ;(request as http.IncomingMessage & { text?: string }).text = Buffer.concat(chunks).toString('utf8')
      handle(request, response, entry)
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const { port: boundPort } = server.address() as AddressInfo
  const testServer: TestServer = {
    baseUrl: `http://127.0.0.1:${boundPort}`,
    port: boundPort,
    seen,
    server,
    async requests(count) {
      while (seen.length < count) await new Promise<void>((resolve) => (arrived = resolve))
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  servers.push(testServer)
  return testServer
}

function bodyOf(request: http.IncomingMessage): string {
  return (request as http.IncomingMessage & { text?: string }).text ?? ''
}

function json(
  response: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}

interface LogLine {
  level: string
  message: string
  details: Record<string, unknown> | undefined
}

function clientFor(server: { baseUrl: string }, options: Partial<NotificationClientOptions> = {}) {
  const lines: LogLine[] = []
  const write = (level: string) => (message: string, details?: Record<string, unknown>) =>
    lines.push({ level, message, details })
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: server.baseUrl,
    logger: { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') },
    logLevel: 'info',
    ...options,
  })
  clients.push(client)
  const retries = () => lines.filter((line) => line.level === 'info')
  return { client, lines, retries }
}

/** Lets undici return a finished socket to its pool before the next call. */
async function nextTurn(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise<void>((resolve) => setImmediate(resolve))
}

describe('a trigger the server applied before the connection dropped', () => {
  /**
   * The server of server-notes.md in miniature: it applies a trigger under its idempotency key,
   * replays the stored result for the same key, and here drops the first connection right after
   * applying, before a byte of the answer.
   */
  function applyThenDropServer() {
    const applied = new Map<string, { result: unknown; body: string; applications: number }>()
    let drops = 0
    const ready = startServer((request, response) => {
      const key = request.headers['idempotency-key'] as string
      const stored = applied.get(key)
      if (stored) {
        const sameBody = stored.body === bodyOf(request)
        if (!sameBody) return json(response, 422, { statusCode: 422, message: 'Idempotency key reused' })
        return json(
          response,
          201,
          { data: stored.result },
          { 'idempotency-key': key, 'idempotency-replay': 'true' },
        )
      }
      const result = { acknowledged: true, status: 'processed', transactionId: randomUUID() }
      applied.set(key, { result, body: bodyOf(request), applications: 1 })
      if (drops++ === 0) {
        request.socket.destroy()
        return
      }
      json(response, 201, { data: result })
    })
    return { applied, ready }
  }

  it('is applied exactly once: the retry carries the same key and gets the replayed result', async () => {
    const { applied, ready } = applyThenDropServer()
    const server = await ready
    const { client, retries } = clientFor(server)

    const { data, response } = await client.events.trigger(EVENT).withResponse()

    const key = response.idempotencyKey!
    expect(server.seen.map((seen) => seen.key)).toEqual([key, key])
    expect(server.seen.map((seen) => seen.socket)).toEqual([1, 2])
    expect(applied.size).toBe(1)
    expect(applied.get(key)?.applications).toBe(1)
    expect(data).toEqual(applied.get(key)?.result)
    expect(response.attempts).toBe(2)
    expect(response.headers['idempotency-replay']).toBe('true')
    expect(retries()).toHaveLength(1)
    expect(JSON.stringify(retries())).not.toContain(key)
  })

  it('a job re-run with a key from the business event is not applied twice either', async () => {
    const { applied, ready } = applyThenDropServer()
    const server = await ready
    const { client } = clientFor(server)
    const idempotencyKey = 'order-o-42-shipped'

    const first = await client.events.trigger(EVENT, { idempotencyKey })
    // The queue runs the handler again (it crashed after the call, say): same event, same key.
    const rerun = await client.events.trigger(EVENT, { idempotencyKey }).withResponse()

    expect(server.seen.map((seen) => seen.key)).toEqual([idempotencyKey, idempotencyKey, idempotencyKey])
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
    const server = await startServer((request, response, seen) => {
      if (seen.requestOnSocket === 2) return request.socket.destroy()
      json(response, 201, {
        data: { acknowledged: true, status: 'processed', transactionId: `tx-${seen.socket}` },
      })
    })
    const { client, retries } = clientFor(server, { maxRetries: 0 })

    await client.events.trigger(EVENT)
    await nextTurn()
    const { data, response } = await client.events.trigger(EVENT).withResponse()

    expect(data.transactionId).toBe('tx-2')
    expect(response.attempts).toBe(2)
    expect(server.seen.map((seen) => [seen.socket, seen.requestOnSocket])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ])
    expect(server.seen[1]!.key).toBe(response.idempotencyKey)
    expect(server.seen[2]!.key).toBe(response.idempotencyKey)
    expect(retries().map((line) => line.details)).toEqual([
      { attempt: 2, maxAttempts: 2, delayMs: 0, reason: 'stale keep-alive socket' },
    ])
  })

  it('the free retry is only one: a second drop fails the call with ConnectionError', async () => {
    const server = await startServer((request, response, seen) => {
      if (seen.socket === 1 && seen.requestOnSocket === 1) return json(response, 200, { data: true })
      request.socket.destroy()
    })
    const { client } = clientFor(server, { maxRetries: 0 })

    await client.events.cancel('tx-1')
    await nextTurn()
    const error = await client.events.cancel('tx-2').then(
      () => undefined,
      (caught: unknown) => caught,
    )

    expect(error).toBeInstanceOf(ConnectionError)
    expect(error).not.toBeInstanceOf(TimeoutError)
    expect((error as ConnectionError).attempts).toBe(2)
    expect(server.seen).toHaveLength(3)
  })

  it('an idle keep-alive socket closed by the server: the next call succeeds', async () => {
    const server = await startServer((_request, response) => json(response, 200, { data: true }))
    server.server.keepAliveTimeout = 20
    const closed = new Promise<void>((resolve) =>
      server.server.once('connection', (socket: Socket) => socket.once('close', () => resolve())),
    )
    const { client } = clientFor(server, { maxRetries: 0 })

    await client.events.cancel('tx-1')
    await closed
    const { data, response } = await client.events.cancel('tx-2').withResponse()

    expect(data).toBe(true)
    expect(response.attempts).toBeLessThanOrEqual(2)
    expect(server.seen.map((seen) => seen.socket)).toEqual([1, 2])
  })

  it('a connection cut after the response started is not a stale socket: no free retry', async () => {
    const server = await startServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      response.write('{"data":')
      setImmediate(() => request.socket.destroy())
    })
    const { client } = clientFor(server, { maxRetries: 0 })

    const error = await client.events.cancel('tx-1').then(
      () => undefined,
      (caught: unknown) => caught,
    )

    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError).responseStarted).toBe(true)
    expect((error as ConnectionError).attempts).toBe(1)
    expect(server.seen).toHaveLength(1)
  })
})

describe('timeouts on a real socket', () => {
  it('a server that never answers: TimeoutError after timeoutMs', async () => {
    const server = await startServer(() => {})
    const { client } = clientFor(server, { maxRetries: 0, timeoutMs: 50 })
    const started = performance.now()
    const error = await client.events.trigger(EVENT).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    const elapsed = performance.now() - started
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).message).toBe('Attempt timed out after 50 ms')
    expect((error as TimeoutError).attempts).toBe(1)
    // Not before timeoutMs; the upper bound is loose because a loaded machine delays timers.
    expect(elapsed).toBeGreaterThanOrEqual(45)
    expect(elapsed).toBeLessThan(5_000)
  })

  it('timeoutMs also bounds a body that stops arriving', async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"data":')
    })
    const { client } = clientFor(server, { maxRetries: 0, timeoutMs: 80 })
    const error = await client.events.cancel('tx-1').then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).attempts).toBe(1)
  })

  it('with retries: every attempt is bounded, maxRetries + 1 attempts with the same key', async () => {
    const server = await startServer(() => {})
    const { client, retries } = clientFor(server, { timeoutMs: 40 })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    vi.spyOn(Math, 'random').mockReturnValue(0)
    let settled: unknown
    const call = client.events.trigger(EVENT).then(
      () => undefined,
      (caught: unknown) => {
        settled = caught
      },
    )
    for (let attempt = 1; attempt <= 3; attempt++) {
      await server.requests(attempt)
      await vi.advanceTimersByTimeAsync(40)
      if (attempt < 3) {
        while (retries().length < attempt) await nextTurn()
        await vi.advanceTimersByTimeAsync(retries()[attempt - 1]!.details?.delayMs as number)
      }
    }
    await call
    expect(settled).toBeInstanceOf(TimeoutError)
    expect((settled as TimeoutError).attempts).toBe(3)
    expect(retries().map((line) => line.details?.reason)).toEqual(['attempt timed out', 'attempt timed out'])
    expect(new Set(server.seen.map((seen) => seen.key)).size).toBe(1)
    expect(server.seen).toHaveLength(3)
  })
})

describe('connection failures', () => {
  it('a refused connection is retried with backoff and succeeds once the server is up', async () => {
    // Find a free port, then leave it closed for the first attempt.
    const probe = await startServer(() => {})
    const port = probe.port
    await probe.close()
    servers.splice(servers.indexOf(probe), 1)
    const { client, retries } = clientFor({ baseUrl: `http://127.0.0.1:${port}` })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    vi.spyOn(Math, 'random').mockReturnValue(0)

    const call = client.events.cancel('tx-1').withResponse()
    while (retries().length < 1) await nextTurn()
    expect(retries()[0]!.details).toMatchObject({ delayMs: 500, reason: 'connection error' })
    const server = await startServer((_request, response) => json(response, 200, { data: true }), port)
    await vi.advanceTimersByTimeAsync(500)
    const { data, response } = await call

    expect(data).toBe(true)
    expect(response.attempts).toBe(2)
    expect(server.seen).toHaveLength(1)
  })

  it('maxRetries 0: a refused connection fails with ConnectionError after one attempt', async () => {
    const probe = await startServer(() => {})
    await probe.close()
    const { client } = clientFor(probe, { maxRetries: 0 })
    const error = await client.events.cancel('tx-1').then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError).attempts).toBe(1)
    expect(((error as ConnectionError).cause as { code?: string }).code).toBe('ECONNREFUSED')
  })

  it('a call on a closed client fails at once, without retries', async () => {
    const server = await startServer((_request, response) => json(response, 200, { data: true }))
    const { client, retries } = clientFor(server)
    await client.events.cancel('tx-1')
    clients.splice(clients.indexOf(client), 1)
    await client.close()
    const error = await client.events.cancel('tx-2').then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as ConnectionError).attempts).toBe(1)
    expect(retries()).toHaveLength(0)
  })
})
