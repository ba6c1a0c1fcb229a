import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FetchHandler } from './fetch-handler.js'

export interface ServeOptions {
  /**
   * 0 (default) picks a free port.
   * @example `await serveFetchHandler(handler, { port: 4010 })`
   */
  port?: number
  /**
   * Default `127.0.0.1`: the kit never listens beyond the loopback interface unless asked.
   * @example `await serveFetchHandler(handler, { host: '::1' })`
   */
  host?: string
}

export interface ServedHandler {
  /** `http://<host>:<port>`, no trailing slash. */
  baseUrl: string
  /**
   * Stops listening and closes every connection, idle keep-alive ones included.
   * @example `afterAll(() => server.close())`
   */
  close(): Promise<void>
}

/** @deprecated The same type as {@link ServedHandler}, which `fake.listen()` resolves to. */
export type FakeServer = ServedHandler

/**
 * Serves a Fetch-style handler over a real node:http server. `Response.error()` destroys the socket
 * without answering (the client sees a reset), and a handler that answers `undefined` gets a 404 so
 * a missing route is loud.
 *
 * @example
 * ```ts
 * const server = await serveFetchHandler((request) => Response.json({ data: true }))
 * const response = await fetch(`${server.baseUrl}/anything`)
 * await server.close()
 * ```
 */
export async function serveFetchHandler(
  handle: FetchHandler,
  options: ServeOptions = {},
): Promise<ServedHandler> {
  const host = options.host ?? '127.0.0.1'
  const server = createServer((req, res) => {
    void answer(handle, host, req, res)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | undefined
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      })
      return closing
    },
  }
}

async function answer(
  handle: FetchHandler,
  host: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    const request = await toRequest(host, req)
    const response = await handle(request)
    if (!response) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`No handler answered ${request.method} ${request.url}`)
      return
    }
    if (response.type === 'error') {
      req.socket.destroy()
      return
    }
    await writeResponse(response, res)
  } catch (error) {
    if (res.headersSent) {
      res.destroy(error instanceof Error ? error : undefined)
      return
    }
    res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
    res.end(`Handler failed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

async function toRequest(host: string, req: IncomingMessage): Promise<Request> {
  const method = req.method ?? 'GET'
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body =
    method === 'GET' || method === 'HEAD' || chunks.length === 0 ? undefined : Buffer.concat(chunks)
  const origin = `http://${req.headers.host ?? host}`
  return new Request(new URL(req.url ?? '/', origin), { method, headers, body })
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
  res.writeHead(response.status, response.statusText, headers)
  if (response.body) {
    for await (const chunk of response.body) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve))
    }
  }
  res.end()
}
