import {
  commandValidationError,
  dtoValidationError,
  type FieldErrors,
  type HttpError,
  isRecord,
  isTimeZone,
} from './http.js'
import type { FakeChannel, FakeChannelPreferences, FakeSchedule, FakeSubscriber } from './types.js'

/**
 * Request-body checks of the seven routes, in the server's two layers:
 * - the request DTO's checks, run before the controller: every failure is one message of a
 *   `422 "Validation Error"` (`errors.general.messages`), worded and prefixed as the validation
 *   pipe words nested fields (`actor.email must be an email`);
 * - a command's checks, run when the controller or use case builds it: `422 "Validation failed for
 *   <Command>: <field>: <messages>"` with `errors.<field>`. Inside a bulk request a command failure
 *   fails only its event.
 * What neither layer checks is accepted, as on the server (an unknown channel key, an empty `to`).
 * Success returns a typed input the domain code can trust.
 */

export const MAX_BULK_EVENTS = 100
export const CHANNELS: readonly FakeChannel[] = ['in_app', 'email', 'sms', 'push', 'chat']
const MARK_AS = ['read', 'seen', 'unread', 'unseen'] as const
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
/** The server's 12-hour time: `09:00 AM`, `9:00 AM`, `9:00am`. */
const TIME = /^(0?[1-9]|1[0-2]):[0-5][0-9]\s?(AM|PM)$/i
/** A context id: letters, digits, `_` and `-`, 1 to 100 characters. */
const CONTEXT_ID = /^[a-zA-Z0-9_-]+$/
const MAX_CONTEXT_ID_LENGTH = 100
const MAX_CONTEXTS = 5
const MAX_CONTEXT_DATA_KB = 64
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
  /** `undefined` (or `''`, which the server treats alike) gets a generated `txn_…` id. */
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

/** The messages of a DTO check, in the order the validation pipe lists them. */
class DtoMessages {
  readonly messages: string[] = []

  add(message: string): void {
    this.messages.push(message)
  }

  throwIfFailed(): void {
    if (this.messages.length > 0) throw dtoValidationError(this.messages)
  }
}

/** A command's failed fields, in the order the command checks them. */
class CommandErrors {
  readonly errors: FieldErrors = {}

  constructor(readonly command: string) {}

  add(field: string, message: string, value: unknown): void {
    const entry = this.errors[field] ?? { messages: [] }
    entry.messages.push(message)
    if (value !== undefined) entry.value = value
    this.errors[field] = entry
  }

  get error(): HttpError | undefined {
    return Object.keys(this.errors).length > 0 ? commandValidationError(this.command, this.errors) : undefined
  }

  throwIfFailed(): void {
    const error = this.error
    if (error) throw error
  }
}

const isAbsent = (value: unknown): value is null | undefined => value === null || value === undefined

/** `@IsObject()`: a non-null object that is not an array. */
const isObject = (value: unknown): value is Record<string, unknown> => isRecord(value)

/** The message of `@ValidateNested()` given something that is not an object. */
const nestedMessage = (field: string) => `nested property ${field} must be either object or array`

/**
 * `email` as the server's `@IsEmail()` takes it, near enough: a local part, `@`, and a domain whose
 * last label has at least two letters.
 */
const EMAIL = /^[^\s@]+@(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$/
/** `@IsLocale()`, near enough: a language, then subtags (`en`, `en-US`, `pt_BR`, `zh-Hant-TW`). */
const LOCALE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/

/**
 * The subscriber DTO's checks (an `actor` object): every field named `<prefix>.<field>`, in the
 * order the server checks them.
 */
function subscriberDto(value: Record<string, unknown>, prefix: string, m: DtoMessages): void {
  for (const key of ['firstName', 'lastName'] as const) {
    if (!isAbsent(value[key]) && typeof value[key] !== 'string') m.add(`${prefix}.${key} must be a string`)
  }
  const email = value.email
  if (!isAbsent(email) && (typeof email !== 'string' || !EMAIL.test(email))) {
    m.add(`${prefix}.email must be an email`)
  }
  for (const key of ['phone', 'avatar'] as const) {
    if (!isAbsent(value[key]) && typeof value[key] !== 'string') m.add(`${prefix}.${key} must be a string`)
  }
  const locale = value.locale
  if (!isAbsent(locale) && (typeof locale !== 'string' || !LOCALE.test(locale))) {
    m.add(`${prefix}.locale must be locale`)
  }
  const timezone = value.timezone
  if (!isAbsent(timezone) && (typeof timezone !== 'string' || !isTimeZone(timezone))) {
    m.add(`${prefix}.timezone must be a valid IANA time-zone`)
  }
  if (!isAbsent(value.data) && !isObject(value.data)) m.add(`${prefix}.data must be an object`)
  const id = value.subscriberId
  if (isAbsent(id)) m.add(`${prefix}.subscriberId should not be null or undefined`)
  if (isAbsent(id) || id === '') m.add(`${prefix}.SubscriberId is required`)
  if (typeof id !== 'string') m.add(`${prefix}.subscriberId must be a string`)
  if (value.channels !== undefined && !Array.isArray(value.channels)) {
    m.add(`${prefix}.channels must be an array`)
  }
}

/** `context`: the server's context check, one message for the first rule broken. */
function contextProblem(value: unknown): string | undefined {
  if (isAbsent(value)) return undefined
  const validId = (id: unknown) =>
    typeof id === 'string' && id.length >= 1 && id.length <= MAX_CONTEXT_ID_LENGTH && CONTEXT_ID.test(id)
  const validValue = (entry: unknown) =>
    typeof entry === 'string'
      ? validId(entry)
      : isRecord(entry) &&
        validId(entry.id) &&
        (entry.data === undefined || (typeof entry.data === 'object' && entry.data !== null))
  if (!isRecord(value) || Object.keys(value).length === 0 || !Object.values(value).every(validValue)) {
    return 'Invalid context payload structure. Expected object with context types as keys and string IDs or {id, data} objects as values'
  }
  const count = Object.keys(value).length
  if (count > MAX_CONTEXTS) {
    return `Too many contexts: ${count} provided, maximum allowed is ${MAX_CONTEXTS}`
  }
  for (const [type, entry] of Object.entries(value)) {
    if (!isRecord(entry) || !('data' in entry) || !entry.data) continue
    const bytes = new TextEncoder().encode(JSON.stringify(entry.data)).byteLength
    if (bytes > MAX_CONTEXT_DATA_KB * 1024) {
      return `Context '${type}' Data is too large: ${Math.round(bytes / 1024)}KB exceeds ${MAX_CONTEXT_DATA_KB}KB limit`
    }
  }
  return undefined
}

/** The DTO checks a trigger and a broadcast share, after `name` and `payload`. */
function eventDto(body: Record<string, unknown>, m: DtoMessages): void {
  if (!isAbsent(body.overrides) && !isObject(body.overrides)) m.add('overrides must be an object')
}

function actorAndTenantDto(body: Record<string, unknown>, m: DtoMessages): void {
  if (!isAbsent(body.transactionId) && typeof body.transactionId !== 'string') {
    m.add('transactionId must be a string')
  }
  const actor = body.actor
  if (!isAbsent(actor) && typeof actor !== 'string') {
    if (isRecord(actor)) subscriberDto(actor, 'actor', m)
    else m.add(nestedMessage('actor'))
  }
  const tenant = body.tenant
  if (!isAbsent(tenant) && typeof tenant !== 'string') {
    if (isRecord(tenant)) {
      for (const key of ['identifier', 'name'] as const) {
        if (!isAbsent(tenant[key]) && typeof tenant[key] !== 'string') m.add(`tenant.${key} must be a string`)
      }
    } else m.add(nestedMessage('tenant'))
  }
  const context = contextProblem(body.context)
  if (context) m.add(context)
}

function nameDto(name: unknown, m: DtoMessages): void {
  if (isAbsent(name)) m.add('name should not be null or undefined')
  if (typeof name !== 'string') m.add('name must be a string')
}

/** `bridgeUrl`: a string on the server; the fake, which reaches no bridge, takes only https URLs. */
function bridgeUrlDto(value: unknown, m: DtoMessages): void {
  if (isAbsent(value)) return
  if (typeof value !== 'string') m.add('bridgeUrl must be a string')
  else if (!URL.canParse(value) || new URL(value).protocol !== 'https:')
    m.add('bridgeUrl must be an https URL')
}

function body(value: unknown): Record<string, unknown> {
  // The server's JSON parser takes only an object or an array (anything else is a 400 before
  // this); an array has none of the fields, so it fails the checks as an empty object does.
  return isRecord(value) ? value : {}
}

/** POST /v1/events/trigger: the DTO's checks (a command check cannot fail after them). */
export function parseTrigger(raw: unknown): TriggerInput {
  const event = body(raw)
  const m = new DtoMessages()
  nameDto(event.name, m)
  if (!isAbsent(event.payload) && !isObject(event.payload)) m.add('payload must be an object')
  bridgeUrlDto(event.bridgeUrl, m)
  eventDto(event, m)
  if (isAbsent(event.to)) m.add('to should not be null or undefined')
  actorAndTenantDto(event, m)
  m.throwIfFailed()
  return triggerInput(event)
}

/** POST /v1/events/trigger/broadcast: its DTO requires `payload`. */
export function parseBroadcast(raw: unknown): BroadcastInput {
  const event = body(raw)
  const m = new DtoMessages()
  nameDto(event.name, m)
  if (!isObject(event.payload)) m.add('payload must be an object')
  eventDto(event, m)
  actorAndTenantDto(event, m)
  m.throwIfFailed()
  const { to: _to, ...input } = triggerInput(event)
  return input
}

/**
 * POST /v1/events/trigger/bulk. The body has no DTO checks; the command checks the list (an array
 * of 1 to 100 events, else a 422 for the whole request). Each event is then checked on its own by
 * the trigger's command, which the controller of a single trigger never reaches with a missing
 * payload: a bulk event's `payload` is not defaulted to `{}`. A failed event is returned as its
 * error, for its slot in the answer; `null` as an event fails the whole request (a 500, as on the
 * server, which reads every event's name first).
 */
export function parseBulk(raw: unknown): (TriggerInput | HttpError)[] {
  const events = body(raw).events
  const list = new CommandErrors('ProcessBulkTriggerCommand')
  const isArray = Array.isArray(events)
  if (!isArray || events.length > MAX_BULK_EVENTS) {
    list.add('events', `events must contain no more than ${MAX_BULK_EVENTS} elements`, events)
  }
  if (!isArray || events.length === 0) list.add('events', 'events should not be empty', events)
  if (!isArray) list.add('events', 'events must be an array', events)
  list.throwIfFailed()
  const all = events as unknown[]
  if (all.some((event) => event === null || event === undefined)) {
    throw new TypeError("Cannot read properties of null (reading 'name')")
  }
  return all.map((event) => {
    const fields = isRecord(event) ? event : {}
    const c = new CommandErrors('ParseEventRequestMulticastCommand')
    if (isAbsent(fields.to)) c.add('to', 'to should not be null or undefined', fields.to)
    if (isAbsent(fields.name)) c.add('identifier', 'identifier should not be null or undefined', fields.name)
    if (typeof fields.name !== 'string') c.add('identifier', 'identifier must be a string', fields.name)
    if (isAbsent(fields.payload)) c.add('payload', 'payload should not be null or undefined', fields.payload)
    const { transactionId, actor, tenant, bridgeUrl, context } = fields
    if (!isAbsent(transactionId) && typeof transactionId !== 'string') {
      c.add('transactionId', 'transactionId must be a string', transactionId)
    }
    if (!isAbsent(actor) && typeof actor !== 'string' && typeof actor !== 'object') {
      c.add('actor', nestedMessage('actor'), actor)
    }
    if (!isAbsent(tenant) && typeof tenant !== 'string' && typeof tenant !== 'object') {
      c.add('tenant', nestedMessage('tenant'), tenant)
    }
    if (!isAbsent(bridgeUrl) && typeof bridgeUrl !== 'string') {
      c.add('bridgeUrl', 'bridgeUrl must be a string', bridgeUrl)
    }
    const contextError = contextProblem(context)
    if (contextError) c.add('context', contextError, context)
    return c.error ?? triggerInput(fields)
  })
}

/**
 * What the model needs from a checked event. A `to` the server passes on as given is reduced to the
 * recipients the fake can resolve: ids, subscriber objects with an id, topics; anything else (an
 * empty list, an item that is none of these) reaches no one, as the server's worker skips it.
 */
function triggerInput(event: Record<string, unknown>): TriggerInput {
  return {
    name: typeof event.name === 'string' ? event.name : '',
    to: recipients(event.to),
    payload: isObject(event.payload) ? event.payload : {},
    overrides: isObject(event.overrides) ? event.overrides : {},
    transactionId:
      typeof event.transactionId === 'string' && event.transactionId !== '' ? event.transactionId : undefined,
    actor: actorInput(event.actor),
    tenant: tenantInput(event.tenant),
  }
}

function recipients(value: unknown): RecipientInput[] {
  const list = Array.isArray(value) ? value : [value]
  return list.flatMap((item) => {
    const recipient = recipientInput(item)
    return recipient ? [recipient] : []
  })
}

function recipientInput(value: unknown): RecipientInput | undefined {
  if (typeof value === 'string') return value === '' ? undefined : { kind: 'id', subscriberId: value }
  if (!isRecord(value)) return undefined
  if (value.type === 'Topic') {
    if (typeof value.topicKey !== 'string' || value.topicKey === '') return undefined
    const exclude = Array.isArray(value.exclude)
      ? value.exclude.filter((id): id is string => typeof id === 'string')
      : []
    return { kind: 'topic', topicKey: value.topicKey, exclude }
  }
  return subscriberInput(value)
}

function subscriberInput(value: Record<string, unknown>): RecipientInput | undefined {
  if (typeof value.subscriberId !== 'string' || value.subscriberId === '') return undefined
  const subscriber: FakeSubscriber = { subscriberId: value.subscriberId }
  for (const key of SUBSCRIBER_STRING_FIELDS) {
    const v = value[key]
    if (v === null || typeof v === 'string') subscriber[key] = v
  }
  if (value.data === null || isObject(value.data)) subscriber.data = value.data
  if (Array.isArray(value.channels)) subscriber.channels = value.channels
  return { kind: 'subscriber', subscriber, given: value }
}

function actorInput(value: unknown): RecipientInput | undefined {
  if (typeof value === 'string') return value === '' ? undefined : { kind: 'id', subscriberId: value }
  return isRecord(value) ? subscriberInput(value) : undefined
}

/**
 * The server looks a tenant up when one is given at all (a non-empty string, or any object): an
 * object without a string identifier finds none.
 */
function tenantInput(value: unknown): string | null | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value
  if (isRecord(value)) return typeof value.identifier === 'string' ? value.identifier : null
  return undefined
}

/**
 * POST /v1/subscribers/:subscriberId/messages/mark-all. The body has no DTO checks; the command
 * requires `markAs` (a 422 naming it). The server has no check on its value; the fake refuses one
 * it does not know with the same 422, as what the server does with it is not defined.
 */
export function parseMarkAll(raw: unknown): MarkAllInput {
  const object = body(raw)
  const markAs = object.markAs
  const c = new CommandErrors('MarkAllMessagesAsCommand')
  if (isAbsent(markAs)) c.add('markAs', 'markAs should not be null or undefined', markAs)
  else if (!MARK_AS.includes(markAs as MarkAs)) {
    c.add('markAs', `markAs must be one of the following values: ${MARK_AS.join(', ')}`, markAs)
  }
  c.throwIfFailed()
  let feedIdentifiers: string[] | undefined
  const feed = object.feedIdentifier
  // One string may name several feeds, comma-separated; an empty one names none, so all feeds count.
  if (typeof feed === 'string') feedIdentifiers = feed === '' ? undefined : feed.split(',')
  else if (Array.isArray(feed)) feedIdentifiers = feed.filter((f): f is string => typeof f === 'string')
  return { markAs: markAs as MarkAs, feedIdentifiers }
}

/** The schedule DTO's checks; messages prefixed `schedule.` as the pipe prefixes nested fields. */
function scheduleDto(value: unknown, m: DtoMessages): FakeSchedule | undefined {
  if (isAbsent(value)) return undefined
  if (!isRecord(value)) {
    m.add(nestedMessage('schedule'))
    return undefined
  }
  if (typeof value.isEnabled !== 'boolean') m.add('schedule.isEnabled must be a boolean value')
  const result: FakeSchedule = { isEnabled: value.isEnabled === true }
  const weekly = value.weeklySchedule
  if (isAbsent(weekly)) return result
  if (!isRecord(weekly)) {
    m.add(`schedule.${nestedMessage('weeklySchedule')}`)
    return result
  }
  result.weeklySchedule = {}
  for (const day of WEEKDAYS) {
    const entry = weekly[day]
    if (isAbsent(entry)) continue
    const prefix = `schedule.weeklySchedule.${day}`
    if (!isRecord(entry)) {
      m.add(`schedule.weeklySchedule.${nestedMessage(day)}`)
      continue
    }
    if (typeof entry.isEnabled !== 'boolean') m.add(`${prefix}.isEnabled must be a boolean value`)
    const hours = entry.hours
    let ranges: { start: string; end: string }[] | undefined
    if (!isAbsent(hours)) {
      if (!Array.isArray(hours)) m.add(`${prefix}.${nestedMessage('hours')}`)
      else {
        ranges = []
        hours.forEach((range, i) => {
          if (!isRecord(range)) {
            m.add(`${prefix}.hours.${nestedMessage(String(i))}`)
            return
          }
          for (const end of ['start', 'end'] as const) {
            const time = range[end]
            if (typeof time !== 'string' || !TIME.test(time)) {
              m.add(`${prefix}.hours.${i}.${end} must be in 12-hour format (e.g., 09:00 AM or 9:00 AM)`)
            }
            if (typeof time !== 'string') m.add(`${prefix}.hours.${i}.${end} must be a string`)
          }
          ranges?.push({ start: String(range.start), end: String(range.end) })
        })
      }
    }
    result.weeklySchedule[day] = {
      isEnabled: entry.isEnabled === true,
      ...(ranges === undefined ? {} : { hours: ranges }),
    }
  }
  if (value.isEnabled === true) {
    const days = Object.keys(weekly)
    const unknown = days.filter((day) => !WEEKDAYS.includes(day as (typeof WEEKDAYS)[number]))
    if (days.length === 0) {
      m.add('schedule.weeklySchedule must contain at least one day configuration when isEnabled is true')
    } else if (unknown.length > 0) {
      m.add(
        `schedule.weeklySchedule contains invalid day names: ${unknown.join(', ')}. Valid days are: ${WEEKDAYS.join(', ')}`,
      )
    }
  }
  return result
}

/**
 * PATCH /v2/subscribers/:subscriberId/preferences: the DTO checks `schedule` and `context`; the
 * command checks `workflowId` (a string); the update's command checks each channel's switch (a
 * boolean). A channel the server does not know is ignored, as is `channels` that is not an object;
 * an empty `workflowId` updates the global preferences.
 */
export function parsePreferences(raw: unknown): PreferencesInput {
  const object = body(raw)
  const m = new DtoMessages()
  const schedule = scheduleDto(object.schedule, m)
  const context = contextProblem(object.context)
  if (context) m.add(context)
  m.throwIfFailed()
  const workflowId = object.workflowId
  const command = new CommandErrors('UpdateSubscriberPreferencesCommand')
  if (!isAbsent(workflowId) && typeof workflowId !== 'string') {
    command.add('workflowIdOrInternalId', 'workflowIdOrInternalId must be a string', workflowId)
  }
  command.throwIfFailed()
  return {
    channels: channels(object.channels),
    workflowId: typeof workflowId === 'string' && workflowId !== '' ? workflowId : undefined,
    schedule,
  }
}

/** The switches of the known channels; `null` counts as not given. */
function channels(value: unknown): FakeChannelPreferences | undefined {
  if (!isRecord(value)) return undefined
  const result: FakeChannelPreferences = {}
  for (const channel of CHANNELS) {
    const enabled = value[channel]
    if (typeof enabled === 'boolean') result[channel] = enabled
  }
  return result
}

/**
 * The update's own command checks each switch it is given; the route runs this after it has found
 * the workflow, as the server does.
 */
export function checkChannelSwitches(raw: unknown): void {
  const given = body(raw).channels
  if (!isRecord(given)) return
  const c = new CommandErrors('UpdatePreferencesCommand')
  for (const channel of ['email', 'sms', 'in_app', 'chat', 'push'] as const) {
    const enabled = given[channel]
    if (!isAbsent(enabled) && typeof enabled !== 'boolean') {
      c.add(channel, `${channel} must be a boolean value`, enabled)
    }
  }
  c.throwIfFailed()
}

/** GET /v1/notifications/:notificationId: the command takes only a MongoDB id (24 hex digits). */
export function checkNotificationId(id: string): void {
  if (/^[0-9a-fA-F]{24}$/.test(id)) return
  const c = new CommandErrors('GetActivityCommand')
  c.add('notificationId', 'notificationId must be a mongodb id', id)
  c.throwIfFailed()
}
