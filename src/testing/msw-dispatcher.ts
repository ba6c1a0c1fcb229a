import type { RequestHandler } from 'msw'
import { FetchHandlerDispatcher } from './fetch-dispatcher.js'
import { loadMsw } from './msw.js'

/**
 * Where the handlers come from when they change between tests: an msw server (`setupServer()` from
 * `msw/node`), read on every request, so `server.use()` overrides and `server.resetHandlers()`
 * restores, as they do for requests msw intercepts.
 */
export interface MswHandlerSource {
  /**
   * The handlers in force now, overrides first: msw's `server.listHandlers()`.
   * @example `createMswDispatcher(server)` with `const server = setupServer(...fake.handlers)`
   */
  listHandlers(): ReadonlyArray<unknown>
}

/**
 * An undici `Dispatcher` that answers from msw request handlers. msw's interceptors cannot see
 * requests made through undici's own `Dispatcher.request()`, so pass this as the client's
 * `dispatcher`. Give it a list of handlers (fixed), or your msw server, whose current handlers it
 * uses on every request: per-test `server.use()` overrides then apply to the client too. Needs msw
 * (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { http, HttpResponse } from 'msw'
 * import { setupServer } from 'msw/node'
 * const server = setupServer(...fake.handlers)
 * const client = new NotificationClient({ apiKey: 'test', baseUrl: 'https://api.test', dispatcher: createMswDispatcher(server) })
 * // in one test: the client gets 503 until server.resetHandlers()
 * server.use(http.post('https://api.test/v1/events/trigger', () => HttpResponse.json({}, { status: 503 })))
 * // or a fixed list:
 * const dispatcher = createMswDispatcher([
 *   http.post('https://api.test/v1/events/trigger', () =>
 *     HttpResponse.json({ data: { acknowledged: true, status: 'processed', transactionId: 't1' } }, { status: 201 }),
 *   ),
 * ])
 * ```
 */
export function createMswDispatcher(
  handlers: readonly RequestHandler[] | MswHandlerSource,
): FetchHandlerDispatcher {
  const { getResponse } = loadMsw('createMswDispatcher')
  if ('listHandlers' in handlers) {
    const source = handlers
    // WebSocket handlers sit in the same list; only request handlers answer HTTP.
    return new FetchHandlerDispatcher((request) =>
      getResponse(source.listHandlers().filter(isRequestHandler), request),
    )
  }
  const list = [...handlers]
  return new FetchHandlerDispatcher((request) => getResponse(list, request))
}

/** msw marks its handler kinds with `kind`; checked by shape, so handlers of another msw copy (ESM or CJS) count too. */
function isRequestHandler(handler: unknown): handler is RequestHandler {
  return typeof handler === 'object' && handler !== null && (handler as { kind?: unknown }).kind === 'request'
}
