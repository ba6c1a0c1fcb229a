import * as z from 'zod/mini'
import { looseObject, nullishString, optionalString, optionalStringArray, strictObject } from './fields.js'
import { IdentifierSchema, JsonObjectSchema, openEnum } from './shared.js'

/** Shared by every optional object field of this module's tables (see fields.ts). */
const optionalJsonObject = z.optional(JsonObjectSchema)

/** Providers seen for chat and push channels (server-notes.md); open. */
export const ProviderIdSchema = openEnum([
  'slack',
  'discord',
  'msteams',
  'mattermost',
  'fcm',
  'apns',
  'expo',
  'one-signal',
  'chat-webhook',
])

/** api.md 2.4, channel settings entry. */
export const ChannelSettingsSchema = strictObject({
  providerId: ProviderIdSchema,
  integrationIdentifier: optionalString,
  credentials: z.optional(
    strictObject({
      webhookUrl: optionalString,
      deviceTokens: optionalStringArray,
    }),
  ),
})
export type ChannelSettings = z.infer<typeof ChannelSettingsSchema>

/** api.md 2.4, subscriber object; server-notes.md: only `subscriberId` is required, the rest may be null. */
export const SubscriberSchema = strictObject({
  subscriberId: IdentifierSchema,
  email: nullishString,
  firstName: nullishString,
  lastName: nullishString,
  phone: nullishString,
  avatar: nullishString,
  locale: nullishString,
  timezone: nullishString,
  data: optionalJsonObject,
  channels: z.optional(z.array(ChannelSettingsSchema)),
})
export type Subscriber = z.infer<typeof SubscriberSchema>

/** The topic form of a recipient (server-notes.md). */
export const TopicRecipientSchema = strictObject({
  type: z.literal('Topic'),
  topicKey: IdentifierSchema,
  exclude: z.optional(z.array(IdentifierSchema)),
})
export type TopicRecipient = z.infer<typeof TopicRecipientSchema>

/** One recipient: a subscriberId, a subscriber object or a topic. */
export const RecipientSchema = z.union([IdentifierSchema, SubscriberSchema, TopicRecipientSchema])
export type Recipient = z.infer<typeof RecipientSchema>

/** `to` of a trigger: one recipient or up to 100 (server-notes.md). */
export const RecipientsSchema = z.union([
  RecipientSchema,
  z.array(RecipientSchema).check(z.minLength(1), z.maxLength(100)),
])
export type Recipients = z.infer<typeof RecipientsSchema>

/** `actor`: a subscriberId or a subscriber object (server-notes.md). */
export const ActorSchema = z.union([IdentifierSchema, SubscriberSchema])
export type Actor = z.infer<typeof ActorSchema>

/** `tenant`: an identifier or `{ identifier?, name?, data? }` (server-notes.md). */
export const TenantSchema = z.union([
  IdentifierSchema,
  strictObject({
    identifier: optionalString,
    name: optionalString,
    data: optionalJsonObject,
  }),
])
export type Tenant = z.infer<typeof TenantSchema>

/** Provider overrides keyed by provider identifier, each with provider-specific content. */
export const OverridesSchema = z.record(z.string(), JsonObjectSchema)

/** api.md 4.3 request body. */
export const TriggerEventRequestSchema = strictObject({
  name: IdentifierSchema,
  to: RecipientsSchema,
  payload: optionalJsonObject,
  overrides: z.optional(OverridesSchema),
  transactionId: z.optional(IdentifierSchema),
  actor: z.optional(ActorSchema),
  tenant: z.optional(TenantSchema),
})
export type TriggerEventRequest = z.infer<typeof TriggerEventRequestSchema>

/** The server's limit of events in one bulk request (api.md §8). */
export const MAX_EVENTS_PER_BULK_REQUEST = 100

/** server-notes.md, bulk trigger body: 1 to 100 events. */
export const BulkTriggerEventRequestSchema = strictObject({
  events: z.array(TriggerEventRequestSchema).check(z.minLength(1), z.maxLength(MAX_EVENTS_PER_BULK_REQUEST)),
})
export type BulkTriggerEventRequest = z.infer<typeof BulkTriggerEventRequestSchema>

/** server-notes.md, broadcast body: like a trigger without `to`, and `payload` required. */
export const BroadcastEventRequestSchema = strictObject({
  name: IdentifierSchema,
  payload: JsonObjectSchema,
  overrides: z.optional(OverridesSchema),
  transactionId: z.optional(IdentifierSchema),
  actor: z.optional(ActorSchema),
  tenant: z.optional(TenantSchema),
})
export type BroadcastEventRequest = z.infer<typeof BroadcastEventRequestSchema>

/** Trigger statuses seen (server-notes.md); open. */
export const TriggerStatusSchema = openEnum([
  'processed',
  'error',
  'trigger_not_active',
  'no_workflow_active_steps_defined',
  'no_workflow_steps_defined',
  'no_tenant_found',
  'invalid_recipients',
])
export type TriggerStatus = z.infer<typeof TriggerStatusSchema>

/** api.md 2.5, trigger result. Extra fields (`activityFeedLink`, `jobData`) are kept. */
export const TriggerResultSchema = looseObject({
  acknowledged: z.boolean(),
  status: TriggerStatusSchema,
  error: optionalStringArray,
  transactionId: optionalString,
})
export type TriggerResult = z.infer<typeof TriggerResultSchema>

/** server-notes.md, bulk response: one result per event, in order. */
export const BulkTriggerResultSchema = z.array(TriggerResultSchema)

/** api.md 4.4 response: `true` when something was cancelled, `false` when nothing cancellable was found. */
export const CancelEventResultSchema = z.boolean()
