import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServer, type Server, type Socket } from 'node:net'
import { Agent } from 'undici'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { NotificationClient, ResponseTooLargeError, TimeoutError } from '../../src/index.js'
import { silentLogger } from '../helpers/logs.js'
import { startServer, type TestServer } from '../helpers/servers.js'
import { nodeFetch, TRANSPORTS } from '../helpers/transport.js'
import { settle } from '../helpers/wire.js'

const LIMIT = 64 * 1024
const NOTIFICATION = {
  _id: 'n1',
  _environmentId: 'e1',
  _organizationId: 'o1',
  _subscriberId: 's1',
  transactionId: 't1',
}

/** A JSON body of exactly `size` bytes that notifications.get accepts. */
function notificationBody(size: number): string {
  const prefix = `${JSON.stringify({ ...NOTIFICATION, pad: '' }).slice(0, -2)}`
  return `${prefix}${'x'.repeat(size - prefix.length - 2)}"}`
}

/** Writes 16 KiB chunks until the client hangs up: a body with no end and no declared size. */
function streamForever(response: ServerResponse): void {
  const chunk = 'x'.repeat(16 * 1024)
  const pump = () => {
    while (!response.destroyed && response.write(chunk)) {
      // keep writing until the socket pushes back
    }
  }
  response.on('drain', pump)
  pump()
}

describe.each(TRANSPORTS)('over %s', (transport) => {
  const connection = transport === 'fetch' ? { fetch: nodeFetch } : {}

  describe('maxResponseBytes', () => {
    let server: TestServer
    let client: NotificationClient

    beforeAll(async () => {
      server = await startServer((request, response) => {
        const [, kind, size] = (request.url ?? '').match(/\/v1\/notifications\/([a-z-]+)-(\d+)$/) ?? []
        const bytes = Number(size)
        switch (kind) {
          case 'sized':
            response.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes })
            response.end(notificationBody(bytes))
            return
          case 'chunked':
            // Several writes and no content-length: node sends it chunked.
            response.writeHead(200, { 'content-type': 'application/json' })
            response.write(notificationBody(bytes).slice(0, 1000))
            response.end(notificationBody(bytes).slice(1000))
            return
          case 'endless':
            response.writeHead(bytes, { 'content-type': 'application/json' })
            streamForever(response)
            return
          case 'declared':
            // Declares more than the limit, sends a little, and waits.
            response.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes })
            response.write('{"_id":')
            return
          default:
            response.writeHead(200, { 'content-type': 'application/json' })
            response.end(JSON.stringify({ data: NOTIFICATION }))
        }
      })
      client = new NotificationClient({
        apiKey: 'key',
        baseUrl: server.baseUrl,
        maxResponseBytes: LIMIT,
        logger: silentLogger,
        ...connection,
      })
    })
    afterAll(async () => {
      await client.close()
      await server.close()
    })

    it.each([
      ['declared by content-length', `declared-${LIMIT + 1}`],
      ['sent with a content-length', `sized-${LIMIT + 1}`],
      ['sent chunked', `chunked-${LIMIT + 1}`],
      ['streamed without end', 'endless-200'],
      ['streamed without end in an error response', 'endless-500'],
    ])(
      'a body over the limit %s is a ResponseTooLargeError, not retried; the next call works',
      async (_label, id) => {
        const outcome = await settle(client.notifications.get(id))
        const error = outcome.ok ? undefined : (outcome.error as ResponseTooLargeError)
        expect(error).toBeInstanceOf(ResponseTooLargeError)
        expect(error?.code).toBe('NOTIFYKIT_RESPONSE_TOO_LARGE')
        expect(error?.limitBytes).toBe(LIMIT)
        expect(error?.attempts).toBe(1)
        const socket = server.received.at(-1)?.socket
        await expect(client.notifications.get('fine')).resolves.toEqual(NOTIFICATION)
        // Released: closed by the client, or (when the whole response had already arrived) reused
        // cleanly for the next call. A socket left open and unused would be a leak.
        const nextSocket = server.received.at(-1)?.socket
        await vi.waitFor(() => expect(socket?.destroyed || nextSocket === socket).toBe(true))
      },
    )

    it.each([
      ['with a content-length', 'sized'],
      ['chunked', 'chunked'],
    ])('a body of exactly the limit %s is read', async (_label, kind) => {
      await expect(client.notifications.get(`${kind}-${LIMIT}`)).resolves.toMatchObject(NOTIFICATION)
    })

    // undici only: a pool bounded to one connection is undici's; the fetch option takes no pool.
    it.skipIf(transport === 'fetch')(
      'on a pool of one connection, the next call is not stuck behind the cut-off body',
      async () => {
        const dispatcher = new Agent({ connections: 1 })
        const single = client.withOptions({ dispatcher, timeoutMs: 2_000, maxRetries: 0 })
        try {
          for (const id of [`chunked-${LIMIT * 2}`, 'endless-200', `declared-${LIMIT * 4}`]) {
            await expect(single.notifications.get(id)).rejects.toBeInstanceOf(ResponseTooLargeError)
            await expect(single.notifications.get('fine')).resolves.toEqual(NOTIFICATION)
          }
        } finally {
          await dispatcher.close()
        }
      },
    )

    it('defaults to 10 MiB', async () => {
      const byDefault = new NotificationClient({
        apiKey: 'key',
        baseUrl: server.baseUrl,
        logger: silentLogger,
        ...connection,
      })
      try {
        const tenMiB = 10 * 1024 * 1024
        await expect(byDefault.notifications.get(`chunked-${tenMiB}`)).resolves.toMatchObject(NOTIFICATION)
        const outcome = await settle(byDefault.notifications.get(`declared-${tenMiB + 1}`))
        expect(outcome.ok ? undefined : (outcome.error as ResponseTooLargeError).limitBytes).toBe(tenMiB)
      } finally {
        await byDefault.close()
      }
    })
  })

  describe('a body with no length that ends only when the connection closes', () => {
    let server: Server
    let baseUrl: string
    const sockets = new Set<Socket>()

    beforeAll(async () => {
      // node:http cannot send this shape; a raw socket can: HTTP/1.1, no content-length, not chunked.
      server = createServer((socket) => {
        sockets.add(socket)
        socket.on('error', () => undefined)
        socket.on('close', () => sockets.delete(socket))
        socket.once('data', () => {
          socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n')
          const chunk = 'x'.repeat(16 * 1024)
          const pump = () => {
            while (!socket.destroyed && socket.write(chunk)) {
              // until the socket pushes back
            }
          }
          socket.on('drain', pump)
          pump()
        })
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    })

    it('is cut off at the limit and the socket closed', async () => {
      const client = new NotificationClient({
        apiKey: 'key',
        baseUrl,
        maxResponseBytes: LIMIT,
        logger: silentLogger,
        ...connection,
      })
      try {
        await expect(client.notifications.get('n1')).rejects.toBeInstanceOf(ResponseTooLargeError)
        await vi.waitFor(() => expect(sockets.size).toBe(0))
      } finally {
        await client.close()
      }
    })
  })

  describe('a slow-drip body', () => {
    let server: TestServer

    beforeAll(async () => {
      server = await startServer((_request, response) => {
        // Headers at once, then one byte every 20 ms: undici's idle timers never fire.
        response.writeHead(200, { 'content-type': 'application/json' })
        const timer = setInterval(() => response.write(' '), 20)
        response.on('close', () => clearInterval(timer))
      })
    })
    afterAll(async () => {
      await server.close()
    })

    it('is bounded by timeoutMs', async () => {
      const client = new NotificationClient({
        apiKey: 'key',
        baseUrl: server.baseUrl,
        timeoutMs: 300,
        maxRetries: 0,
        logger: silentLogger,
        ...connection,
      })
      try {
        const started = Date.now()
        const outcome = await settle(client.notifications.get('n1'))
        expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(TimeoutError)
        // Bounded, not exact: the drip alone would go on forever.
        expect(Date.now() - started).toBeLessThan(5_000)
        const socket = server.received.at(-1)?.socket
        await vi.waitFor(() => expect(socket?.destroyed).toBe(true))
      } finally {
        await client.close()
      }
    })
  })
})
