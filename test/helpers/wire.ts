import { getResponse, HttpResponse, http, type RequestHandler } from 'msw'
import { NotificationClient, type NotificationClientOptions } from '../../src/index.js'
import { inMemoryFetch } from '../../src/testing/in-memory-fetch.js'
import { type FetchHandler, FetchHandlerDispatcher } from '../../src/testing/index.js'
import type { TransportName } from './transport.js'

export const API_KEY = 'nk_test_4f9c2b7e1a'
export const BASE_URL = 'https://api.test'

/** One request as the server received it. */
export interface SeenRequest {
  method: string
  /** The URL path exactly as sent: percent-encoding kept, not decoded. */
  pathname: string
  search: string
  url: string
  /** Lower-case names. */
  headers: Record<string, string>
  /** The body parsed as JSON; `undefined` when none was sent. */
  body: unknown
  /** The body as sent, `''` when none was. */
  text: string
}

/** The client options that choose a transport: spread into `new NotificationClient({ ... })`. */
export type Connection = Pick<NotificationClientOptions, 'dispatcher' | 'fetch'>

/** Options sending every request to `handle` in memory over the named transport. */
export function inMemory(handle: FetchHandler, transport: TransportName = 'undici'): Connection {
  return transport === 'fetch'
    ? { fetch: inMemoryFetch(handle) }
    : { dispatcher: new FetchHandlerDispatcher(handle) }
}

/**
 * Options sending every request to msw `handlers` in memory over the named transport, through
 * msw's `getResponse`: a request no handler answers fails as a dropped connection would, never
 * reaching the network (createMswDispatcher would send it for real, as msw does).
 */
export function mswConnection(
  handlers: readonly RequestHandler[],
  transport: TransportName = 'undici',
): Connection {
  const list = [...handlers]
  return inMemory((request) => getResponse(list, request), transport)
}

export interface WireClient {
  client: NotificationClient
  /** Every request that reached the handlers, in order. */
  seen: SeenRequest[]
  /** What the client sends through, to build another client on the same handlers. */
  connection: Connection
}

/**
 * A client whose requests go to msw `handlers` over the named transport, recording each request as
 * seen on the wire first. A request no handler answers fails the call (as a ConnectionError) but is
 * still recorded.
 */
export function mswClient(
  handlers: readonly RequestHandler[],
  options: NotificationClientOptions = {},
  transport: TransportName = 'undici',
): WireClient {
  const seen: SeenRequest[] = []
  // Answers nothing, so msw falls through to the real handlers; reads a clone so they can read the body.
  const recorder = http.all('*', async ({ request }) => {
    seen.push(await describeRequest(request.clone()))
    return undefined
  })
  const connection = mswConnection([recorder, ...handlers], transport)
  const client = new NotificationClient({ apiKey: API_KEY, baseUrl: BASE_URL, ...connection, ...options })
  return { client, seen, connection }
}

/** A client whose every request gets the same answer. */
export function answeringClient(
  answer: () => Response,
  options: NotificationClientOptions = {},
  transport: TransportName = 'undici',
): WireClient {
  return mswClient([http.all('*', () => answer())], options, transport)
}

export async function describeRequest(request: Request): Promise<SeenRequest> {
  const url = new URL(request.url)
  const text = await request.text()
  const headers: Record<string, string> = {}
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  return {
    method: request.method,
    pathname: url.pathname,
    search: url.search,
    url: request.url,
    headers,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
    text,
  }
}

/** The only request seen; fails the test when there were none or several. */
export function onlyRequest(seen: readonly SeenRequest[]): SeenRequest {
  if (seen.length !== 1) throw new Error(`Expected exactly one request, saw ${seen.length}`)
  return seen[0] as SeenRequest
}

/** A JSON response with a given status, for handlers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return HttpResponse.json(body as Record<string, unknown>, { status, headers })
}

/** Awaits a promise expected to reject and returns the rejection, so fields can be asserted. */
export async function rejectionOf(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('Expected the call to fail, but it succeeded')
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

/**
 * Options answering from `handle` in memory over the named transport, counting what reached it:
 * "nothing sent" means 0.
 */
export function countingConnection(
  handle: FetchHandler,
  transport: TransportName = 'undici',
): { connection: Connection; sent: Request[] } {
  const sent: Request[] = []
  const connection = inMemory((request) => {
    sent.push(request)
    return handle(request)
  }, transport)
  return { connection, sent }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
