import { type FieldErrors, HttpError, isRecord, validationError } from './http.js'
import type { FakeChannel, FakeChannelPreferences, FakeSchedule, FakeSubscriber } from './types.js'

/**
 * Request-body checks of the seven routes. Failures become the server's 422 validation body with one
 * entry per field (messages worded like the server's class-validator ones); success returns a typed
 * input the domain code can trust.
 */

export const MAX_RECIPIENTS = 100
export const MAX_BULK_EVENTS = 100
export const CHANNELS: readonly FakeChannel[] = ['in_app', 'email', 'sms', 'push', 'chat']
const MARK_AS = ['read', 'seen', 'unread', 'unseen'] as const
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
const TIME = /^(0[1-9]|1[0-2]):[0-5][0-9] (AM|PM)$/
/** The subscriber fields that hold a string or null. */
export const SUBSCRIBER_STRING_FIELDS = [
  'email',
  'firstName',
  'lastName',
  'phone',
  'avatar',
  'locale',
  'timezone',
] as const

export type MarkAs = (typeof MARK_AS)[number]

export type RecipientInput =
  | { kind: 'id'; subscriberId: string }
  | { kind: 'subscriber'; subscriber: FakeSubscriber; given: Record<string, unknown> }
  | { kind: 'topic'; topicKey: string; exclude: string[] }

export interface TriggerInput {
  name: string
  to: RecipientInput[]
  payload: Record<string, unknown>
  overrides: Record<string, unknown>
  transactionId: string | undefined
  actor: RecipientInput | undefined
  /** The tenant's identifier, from a string or `{ identifier }`; `null` for an object without one. */
  tenant: string | null | undefined
}

export interface BroadcastInput extends Omit<TriggerInput, 'to'> {}

export interface MarkAllInput {
  markAs: MarkAs
  /** `undefined` means every feed; an empty list, none. */
  feedIdentifiers: string[] | undefined
}

export interface PreferencesInput {
  channels: FakeChannelPreferences | undefined
  workflowId: string | undefined
  schedule: FakeSchedule | undefined
}

class Collector {
  readonly errors: FieldErrors = {}

  add(field: string, message: string, value?: unknown): void {
    const entry = this.errors[field] ?? { messages: [] }
    entry.messages.push(message)
    if (value !== undefined) entry.value = value
    this.errors[field] = entry
  }

  get failed(): boolean {
    return Object.keys(this.errors).length > 0
  }

  throwIfFailed(): void {
    if (this.failed) throw validationError(this.errors)
  }
}

function bodyObject(body: unknown, c: Collector): Record<string, unknown> {
  if (isRecord(body)) return body
  c.add('body', 'body must be a JSON object', body)
  c.throwIfFailed()
  return {}
}

function nonEmptyString(value: unknown, field: string, c: Collector): string | undefined {
  if (typeof value !== 'string') {
    c.add(field, `${field} must be a string`, value)
    return undefined
  }
  if (value.length === 0) c.add(field, `${field} should not be empty`, value)
  return value
}

function optionalObject(value: unknown, field: string, c: Collector): Record<string, unknown> {
  if (value === undefined) return {}
  if (isRecord(value)) return value
  c.add(field, `${field} must be an object`, value)
  return {}
}

function subscriberObject(
  value: Record<string, unknown>,
  field: string,
  c: Collector,
): FakeSubscriber | undefined {
  const subscriberId = nonEmptyString(value.subscriberId, `${field}.subscriberId`, c)
  const subscriber: FakeSubscriber = { subscriberId: subscriberId ?? '' }
  for (const key of SUBSCRIBER_STRING_FIELDS) {
    const v = value[key]
    if (v === undefined) continue
    if (v === null || typeof v === 'string') subscriber[key] = v
    else c.add(`${field}.${key}`, `${field}.${key} must be a string`, v)
  }
  if (value.data === null) subscriber.data = null
  else if (value.data !== undefined) subscriber.data = optionalObject(value.data, `${field}.data`, c)
  if (value.channels !== undefined) {
    if (Array.isArray(value.channels)) subscriber.channels = value.channels
    else c.add(`${field}.channels`, `${field}.channels must be an array`, value.channels)
  }
  return subscriberId ? subscriber : undefined
}

function recipient(value: unknown, field: string, c: Collector): RecipientInput | undefined {
  if (typeof value === 'string') {
    const id = nonEmptyString(value, field, c)
    return id ? { kind: 'id', subscriberId: id } : undefined
  }
  if (!isRecord(value)) {
    c.add(field, `${field} must be a subscriberId, a subscriber object or a topic`, value)
    return undefined
  }
  if (value.type === 'Topic') {
    const topicKey = nonEmptyString(value.topicKey, `${field}.topicKey`, c)
    const exclude = value.exclude ?? []
    if (!Array.isArray(exclude) || exclude.some((id) => typeof id !== 'string')) {
      c.add(`${field}.exclude`, `${field}.exclude must be an array of strings`, value.exclude)
      return undefined
    }
    return topicKey ? { kind: 'topic', topicKey, exclude: exclude as string[] } : undefined
  }
  const subscriber = subscriberObject(value, field, c)
  return subscriber ? { kind: 'subscriber', subscriber, given: value } : undefined
}

function recipients(value: unknown, field: string, c: Collector): RecipientInput[] {
  if (value === undefined || value === null) {
    c.add(field, `${field} should not be null or undefined`)
    return []
  }
  const list = Array.isArray(value) ? value : [value]
  if (Array.isArray(value) && value.length === 0) c.add(field, `${field} should not be empty`, value)
  if (list.length > MAX_RECIPIENTS) {
    c.add(field, `${field} must contain no more than ${MAX_RECIPIENTS} elements`)
    return []
  }
  const result: RecipientInput[] = []
  list.forEach((item, i) => {
    const parsed = recipient(item, Array.isArray(value) ? `${field}.${i}` : field, c)
    if (parsed) result.push(parsed)
  })
  return result
}

function actor(value: unknown, field: string, c: Collector): RecipientInput | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string') return recipient(value, field, c)
  if (!isRecord(value)) {
    c.add(field, `${field} must be a subscriberId or a subscriber object`, value)
    return undefined
  }
  const subscriber = subscriberObject(value, field, c)
  return subscriber ? { kind: 'subscriber', subscriber, given: value } : undefined
}

function tenant(value: unknown, field: string, c: Collector): string | null | undefined {
  if (value === undefined || typeof value === 'string') return value
  if (isRecord(value)) return typeof value.identifier === 'string' ? value.identifier : null
  c.add(field, `${field} must be a string or an object`, value)
  return undefined
}

/** `context`: each context type maps to an id, or to `{ id, data? }`. */
function context(value: unknown, field: string, c: Collector): void {
  if (value === undefined) return
  if (!isRecord(value)) {
    c.add(field, `${field} must be an object`, value)
    return
  }
  for (const [type, entry] of Object.entries(value)) {
    if (typeof entry === 'string') continue
    if (isRecord(entry) && typeof entry.id === 'string' && (entry.data === undefined || isRecord(entry.data)))
      continue
    c.add(`${field}.${type}`, `${field}.${type} must be a context id or an object with an id`, entry)
  }
}

/** `bridgeUrl`: the server routes the trigger there, so it takes only an https URL. */
function bridgeUrl(value: unknown, field: string, c: Collector): void {
  if (value === undefined) return
  if (typeof value !== 'string' || !URL.canParse(value) || new URL(value).protocol !== 'https:') {
    c.add(field, `${field} must be an https URL`, value)
  }
}

/** The fields trigger and broadcast share; `prefix` names fields inside a bulk body. */
function commonEventFields(body: Record<string, unknown>, prefix: string, c: Collector): BroadcastInput {
  const name = nonEmptyString(body.name, `${prefix}name`, c) ?? ''
  const overrides = optionalObject(body.overrides, `${prefix}overrides`, c)
  let transactionId: string | undefined
  if (body.transactionId !== undefined)
    transactionId = nonEmptyString(body.transactionId, `${prefix}transactionId`, c)
  const tenantId = tenant(body.tenant, `${prefix}tenant`, c)
  context(body.context, `${prefix}context`, c)
  return {
    name,
    tenant: tenantId,
    payload: optionalObject(body.payload, `${prefix}payload`, c),
    overrides,
    transactionId,
    actor: actor(body.actor, `${prefix}actor`, c),
  }
}

function triggerFields(body: unknown, prefix: string, c: Collector): TriggerInput {
  if (!isRecord(body)) {
    c.add(prefix ? prefix.slice(0, -1) : 'body', 'event must be a JSON object', body)
    return {
      name: '',
      to: [],
      payload: {},
      overrides: {},
      transactionId: undefined,
      actor: undefined,
      tenant: undefined,
    }
  }
  const common = commonEventFields(body, prefix, c)
  bridgeUrl(body.bridgeUrl, `${prefix}bridgeUrl`, c)
  return { ...common, to: recipients(body.to, `${prefix}to`, c) }
}

export function parseTrigger(body: unknown): TriggerInput {
  const c = new Collector()
  const input = triggerFields(bodyObject(body, c), '', c)
  c.throwIfFailed()
  return input
}

/**
 * The bulk body: the list itself is checked (1 to 100 events, else 422), each event on its own, as
 * the server, which runs each event through the trigger's use case: an event without a workflow
 * name is `workflow_not_found`, one with invalid fields the validation messages. A failed event is
 * returned as its error, for its slot in the answer.
 */
export function parseBulk(body: unknown): (TriggerInput | HttpError)[] {
  const c = new Collector()
  const events = bodyObject(body, c).events
  if (!Array.isArray(events)) {
    c.add('events', 'events must be an array', events)
    c.throwIfFailed()
    return []
  }
  if (events.length === 0) c.add('events', 'events must contain at least 1 elements')
  if (events.length > MAX_BULK_EVENTS)
    c.add('events', `events must contain no more than ${MAX_BULK_EVENTS} elements`)
  c.throwIfFailed()
  return events.map((event) => {
    if (isRecord(event) && (typeof event.name !== 'string' || event.name === '')) {
      return new HttpError(422, 'workflow_not_found')
    }
    const own = new Collector()
    const input = triggerFields(event, '', own)
    return own.failed ? validationError(own.errors) : input
  })
}

export function parseBroadcast(body: unknown): BroadcastInput {
  const c = new Collector()
  const object = bodyObject(body, c)
  if (!isRecord(object.payload)) c.add('payload', 'payload must be an object', object.payload)
  const input = commonEventFields(object, '', c)
  c.throwIfFailed()
  return input
}

export function parseMarkAll(body: unknown): MarkAllInput {
  const c = new Collector()
  const object = bodyObject(body, c)
  const markAs = object.markAs
  // The server's command refuses a missing markAs with a 400 before anything else is looked at.
  if (markAs === undefined || markAs === null) {
    throw new HttpError(400, ['markAs should not be null or undefined'])
  }
  if (!MARK_AS.includes(markAs as MarkAs)) {
    c.add('markAs', `markAs must be one of the following values: ${MARK_AS.join(', ')}`, markAs)
  }
  let feedIdentifiers: string[] | undefined
  const feed = object.feedIdentifier
  // One string may name several feeds, comma-separated; an empty one names none, so all feeds count.
  if (typeof feed === 'string') feedIdentifiers = feed === '' ? undefined : feed.split(',')
  else if (Array.isArray(feed) && feed.every((f) => typeof f === 'string')) feedIdentifiers = feed as string[]
  else if (feed !== undefined) {
    c.add('feedIdentifier', 'feedIdentifier must be a string or an array of strings', feed)
  }
  c.throwIfFailed()
  return { markAs: markAs as MarkAs, feedIdentifiers }
}

function channels(value: unknown, c: Collector): FakeChannelPreferences | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value)) {
    c.add('channels', 'channels must be an object', value)
    return undefined
  }
  const result: FakeChannelPreferences = {}
  for (const [key, enabled] of Object.entries(value)) {
    if (!CHANNELS.includes(key as FakeChannel)) c.add(`channels.${key}`, `property ${key} should not exist`)
    else if (typeof enabled !== 'boolean')
      c.add(`channels.${key}`, `channels.${key} must be a boolean value`, enabled)
    else result[key as FakeChannel] = enabled
  }
  return result
}

function schedule(value: unknown, c: Collector): FakeSchedule | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value)) {
    c.add('schedule', 'schedule must be an object', value)
    return undefined
  }
  if (typeof value.isEnabled !== 'boolean') {
    c.add('schedule.isEnabled', 'schedule.isEnabled must be a boolean value', value.isEnabled)
  }
  const result: FakeSchedule = { isEnabled: value.isEnabled === true }
  const weekly = value.weeklySchedule
  if (weekly === undefined) return result
  if (!isRecord(weekly)) {
    c.add('schedule.weeklySchedule', 'schedule.weeklySchedule must be an object', weekly)
    return result
  }
  result.weeklySchedule = {}
  for (const [day, entry] of Object.entries(weekly)) {
    const field = `schedule.weeklySchedule.${day}`
    if (!WEEKDAYS.includes(day as (typeof WEEKDAYS)[number])) {
      c.add(field, `property ${day} should not exist`)
      continue
    }
    if (!isRecord(entry) || typeof entry.isEnabled !== 'boolean') {
      c.add(field, `${field}.isEnabled must be a boolean value`, entry)
      continue
    }
    const hours = entry.hours ?? []
    const valid =
      Array.isArray(hours) &&
      hours.every(
        (h) =>
          isRecord(h) &&
          typeof h.start === 'string' &&
          TIME.test(h.start) &&
          typeof h.end === 'string' &&
          TIME.test(h.end),
      )
    if (!valid) {
      c.add(`${field}.hours`, `${field}.hours must be ranges of times like "09:00 AM"`, entry.hours)
      continue
    }
    const weekday = day as (typeof WEEKDAYS)[number]
    result.weeklySchedule[weekday] =
      entry.hours === undefined
        ? { isEnabled: entry.isEnabled }
        : {
            isEnabled: entry.isEnabled,
            hours: (hours as { start: string; end: string }[]).map((h) => ({ start: h.start, end: h.end })),
          }
  }
  return result
}

export function parsePreferences(body: unknown): PreferencesInput {
  const c = new Collector()
  const object = bodyObject(body, c)
  let workflowId: string | undefined
  if (object.workflowId !== undefined) workflowId = nonEmptyString(object.workflowId, 'workflowId', c)
  context(object.context, 'context', c)
  const input = { channels: channels(object.channels, c), workflowId, schedule: schedule(object.schedule, c) }
  c.throwIfFailed()
  return input
}
