import type { HttpHandler } from 'msw'
import { loadMsw } from '../msw.js'
import { ROUTES, type RouteMethod } from './routes.js'

/** The fake's seven routes as msw handlers, on any origin: what `fake.handlers` returns. */
export function fakeMswHandlers(handle: (request: Request) => Promise<Response>): HttpHandler[] {
  const { http } = loadMsw('fake.handlers')
  const byMethod: Record<RouteMethod, typeof http.get> = {
    GET: http.get,
    POST: http.post,
    PATCH: http.patch,
    DELETE: http.delete,
  }
  return ROUTES.map((route) => byMethod[route.method](`*${route.pattern}`, ({ request }) => handle(request)))
}
