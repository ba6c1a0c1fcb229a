import * as z from 'zod/mini'
import { looseObject, optionalBoolean, optionalString, strictObject } from './fields.js'
import {
  ChannelNameSchema,
  ChannelPreferenceResultSchema,
  ChannelPreferenceSchema,
  IdentifierSchema,
  openEnum,
  ScheduleResultSchema,
  ScheduleSchema,
} from './shared.js'

/** api.md 4.1 request body. Without `workflowId` the global preferences change. */
export const UpdateSubscriberPreferencesRequestSchema = strictObject({
  channels: z.optional(ChannelPreferenceSchema),
  workflowId: z.optional(IdentifierSchema),
  schedule: z.optional(ScheduleSchema),
})
export type UpdateSubscriberPreferencesRequest = z.infer<typeof UpdateSubscriberPreferencesRequestSchema>

/** Who set a channel's value (server-notes.md; open). */
export const PreferenceOverrideSourceSchema = openEnum(['subscriber', 'template', 'workflowOverride'])

/** api.md 2.3, `workflows[]`. */
export const WorkflowPreferenceSchema = looseObject({
  enabled: optionalBoolean,
  channels: z.optional(ChannelPreferenceResultSchema),
  overrides: z.optional(
    z.array(looseObject({ channel: ChannelNameSchema, source: PreferenceOverrideSourceSchema })),
  ),
  workflow: z.optional(
    looseObject({
      slug: optionalString,
      identifier: optionalString,
      name: optionalString,
      updatedAt: optionalString,
    }),
  ),
})
export type WorkflowPreference = z.infer<typeof WorkflowPreferenceSchema>

/** api.md 2.3, the preferences response (v2). */
export const PreferencesSchema = looseObject({
  global: z.optional(
    looseObject({
      enabled: optionalBoolean,
      channels: z.optional(ChannelPreferenceResultSchema),
      schedule: z.optional(ScheduleResultSchema),
    }),
  ),
  workflows: z.optional(z.array(WorkflowPreferenceSchema)),
})
export type Preferences = z.infer<typeof PreferencesSchema>

export const MARK_AS_VALUES = ['read', 'seen', 'unread', 'unseen'] as const

/** api.md 4.2 request body. Unlike response enums, `markAs` is closed: a typo must not be sent. */
export const MarkAllMessagesRequestSchema = strictObject({
  markAs: z.enum(MARK_AS_VALUES),
  feedIdentifier: z.optional(z.union([IdentifierSchema, z.array(IdentifierSchema).check(z.minLength(1))])),
})
export type MarkAllMessagesRequest = z.infer<typeof MarkAllMessagesRequestSchema>

/** api.md 4.2 response: how many messages changed (server-notes.md). */
export const MarkAllMessagesResultSchema = z.number()
