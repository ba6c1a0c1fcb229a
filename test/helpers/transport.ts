import { NotificationClient, type NotificationClientOptions } from '../../src/index.js'
import { API_KEY } from './wire.js'

const open = new Set<NotificationClient>()

/**
 * A client over the SDK's real transport to a server on 127.0.0.1. Real-socket suites make every
 * client here, so that they can later run once per transport; `closeClients` ends them all.
 */
export function clientFor(server: { baseUrl: string }, options: NotificationClientOptions = {}) {
  const client = new NotificationClient({ apiKey: API_KEY, baseUrl: server.baseUrl, ...options })
  open.add(client)
  return client
}

/** Closes every client `clientFor` made; for afterEach. */
export async function closeClients(): Promise<void> {
  const clients = [...open]
  open.clear()
  await Promise.all(clients.map((client) => client.close()))
}
