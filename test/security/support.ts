import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from '../../src/index.js'
import { type FetchHandler, FetchHandlerDispatcher } from '../../src/testing/index.js'
import { startServer } from '../helpers/servers.js'

/** A key no real output contains by chance: any occurrence of it is a leak. */
export const CANARY_KEY = 'sk_live_SECRET_canary_123'

export interface LocalServer {
  baseUrl: string
  /** Requests received so far, in order, with the path exactly as it came off the socket. */
  readonly received: {
    method: string
    rawPath: string
    headers: IncomingMessage['headers']
    /** The connection the request came on, to see whether the client closed it. */
    socket: Socket
  }[]
  close(): Promise<void>
}

/** A node:http server on 127.0.0.1 with a free port that records what reached it. */
export async function startLocalServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LocalServer> {
  const received: LocalServer['received'] = []
  const { baseUrl, close } = await startServer((request, response) => {
    received.push({
      method: request.method ?? '',
      rawPath: request.url ?? '',
      headers: request.headers,
      socket: request.socket,
    })
    // A client that hangs up mid-body makes writes fail; that is the point of several tests.
    response.on('error', () => undefined)
    handle(request, response)
  })
  return { baseUrl, received, close }
}

/** A dispatcher answering from `handle` that counts what reached it: "nothing sent" means 0. */
export function countingDispatcher(handle: FetchHandler): {
  dispatcher: FetchHandlerDispatcher
  sent: Request[]
} {
  const sent: Request[] = []
  const dispatcher = new FetchHandlerDispatcher((request) => {
    sent.push(request)
    return handle(request)
  })
  return { dispatcher, sent }
}

/** Every line given to the logger, with its details, as one string each. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = []
  const record =
    (level: string) =>
    (message: string, ...details: unknown[]) => {
      lines.push(`${level} ${message} ${details.map((detail) => JSON.stringify(detail)).join(' ')}`)
    }
  return {
    lines,
    logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
  }
}

/** A logger that drops everything: lenient-mode warnings would flood property runs. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
}

/** Settles a promise into a value to assert on, so a rejection is never left unhandled. */
export async function settle<T>(
  promise: PromiseLike<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise }
  } catch (error) {
    return { ok: false, error }
  }
}
