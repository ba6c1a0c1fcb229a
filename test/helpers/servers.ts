import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface TestServer {
  server: Server
  /** `http://127.0.0.1:<port>` */
  baseUrl: string
  port: number
  /** TCP connections accepted so far. */
  connections(): number
  /** Requests received so far. */
  requests(): number
  /** The server's sockets that are still open. */
  sockets(): Socket[]
  /** Stops listening and destroys every open socket. */
  close(): Promise<void>
}

/** A node:http server on 127.0.0.1 with a free port, counting connections and requests. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  let connections = 0
  let requests = 0
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    requests++
    handler(req, res)
  })
  server.on('connection', (socket) => {
    connections++
    sockets.add(socket)
    // A client that resets the connection is what some tests do on purpose.
    socket.on('error', () => undefined)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    requests: () => requests,
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
