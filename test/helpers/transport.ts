import { type FetchFunction, NotificationClient, type NotificationClientOptions } from '../../src/index.js'
import { API_KEY } from './wire.js'

/** The SDK's two transports: undici's pool (the default on Node), and a WHATWG fetch (the `fetch` option). */
export const TRANSPORTS = ['undici', 'fetch'] as const
export type TransportName = (typeof TRANSPORTS)[number]

/** Node's global fetch, passed as a user passes it: over a real socket, through Node's own pool. */
export const nodeFetch: FetchFunction = (url, init) => fetch(url, init)

const open = new Set<NotificationClient>()

/**
 * A client to a server on 127.0.0.1 over the named transport: the SDK's own undici Agent (or the
 * `dispatcher` in `options`), or Node's global fetch. `closeClients` ends them all.
 */
export function clientFor(
  server: { baseUrl: string },
  options: NotificationClientOptions = {},
  transport: TransportName = 'undici',
) {
  const connection = transport === 'fetch' ? { fetch: nodeFetch } : {}
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: server.baseUrl,
    ...connection,
    ...options,
  })
  open.add(client)
  return client
}

/** Closes every client `clientFor` made; for afterEach. */
export async function closeClients(): Promise<void> {
  const clients = [...open]
  open.clear()
  await Promise.all(clients.map((client) => client.close()))
}
