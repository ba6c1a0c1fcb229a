import type { RequestHandler, UnhandledRequestStrategy } from 'msw'
import { type Dispatcher, errors } from 'undici'
import { FetchHandlerDispatcher } from '../fetch-dispatcher.js'
import { msw } from './msw-module.js'
import { passThrough } from './pass-through.js'

/**
 * Where the handlers come from when they change between tests: an msw server (`setupServer()` from
 * `msw/node`), read on every request, so `server.use()` overrides and `server.resetHandlers()`
 * restores, as they do for requests msw intercepts.
 */
export interface MswHandlerSource {
  /**
   * The handlers in force now, overrides first: msw's `server.listHandlers()`.
   * @example `createMswDispatcher(server)` with `const server = setupServer(...fakeHandlers(fake))`
   */
  listHandlers(): ReadonlyArray<unknown>
}

export interface MswDispatcherOptions {
  /**
   * What happens to a request that no handler answers, as msw's own `onUnhandledRequest` (same values,
   * same messages). An msw server does not tell anyone else the value its `listen()` was given: pass
   * the dispatcher the same one. Default `'error'`, where msw's is `'warn'`: a test whose request no
   * handler answers then fails at once, rather than sending it for real, which with a real base URL
   * and key in the environment would send real notifications.
   *
   * - `'error'`: msw prints its error, and the request fails at once with msw's message: the client
   *   rejects with a `ConnectionError` it does not retry (its cause, undici's
   *   `InvalidArgumentError`, is the error for a request a dispatcher refuses to send).
   * - `'warn'`: msw prints its warning, and the request is sent for real, as with `'bypass'`.
   * - `'bypass'`: the request is sent for real. There is no network behind this dispatcher, so "for
   *   real" is undici's global dispatcher (`getGlobalDispatcher()`, the one Node's `fetch` uses unless
   *   given another), as msw lets an intercepted request through: as it is, no redirect followed,
   *   given up when the client gives it up.
   * - a function `(request, print)`: msw's callback; `print.warning()` prints msw's warning,
   *   `print.error()` prints msw's error and fails the request as `'error'` does, and so does an
   *   error it throws; when it returns, the request is sent for real.
   *
   * As with msw, a request a handler matches without answering it (`return` with no response, or
   * msw's `passthrough()`) is not unhandled: it is sent for real, whatever this option says.
   *
   * @example
   * ```ts
   * beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
   * const dispatcher = createMswDispatcher(server, { onUnhandledRequest: 'error' })
   * ```
   */
  onUnhandledRequest?: UnhandledRequestStrategy
}

/**
 * An undici `Dispatcher` that answers from msw request handlers, as msw's own interceptors do for
 * `fetch`: msw's interceptors cannot see requests made through undici's own `Dispatcher.request()`,
 * so pass this as the client's `dispatcher`. Give it a list of handlers (fixed), or your msw server,
 * whose current handlers it uses on every request: per-test `server.use()` overrides then apply to
 * the client too. A request no handler answers gets `options.onUnhandledRequest`, `'error'` by
 * default: it fails at once with msw's message ({@link MswDispatcherOptions}).
 *
 * @param handlers msw request handlers, or an msw server (anything with `listHandlers()`).
 * @param options What happens to unhandled requests.
 * @example
 * ```ts
 * import { http, HttpResponse } from 'msw'
 * import { setupServer } from 'msw/node'
 * import { createMswDispatcher, fakeHandlers } from 'notifykit/testing/msw'
 *
 * const server = setupServer(...fakeHandlers(fake))
 * beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
 * const client = new NotificationClient({
 *   apiKey: 'test',
 *   baseUrl: 'https://api.test',
 *   dispatcher: createMswDispatcher(server, { onUnhandledRequest: 'error' }),
 * })
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
  options: MswDispatcherOptions = {},
): Dispatcher {
  const strategy = options.onUnhandledRequest ?? 'error'
  const current = currentHandlers(handlers)
  return new FetchHandlerDispatcher((request) => respond(request, current(), strategy))
}

function currentHandlers(handlers: readonly RequestHandler[] | MswHandlerSource): () => RequestHandler[] {
  if ('listHandlers' in handlers) {
    const source = handlers
    // WebSocket handlers sit in the same list; only request handlers answer HTTP.
    return () => source.listHandlers().filter(isRequestHandler)
  }
  const list = [...handlers]
  return () => list
}

/** msw marks its handler kinds with `kind`; checked by shape, so handlers of another msw copy (ESM or CJS) count too. */
function isRequestHandler(handler: unknown): handler is RequestHandler {
  return typeof handler === 'object' && handler !== null && (handler as { kind?: unknown }).kind === 'request'
}

// handleRequest reports each step to an event emitter; no one listens to this dispatcher's.
const NO_LISTENER = { emit: () => false } as unknown as Parameters<typeof msw.handleRequest>[4]

/**
 * Answers as msw does an intercepted request, through `handleRequest`, which msw exports for tools
 * like this one (@mswjs/http-middleware): the mocked response, or nothing for a request msw lets
 * through, which is then sent for real. Only a request no handler matched gets the strategy first.
 */
async function respond(
  request: Request,
  handlers: RequestHandler[],
  strategy: UnhandledRequestStrategy,
): Promise<Response> {
  let unhandled = false
  const noticeUnhandled = () => {
    unhandled = true
  }
  const response = await msw.handleRequest(
    request,
    crypto.randomUUID(),
    handlers,
    { onUnhandledRequest: noticeUnhandled },
    NO_LISTENER,
  )
  if (response) return response
  // Applied here, not inside handleRequest: its error must be told apart from a handler's.
  if (unhandled) await applyStrategy(request, strategy)
  return passThrough(request)
}

async function applyStrategy(request: Request, strategy: UnhandledRequestStrategy): Promise<void> {
  try {
    await msw.onUnhandledRequest(request, strategy)
  } catch (error) {
    throw refusal(request, error)
  }
}

/**
 * undici's error for a request a dispatcher refuses to send (`UND_ERR_INVALID_ARG`): the client fails
 * the call at once, as a retry would be refused the same way.
 */
function refusal(request: Request, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause)
  const error = new errors.InvalidArgumentError(
    `No msw handler answered ${request.method} ${request.url}: ${reason}`,
  )
  return Object.assign(error, { cause })
}
