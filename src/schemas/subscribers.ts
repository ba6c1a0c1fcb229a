import * as z from 'zod/mini'
import { deferred } from '../internal/validation/deferred.js'
import { optionalBoolean, optionalString } from './fields.js'
import type { KnownFields } from './known-fields.js'
import {
  ChannelNameSchema,
  ChannelPreferenceResultSchema,
  ChannelPreferenceSchema,
  ContextSchema,
  IdentifierSchema,
  openEnum,
  ScheduleResultSchema,
  ScheduleSchema,
} from './shared.js'

/**
 * The body of a preferences update. Without `workflowId` the global preferences change. A schedule
 * is a global setting: the server stores one only in an update without `workflowId`, and beside
 * one it answers 200 and drops it, so that pair is refused here.
 */
export const UpdateSubscriberPreferencesRequestSchema = deferred(() =>
  z
    .strictObject({
      channels: z.optional(ChannelPreferenceSchema),
      workflowId: z.optional(IdentifierSchema),
      schedule: z.optional(ScheduleSchema),
      context: z.optional(ContextSchema),
    })
    .check(
      z.superRefine((update, context) => {
        if (update.workflowId !== undefined && update.schedule !== undefined) {
          context.addIssue({
            code: 'custom',
            path: ['schedule'],
            message:
              'a schedule is global: the server ignores it beside `workflowId`; send it in an update without `workflowId`',
          })
        }
      }),
    ),
)
/**
 * The body of a preferences update: global (no `workflowId`, and a `schedule` if you like), or for
 * one workflow (`workflowId`, and no `schedule`, which is global only).
 */
export type UpdateSubscriberPreferencesRequest =
  | (z.infer<typeof UpdateSubscriberPreferencesRequestSchema> & { workflowId?: undefined })
  | (Omit<z.infer<typeof UpdateSubscriberPreferencesRequestSchema>, 'schedule'> & {
      workflowId: string
      /** A schedule is global only: send it in an update without `workflowId`. */
      schedule?: undefined
    })

/** Who set a channel's value; open, since the server may add sources. */
export const PreferenceOverrideSourceSchema = deferred(() =>
  openEnum(['subscriber', 'template', 'workflowOverride']),
)

/**
 * One entry of `workflows[]` in the preferences: one per active workflow; `updatedAt` is when the
 * subscriber last set preferences for it, absent until they do.
 */
export const WorkflowPreferenceSchema = deferred(() =>
  z.looseObject({
    enabled: optionalBoolean,
    updatedAt: optionalString,
    channels: z.optional(ChannelPreferenceResultSchema),
    overrides: z.optional(
      z.array(z.looseObject({ channel: ChannelNameSchema, source: PreferenceOverrideSourceSchema })),
    ),
    workflow: z.optional(
      z.looseObject({
        slug: optionalString,
        identifier: optionalString,
        name: optionalString,
        updatedAt: optionalString,
      }),
    ),
  }),
)
export type WorkflowPreference = KnownFields<z.infer<typeof WorkflowPreferenceSchema>>

/** A subscriber's preferences, as the v2 preferences route returns them: global and per workflow. */
export const PreferencesSchema = deferred(() =>
  z.looseObject({
    global: z.optional(
      z.looseObject({
        enabled: optionalBoolean,
        channels: z.optional(ChannelPreferenceResultSchema),
        schedule: z.optional(ScheduleResultSchema),
      }),
    ),
    workflows: z.optional(z.array(WorkflowPreferenceSchema)),
  }),
)
export type Preferences = KnownFields<z.infer<typeof PreferencesSchema>>

export const PREFERENCE_CRITICALITIES = ['critical', 'nonCritical', 'all'] as const

/**
 * The query of a preferences read: which workflows to list by criticality (`nonCritical` when left
 * out: critical workflows' preferences cannot be changed), and the context keys (`"tenant:acme"`)
 * whose preferences to read.
 */
export const GetSubscriberPreferencesRequestSchema = deferred(() =>
  z.strictObject({
    criticality: z.optional(z.enum(PREFERENCE_CRITICALITIES)),
    contextKeys: z.optional(z.union([z.string(), z.array(z.string())])),
  }),
)
export type GetSubscriberPreferencesRequest = z.infer<typeof GetSubscriberPreferencesRequestSchema>

export const MARK_AS_VALUES = ['read', 'seen', 'unread', 'unseen'] as const

/** The body of a mark-all call. Unlike response enums, `markAs` is closed: a typo must not be sent. */
export const MarkAllMessagesRequestSchema = deferred(() =>
  z.strictObject({
    markAs: z.enum(MARK_AS_VALUES),
    feedIdentifier: z.optional(z.union([IdentifierSchema, z.array(IdentifierSchema).check(z.minLength(1))])),
  }),
)
export type MarkAllMessagesRequest = z.infer<typeof MarkAllMessagesRequestSchema>

/** The answer of a mark-all call: how many in-app messages changed (`0` when all already were). */
export const MarkAllMessagesResultSchema = deferred(() => z.number())
