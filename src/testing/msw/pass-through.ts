import { Readable } from 'node:stream'
import { type Dispatcher, getGlobalDispatcher, request as send } from 'undici'

// `new Response()` refuses a body for these statuses.
const NULL_BODY_STATUSES = new Set([204, 205, 304])

/**
 * Sends a request msw lets through to the network, as msw's interceptors do for the requests they
 * let through: there is no network behind an msw dispatcher, so this is undici's global dispatcher
 * (`getGlobalDispatcher()`, which Node's `fetch` and undici's `request()` use unless given another:
 * a `setGlobalDispatcher(mockAgent)` applies). As it is: no redirect followed, no body decoded, no
 * header added, and aborted with the request's signal.
 */
export async function passThrough(request: Request): Promise<Response> {
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined
  const answer = await send(request.url, {
    method: request.method as Dispatcher.HttpMethod,
    headers: request.headers,
    body,
    signal: request.signal,
    dispatcher: getGlobalDispatcher(),
  })
  const headers = new Headers()
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, one)
  }
  const init = { status: answer.statusCode, statusText: answer.statusText, headers }
  if (NULL_BODY_STATUSES.has(answer.statusCode)) {
    await answer.body.dump()
    return new Response(null, init)
  }
  return new Response(Readable.toWeb(answer.body) as ReadableStream<Uint8Array>, init)
}
