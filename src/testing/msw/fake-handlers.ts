import type { HttpHandler } from 'msw'
import { ROUTES, type RouteMethod } from '../fake/routes.js'
import { msw } from './msw-module.js'

/**
 * The fake's nine routes as msw request handlers, on any origin, each answered by `fake.handle`:
 * for your own msw server (code that sends through the global `fetch`, which msw intercepts), or for
 * {@link createMswDispatcher} (clients on undici). Requests to other paths fall through to your other
 * handlers, or to msw's `onUnhandledRequest`. A new list on each call; a fake (any object with its
 * `handle`) may have several.
 *
 * @param fake The fake service (`createFakeService()`), or anything with its `handle`.
 * @example
 * ```ts
 * import { setupServer } from 'msw/node'
 * import { createFakeService } from 'notifykit/testing'
 * import { fakeHandlers } from 'notifykit/testing/msw'
 *
 * const fake = createFakeService({ apiKey: 'test-key' })
 * const server = setupServer(...fakeHandlers(fake), ...myOtherHandlers)
 * ```
 */
export function fakeHandlers(fake: { handle(request: Request): Promise<Response> }): HttpHandler[] {
  const { http } = msw
  const byMethod: Record<RouteMethod, typeof http.get> = {
    GET: http.get,
    POST: http.post,
    PATCH: http.patch,
    DELETE: http.delete,
  }
  return ROUTES.map((route) =>
    byMethod[route.method](`*${route.pattern}`, ({ request }) => fake.handle(request)),
  )
}
