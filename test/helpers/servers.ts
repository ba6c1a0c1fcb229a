import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One request as it came off the socket. */
export interface ReceivedRequest {
  method: string
  /** The path exactly as sent: percent-encoding kept, not decoded. */
  path: string
  headers: IncomingHttpHeaders
  /** The connection it came on, to see whether the client closed or reused it. */
  socket: Socket
  /** Which connection it came on: 1 for the first the server accepted. */
  connection: number
  /** Its rank on that connection, from 1: a 2 means a reused keep-alive socket. */
  requestOnConnection: number
}

export type ServerHandler = (req: IncomingMessage, res: ServerResponse, received: ReceivedRequest) => void

export interface TestServer {
  server: Server
  /** `http://127.0.0.1:<port>` */
  baseUrl: string
  port: number
  /** Requests received so far, in order. */
  readonly received: ReceivedRequest[]
  /** TCP connections accepted so far. */
  connections(): number
  /** Requests received so far. */
  requests(): number
  /** The server's sockets that are still open. */
  sockets(): Socket[]
  /** Stops listening and destroys every open socket. */
  close(): Promise<void>
}

/**
 * A node:http server on 127.0.0.1 (on `port`, or a free one) recording every request it receives,
 * with the connection it came on.
 */
export async function startServer(handler: ServerHandler, { port = 0 } = {}): Promise<TestServer> {
  const received: ReceivedRequest[] = []
  let connections = 0
  const sockets = new Set<Socket>()
  const connectionOf = new WeakMap<Socket, { id: number; requests: number }>()
  const server = createServer((req, res) => {
    const connection = connectionOf.get(req.socket) ?? { id: 0, requests: 0 }
    connection.requests++
    const request: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      socket: req.socket,
      connection: connection.id,
      requestOnConnection: connection.requests,
    }
    received.push(request)
    // A client that hangs up mid-body makes writes fail; that is the point of several tests.
    res.on('error', () => undefined)
    handler(req, res, request)
  })
  server.on('connection', (socket) => {
    connections++
    sockets.add(socket)
    connectionOf.set(socket, { id: connections, requests: 0 })
    // A client that resets the connection is what some tests do on purpose.
    socket.on('error', () => undefined)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const address = server.address() as AddressInfo
  return {
    server,
    baseUrl: `http://127.0.0.1:${address.port}`,
    port: address.port,
    received,
    connections: () => connections,
    requests: () => received.length,
    sockets: () => [...sockets],
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A port that was just open and is now closed: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** The whole request body as text. */
export async function bodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Answers JSON with its length declared. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  })
  res.end(text)
}
