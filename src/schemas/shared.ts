import * as z from 'zod/mini'
import { deferred } from '../internal/validation/deferred.js'
import { JsonObjectSchema, optionalBoolean, optionalString } from './fields.js'
import type { KnownFields } from './known-fields.js'

/**
 * A string enum that stays open: the known values autocomplete in editors, and any other string is
 * accepted at runtime, because the server adds values without notice.
 * @example
 * ```ts
 * const Priority = openEnum(['high', 'low'])
 * Priority.parse('urgent') // accepted: 'urgent'
 * ```
 */
export function openEnum<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z.custom<Values[number] | (string & {})>((value) => typeof value === 'string', {
    message: `Expected a string such as ${values.map((v) => `"${v}"`).join(', ')}`,
  })
}

/** An identifier the server needs to find something by: never empty. */
export const IdentifierSchema = deferred(() =>
  z.string().check(z.minLength(1, { message: 'Must not be empty' })),
)

// Declared beside the shared fields, which wrap it once for every optional object field.
export { JsonObjectSchema }
export type JsonObject = z.infer<typeof JsonObjectSchema>

export const SEVERITY_LEVELS = ['high', 'medium', 'low', 'none'] as const

/** How urgent a notification is, as a notification reports it; open, since the server may add levels. */
export const SeveritySchema = deferred(() => openEnum(SEVERITY_LEVELS))
export type Severity = z.infer<typeof SeveritySchema>

/** The most context types one request may carry. */
export const MAX_CONTEXT_TYPES = 5

/** The largest `data` of one context entry, in bytes of JSON. */
const MAX_CONTEXT_DATA_BYTES = 64 * 1024

/** A context id: letters, digits, `_` and `-`, 1 to 100 of them. */
const ContextIdSchema = deferred(() =>
  z
    .string()
    .check(
      z.regex(/^[a-zA-Z0-9_-]+$/, { message: 'must be 1 to 100 letters, digits, `_` or `-`' }),
      z.maxLength(100, { message: 'must be at most 100 characters' }),
    ),
)

/**
 * One entry of `context`: a context id, or `{ id, data? }` with data about it (at most 64 KB of
 * JSON). `context` maps a context type (`tenant`, `app`, …) to one of these.
 */
export const ContextValueSchema = deferred(() =>
  z.union(
    [
      ContextIdSchema,
      z.strictObject({
        id: ContextIdSchema,
        data: z.optional(
          JsonObjectSchema.check(
            z.refine((data) => jsonBytesAtMost(data, MAX_CONTEXT_DATA_BYTES), {
              message: 'must be at most 64 KB as JSON',
            }),
          ),
        ),
      }),
    ],
    { error: 'must be a context id or { id, data? }' },
  ),
)
export type ContextValue = z.infer<typeof ContextValueSchema>

/**
 * `context` of a trigger, broadcast or preferences update: 1 to 5 context types, each mapped to its
 * id or `{ id, data? }`. An empty `{}` is refused, as the server refuses it; leave `context` out.
 */
export const ContextSchema = deferred(() =>
  z.record(z.string(), ContextValueSchema).check(
    z.refine((context) => Object.keys(context).length > 0, {
      message: 'must hold at least one context type; leave `context` out instead of sending `{}`',
    }),
    z.refine((context) => Object.keys(context).length <= MAX_CONTEXT_TYPES, {
      message: `must hold at most ${MAX_CONTEXT_TYPES} context types`,
    }),
  ),
)
export type Context = z.infer<typeof ContextSchema>

/** Whether `value` as JSON takes at most `limit` bytes of UTF-8; a value JSON cannot carry does not. */
function jsonBytesAtMost(value: unknown, limit: number): boolean {
  let json: string | undefined
  try {
    json = JSON.stringify(value)
  } catch {
    return false
  }
  if (json === undefined) return true
  // A UTF-16 unit is at most 3 bytes of UTF-8: most values need no encoding to be counted.
  if (json.length * 3 <= limit) return true
  return new TextEncoder().encode(json).length <= limit
}

export const CHANNEL_NAMES = ['email', 'sms', 'in_app', 'push', 'chat'] as const
/** A channel name; open, since the server may add channels. */
export const ChannelNameSchema = deferred(() => openEnum(CHANNEL_NAMES))
export type ChannelName = z.infer<typeof ChannelNameSchema>

/** Per-channel on/off switches, the shape shared by what is sent and what is received. */
const channelPreferenceShape = {
  email: optionalBoolean,
  sms: optionalBoolean,
  in_app: optionalBoolean,
  push: optionalBoolean,
  chat: optionalBoolean,
}

/** Per-channel on/off switches as sent; an unknown channel is refused before sending. */
export const ChannelPreferenceSchema = deferred(() => z.strictObject(channelPreferenceShape))
export type ChannelPreference = z.infer<typeof ChannelPreferenceSchema>

/**
 * Per-channel switches as received: the server returns only the channels the environment's workflows
 * use, and may return new ones, so every switch is optional and unknown keys are kept.
 */
export const ChannelPreferenceResultSchema = deferred(() => z.looseObject(channelPreferenceShape))
export type ChannelPreferenceResult = KnownFields<z.infer<typeof ChannelPreferenceResultSchema>>

/**
 * A 12-hour time, `9:00 AM`, `09:00 AM` or `09:00AM` (`am`/`pm` too): the forms the server accepts.
 */
export const ScheduleTimeSchema = deferred(() =>
  z.string().check(
    z.regex(/^(0?[1-9]|1[0-2]):[0-5][0-9]\s?(AM|PM)$/i, {
      message: 'Must be a 12-hour time like "09:30 AM" or "9:30 PM"',
    }),
  ),
)

/** One entry of a weekday's `hours`: a time range. */
export const TimeRangeSchema = deferred(() =>
  z.strictObject({ start: ScheduleTimeSchema, end: ScheduleTimeSchema }),
)
export type TimeRange = z.infer<typeof TimeRangeSchema>

/** One weekday of a schedule. */
export const DayScheduleSchema = deferred(() =>
  z.strictObject({
    isEnabled: z.boolean(),
    hours: z.optional(z.array(TimeRangeSchema)),
  }),
)
export type DaySchedule = z.infer<typeof DayScheduleSchema>

/** `weeklySchedule`: only the listed weekday keys. */
export const WeeklyScheduleSchema = deferred(() =>
  z.strictObject({
    monday: z.optional(DayScheduleSchema),
    tuesday: z.optional(DayScheduleSchema),
    wednesday: z.optional(DayScheduleSchema),
    thursday: z.optional(DayScheduleSchema),
    friday: z.optional(DayScheduleSchema),
    saturday: z.optional(DayScheduleSchema),
    sunday: z.optional(DayScheduleSchema),
  }),
)
export type WeeklySchedule = z.infer<typeof WeeklyScheduleSchema>

/**
 * A weekly schedule as sent. An enabled schedule with a `weeklySchedule` names at least one day: the
 * server refuses `{ isEnabled: true, weeklySchedule: {} }` (and takes an enabled one without
 * `weeklySchedule`).
 */
export const ScheduleSchema = deferred(() =>
  z
    .strictObject({
      isEnabled: z.boolean(),
      weeklySchedule: z.optional(WeeklyScheduleSchema),
    })
    .check(
      z.superRefine((schedule, context) => {
        const days = schedule.weeklySchedule
        if (schedule.isEnabled === true && days !== undefined && Object.keys(days).length === 0) {
          context.addIssue({
            code: 'custom',
            path: ['weeklySchedule'],
            message: 'must hold at least one day when the schedule is enabled',
          })
        }
      }),
    ),
)
/** A weekly schedule as received: the same fields, unknown keys kept, times not re-checked. */
export const ScheduleResultSchema = deferred(() =>
  z.looseObject({
    isEnabled: optionalBoolean,
    weeklySchedule: z.optional(
      z.record(
        z.string(),
        z.looseObject({
          isEnabled: optionalBoolean,
          hours: z.optional(z.array(z.looseObject({ start: optionalString, end: optionalString }))),
        }),
      ),
    ),
  }),
)
export type ScheduleResult = KnownFields<z.infer<typeof ScheduleResultSchema>>
