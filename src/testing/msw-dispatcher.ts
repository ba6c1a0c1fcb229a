import type { RequestHandler } from 'msw'
import { FetchHandlerDispatcher } from './fetch-dispatcher.js'
import { loadMsw } from './msw.js'

/**
 * An undici `Dispatcher` that answers from msw request handlers. msw's interceptors cannot see
 * requests made through undici's own `Dispatcher.request()`, so pass this as the client's
 * `dispatcher` instead of starting an msw server. Needs msw (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { http, HttpResponse } from 'msw'
 * const dispatcher = createMswDispatcher([
 *   http.post('https://api.test/v1/events/trigger', () =>
 *     HttpResponse.json({ data: { acknowledged: true, status: 'processed', transactionId: 't1' } }, { status: 201 }),
 *   ),
 * ])
 * const client = new NotificationClient({ apiKey: 'test', baseUrl: 'https://api.test', dispatcher })
 * ```
 */
export function createMswDispatcher(handlers: readonly RequestHandler[]): FetchHandlerDispatcher {
  const { getResponse } = loadMsw('createMswDispatcher')
  const list = [...handlers]
  return new FetchHandlerDispatcher((request) => getResponse(list, request))
}
