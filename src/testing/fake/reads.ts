import { commandValidationError, dtoValidationError, HttpError } from './http.js'
import { preferencesView } from './preferences.js'
import type { FakeState, StoredWorkflow } from './state.js'
import type { FakeNotification, FakePreferences } from './types.js'
import { CHANNELS } from './validation.js'

// The two reads, answered from the state the writes leave: GET /v1/notifications (the activity feed)
// and GET /v2/subscribers/:subscriberId/preferences. Checks run in the server's order: the query's
// own rules (422, "Validation Error"), then the use case's command (422 naming the command), then the
// dates (400), then the data.

/** One page of `GET /v1/notifications`, before the `{ data }` envelope. */
export interface FakeNotificationsPage {
  page: number
  hasMore: boolean
  pageSize: number
  data: FakeNotification[]
}

const DEFAULT_LIMIT = 10
const MAX_LIMIT = 50
const SEVERITIES = ['high', 'medium', 'low', 'none']
const CRITICALITIES = ['critical', 'nonCritical', 'all']
const OBJECT_ID = /^[0-9a-fA-F]{24}$/

/**
 * GET /v1/notifications: filters combine (AND); each list filter matches any of its values; newest
 * first; `page` from 0 of `limit` (10, at most 50). `hasMore` is true when the page came back full, as
 * the server computes it. Subscriber filters (`subscriberIds`, `emails`, `search`) that match no
 * subscriber answer an empty page 0, as the server does.
 */
export function listNotifications(state: FakeState, query: URLSearchParams): FakeNotificationsPage {
  const page = integerParam(query, 'page', 0)
  const limit = integerParam(query, 'limit', DEFAULT_LIMIT)
  const pipeErrors: string[] = []
  if (page.invalid || (page.value ?? 0) < 0) pipeErrors.push(...integerMessages('page', page, 0))
  if (limit.invalid || (limit.value ?? DEFAULT_LIMIT) < 1 || (limit.value ?? 0) > MAX_LIMIT)
    pipeErrors.push(...integerMessages('limit', limit, 1, MAX_LIMIT))
  const severity = list(query, 'severity')
  if (severity?.some((value) => !SEVERITIES.includes(value)))
    pipeErrors.push('severity must be a valid enum value or an array of valid enum values')
  if (pipeErrors.length > 0) {
    throw dtoValidationError(pipeErrors)
  }

  const channels = list(query, 'channels')
  const templates = list(query, 'templates')
  const commandErrors: Record<string, { messages: string[]; value: unknown }> = {}
  if (channels?.some((channel) => !(CHANNELS as readonly string[]).includes(channel))) {
    commandErrors.channels = {
      messages: [`each value in channels must be one of the following values: ${CHANNELS.join(', ')}`],
      value: channels,
    }
  }
  if (templates?.some((id) => !OBJECT_ID.test(id))) {
    commandErrors.templates = { messages: ['each value in templates must be a mongodb id'], value: templates }
  }
  if (Object.keys(commandErrors).length > 0)
    throw commandValidationError('GetActivityFeedCommand', commandErrors)

  const after = dateParam(query, 'after')
  const before = dateParam(query, 'before')
  if (after !== undefined && before !== undefined && after > before) {
    throw new HttpError(400, 'Invalid date range: start date (after) must be earlier than end date (before)')
  }

  const pageNumber = page.value ?? 0
  const pageSize = limit.value ?? DEFAULT_LIMIT
  const subscriberIds = subscribersMatching(state, query)
  if (subscriberIds?.size === 0) return { page: 0, hasMore: false, pageSize, data: [] }

  const transactionIds = list(query, 'transactionId')
  const topicKey = query.get('topicKey') || undefined
  const subscriptionId = query.get('subscriptionId') || undefined
  const contextKeys = contextKeysParam(query)
  const matches = (notification: FakeNotification): boolean => {
    const created = Date.parse(notification.createdAt)
    return (
      (transactionIds === undefined || transactionIds.includes(notification.transactionId)) &&
      (subscriberIds === undefined || subscriberIds.has(notification._subscriberId)) &&
      (channels === undefined || notification.channels.some((channel) => channels.includes(channel))) &&
      (templates === undefined || templates.includes(notification._templateId)) &&
      (severity === undefined || severity.includes(notification.severity ?? 'none')) &&
      (topicKey === undefined || notification.topics.some((topic) => topic.topicKey === topicKey)) &&
      // The fake keeps no topic subscriptions, so no notification was sent through one.
      subscriptionId === undefined &&
      (contextKeys === undefined || sameKeys(contextKeysOf(notification), contextKeys)) &&
      (after === undefined || created >= after) &&
      (before === undefined || created <= before)
    )
  }
  // Newest first; of two created in the same millisecond, the one stored later first.
  const found: FakeNotification[] = []
  for (let i = state.notifications.length - 1; i >= 0; i--) {
    const notification = state.notifications[i] as FakeNotification
    if (matches(notification)) found.push(notification)
  }
  found.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
  const data = found.slice(pageNumber * pageSize, (pageNumber + 1) * pageSize)
  return { page: pageNumber, hasMore: data.length === pageSize, pageSize, data }
}

/**
 * GET /v2/subscribers/:subscriberId/preferences: the global preferences and one entry per active
 * workflow of the criticality asked (`nonCritical` by default). Preferences per context are not kept
 * by the fake: `contextKeys` is checked and then reads the one set of preferences it keeps.
 */
export function getPreferences(
  state: FakeState,
  subscriberId: string,
  query: URLSearchParams,
): FakePreferences {
  const criticality = query.get('criticality') ?? 'nonCritical'
  if (!CRITICALITIES.includes(criticality)) {
    throw dtoValidationError([`criticality must be one of the following values: ${CRITICALITIES.join(', ')}`])
  }
  if (!state.subscribers.has(subscriberId)) {
    throw new HttpError(404, `Subscriber with id: ${subscriberId} not found`)
  }
  const listed = (workflow: StoredWorkflow): boolean =>
    criticality === 'all' || (criticality === 'critical' ? workflow.critical : !workflow.critical)
  return preferencesView(state, subscriberId, listed)
}

/** A list parameter as the server reads it: repeated or single, `undefined` when absent or empty. */
function list(query: URLSearchParams, name: string): string[] | undefined {
  const values = [...query.getAll(name), ...query.getAll(`${name}[]`)]
  // One empty value (`channels=`) is no filter, as the server reads an empty string.
  if (values.length === 0 || (values.length === 1 && values[0] === '')) return undefined
  return values
}

/** `contextKeys`: absent, no filter; `contextKeys=` alone, records without context; empty values dropped. */
function contextKeysParam(query: URLSearchParams): string[] | undefined {
  const values = [...query.getAll('contextKeys'), ...query.getAll('contextKeys[]')]
  if (values.length === 0) return undefined
  return values.filter((value) => value !== '')
}

function contextKeysOf(notification: FakeNotification): string[] {
  const keys = (notification as { contextKeys?: unknown }).contextKeys
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : []
}

/** The same keys in any order, as the server's exact match. */
function sameKeys(actual: readonly string[], wanted: readonly string[]): boolean {
  return actual.length === wanted.length && wanted.every((key) => actual.includes(key))
}

/**
 * The subscribers' `_id`s that `subscriberIds`, `emails` or `search` select (any of them matching),
 * or `undefined` when none of these filters is given.
 */
function subscribersMatching(state: FakeState, query: URLSearchParams): Set<string> | undefined {
  const subscriberIds = list(query, 'subscriberIds')
  const emails = list(query, 'emails')
  const search = query.get('search') || undefined
  if (subscriberIds === undefined && emails === undefined && search === undefined) return undefined
  const found = new Set<string>()
  for (const subscriber of state.subscribers.values()) {
    const email = typeof subscriber.email === 'string' ? subscriber.email : undefined
    if (
      subscriberIds?.includes(subscriber.subscriberId) ||
      (email !== undefined && emails?.includes(email)) ||
      (search !== undefined &&
        (subscriber.subscriberId === search || email?.toLowerCase().includes(search.toLowerCase())))
    ) {
      found.add(subscriber._id)
    }
  }
  return found
}

interface IntegerParam {
  value: number | undefined
  invalid: boolean
}

function integerParam(query: URLSearchParams, name: string, fallback: number): IntegerParam {
  const raw = query.get(name)
  if (raw === null) return { value: fallback, invalid: false }
  const value = Number(raw)
  return { value: Number.isInteger(value) ? value : undefined, invalid: !Number.isInteger(value) }
}

/** class-validator's messages for an integer with bounds, in its order. */
function integerMessages(name: string, param: IntegerParam, min: number, max?: number): string[] {
  if (param.invalid) {
    return [
      ...(max === undefined ? [] : [`${name} must not be greater than ${max}`]),
      `${name} must not be less than ${min}`,
      `${name} must be an integer number`,
    ]
  }
  const value = param.value ?? min
  if (value < min) return [`${name} must not be less than ${min}`]
  return max !== undefined && value > max ? [`${name} must not be greater than ${max}`] : []
}

function dateParam(query: URLSearchParams, name: 'after' | 'before'): number | undefined {
  const raw = query.get(name)
  if (raw === null || raw === '') return undefined
  const time = new Date(raw).getTime()
  if (Number.isNaN(time)) {
    throw new HttpError(
      400,
      `Invalid date format for parameter '${name}': ${raw}. Please provide a valid ISO 8601 date string.`,
    )
  }
  return time
}
