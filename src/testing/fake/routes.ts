import { advance } from './engine.js'
import { HttpError, isRecord, ok, type Reply } from './http.js'
import { markAll } from './messages.js'
import { updatePreferences } from './preferences.js'
import { getPreferences, listNotifications } from './reads.js'
import type { FakeState } from './state.js'
import { broadcast, cancel, trigger, triggerBulk } from './triggers.js'
import {
  checkChannelSwitches,
  checkNotificationId,
  parseBroadcast,
  parseBulk,
  parseMarkAll,
  parsePreferences,
  parseTrigger,
} from './validation.js'

export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

export interface RouteContext {
  state: FakeState
  /** Decoded path parameters. */
  params: ReadonlyMap<string, string>
  /** The query parameters (the reads). */
  query: URLSearchParams
  body: unknown
  missingNotification: '404' | 'null'
  /** The server's id of this request (`req_…`), which a trigger's `activityFeedLink` carries. */
  requestId: string
}

export interface Route {
  method: RouteMethod
  /** `:name` segments are parameters, as in msw. */
  pattern: string
  handle(context: RouteContext): Reply
}

function param(context: RouteContext, name: string): string {
  const value = context.params.get(name)
  if (value === undefined) throw new Error(`route parameter ${name} missing`)
  return value
}

/**
 * The nine operations with the success statuses of the real server. Each first runs the delays and
 * digests that fell due since the last request, so a request sees the state the server's worker
 * would have reached by then.
 */
export const ROUTES: readonly Route[] = (
  [
    {
      method: 'GET',
      pattern: '/v2/subscribers/:subscriberId/preferences',
      handle: (c) => ok(200, getPreferences(c.state, param(c, 'subscriberId'), c.query)),
    },
    {
      method: 'GET',
      pattern: '/v1/notifications',
      handle: (c) => ok(200, listNotifications(c.state, c.query)),
    },
    {
      method: 'PATCH',
      pattern: '/v2/subscribers/:subscriberId/preferences',
      handle: (c) => {
        const input = parsePreferences(c.body)
        // The server finds the workflow before its update checks the switches or the subscriber.
        if (input.workflowId !== undefined && !c.state.findWorkflow(input.workflowId)) {
          throw new HttpError(404, { message: 'Workflow cannot be found', workflowId: input.workflowId })
        }
        checkChannelSwitches(c.body)
        return ok(200, updatePreferences(c.state, param(c, 'subscriberId'), input))
      },
    },
    {
      method: 'POST',
      pattern: '/v1/subscribers/:subscriberId/messages/mark-all',
      handle: (c) => ok(201, markAll(c.state, param(c, 'subscriberId'), parseMarkAll(c.body))),
    },
    {
      method: 'POST',
      pattern: '/v1/events/trigger',
      handle: (c) => ok(201, trigger(c.state, parseTrigger(c.body), c)),
    },
    {
      method: 'POST',
      pattern: '/v1/events/trigger/bulk',
      handle: (c) => {
        const events = parseBulk(c.body)
        const given = isRecord(c.body) && Array.isArray(c.body.events) ? c.body.events : []
        const slots = events.map((input, i) => ({
          input,
          transactionId: isRecord(given[i]) ? given[i].transactionId : undefined,
        }))
        return ok(201, triggerBulk(c.state, slots, c))
      },
    },
    {
      method: 'POST',
      pattern: '/v1/events/trigger/broadcast',
      handle: (c) => ok(201, broadcast(c.state, parseBroadcast(c.body), c)),
    },
    {
      method: 'DELETE',
      pattern: '/v1/events/trigger/:transactionId',
      handle: (c) => ok(200, cancel(c.state, param(c, 'transactionId'))),
    },
    {
      method: 'GET',
      pattern: '/v1/notifications/:notificationId',
      handle: (c) => {
        const id = param(c, 'notificationId')
        checkNotificationId(id)
        const notification = c.state.findNotification(id)
        if (notification) return ok(200, notification)
        if (c.missingNotification === 'null') return ok(200, null)
        throw new HttpError(404, 'Notification not found')
      },
    },
  ] satisfies Route[]
).map((route) => ({
  ...route,
  handle: (context: RouteContext): Reply => {
    advance(context.state)
    return route.handle(context)
  },
}))

/**
 * Finds the route for a method and URL pathname, whatever the origin. Each segment is decoded on its
 * own, so an encoded `/` inside a subscriberId stays inside its parameter. One trailing slash is
 * tolerated; a malformed escape matches nothing.
 */
export function matchRoute(
  method: string,
  pathname: string,
): { route: Route; params: Map<string, string> } | undefined {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
  const segments = path.split('/')
  for (const route of ROUTES) {
    if (route.method !== method) continue
    const parts = route.pattern.split('/')
    if (parts.length !== segments.length) continue
    const params = new Map<string, string>()
    const matched = parts.every((part, i) => {
      const segment = segments[i] ?? ''
      if (!part.startsWith(':')) return part === segment
      const value = decode(segment)
      if (value === undefined || value === '') return false
      params.set(part.slice(1), value)
      return true
    })
    if (matched) return { route, params }
  }
  return undefined
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
