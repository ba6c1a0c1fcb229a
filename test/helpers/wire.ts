import { HttpResponse, http, type RequestHandler } from 'msw'
import { NotificationClient, type NotificationClientOptions } from '../../src/index.js'
import { createMswDispatcher, type FetchHandler, FetchHandlerDispatcher } from '../../src/testing/index.js'

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

export interface WireClient {
  client: NotificationClient
  /** Every request that reached the handlers, in order. */
  seen: SeenRequest[]
  dispatcher: FetchHandlerDispatcher
}

/**
 * A client whose requests go through createMswDispatcher to `handlers`, recording each request as
 * seen on the wire first. A request no handler answers fails the call (as a ConnectionError) but is
 * still recorded.
 */
export function mswClient(
  handlers: readonly RequestHandler[],
  options: NotificationClientOptions = {},
): WireClient {
  const seen: SeenRequest[] = []
  // Answers nothing, so msw falls through to the real handlers; reads a clone so they can read the body.
  const recorder = http.all('*', async ({ request }) => {
    seen.push(await describeRequest(request.clone()))
    return undefined
  })
  const dispatcher = createMswDispatcher([recorder, ...handlers])
  const client = new NotificationClient({ apiKey: API_KEY, baseUrl: BASE_URL, dispatcher, ...options })
  return { client, seen, dispatcher }
}

/** A client whose every request gets the same answer. */
export function answeringClient(answer: () => Response, options: NotificationClientOptions = {}): WireClient {
  return mswClient([http.all('*', () => answer())], options)
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

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
