import * as z from 'zod/mini'
import { deferred } from '../internal/validation/deferred.js'
import { isPlainObject } from '../internal/validation/parse.js'
import { nullishString, optionalJsonObject, optionalString, optionalStringArray } from './fields.js'
import type { KnownFields } from './known-fields.js'
import {
  ContextSchema,
  IdentifierSchema,
  type JsonObject,
  JsonObjectSchema,
  openEnum,
  SEVERITY_LEVELS,
} from './shared.js'

/** Providers of chat and push channels the server knows; open, since it adds providers. */
export const ProviderIdSchema = deferred(() =>
  openEnum([
    'slack',
    'discord',
    'msteams',
    'webex-messaging',
    'mattermost',
    'ryver',
    'zulip',
    'grafana-on-call',
    'getstream',
    'rocket-chat',
    'whatsapp-business',
    'line',
    'chat-webhook',
    'novu-slack',
    'telegram',
    'sendblue',
    'fcm',
    'apns',
    'expo',
    'one-signal',
    'pushpad',
    'push-webhook',
    'pusher-beams',
    'appio',
  ]),
)
export type ProviderId = z.infer<typeof ProviderIdSchema>

/** A subscriber's settings for one provider of a chat or push channel. */
export const ChannelSettingsSchema = deferred(() =>
  z.strictObject({
    providerId: ProviderIdSchema,
    integrationIdentifier: optionalString,
    // Optional, where the service's OpenAPI document marks it required: its validation checks the
    // object only when present, and an entry without one is how an integration is named alone.
    credentials: z.optional(
      z.strictObject({
        webhookUrl: optionalString,
        deviceTokens: optionalStringArray,
      }),
    ),
  }),
)
export type ChannelSettings = z.infer<typeof ChannelSettingsSchema>

/**
 * A subscriber as a recipient: only `subscriberId` is required; the server accepts `null` for the
 * rest but `channels`.
 */
export const SubscriberSchema = deferred(() =>
  z.strictObject({
    subscriberId: IdentifierSchema,
    email: nullishString,
    firstName: nullishString,
    lastName: nullishString,
    phone: nullishString,
    avatar: nullishString,
    locale: nullishString,
    timezone: nullishString,
    data: z.nullish(JsonObjectSchema),
    channels: z.optional(z.array(ChannelSettingsSchema)),
  }),
)
export type Subscriber = z.infer<typeof SubscriberSchema>

/** The topic form of a recipient: every subscriber of the topic, minus `exclude`. */
export const TopicRecipientSchema = deferred(() =>
  z.strictObject({
    type: z.literal('Topic', { error: "must be 'Topic'" }),
    topicKey: IdentifierSchema,
    exclude: z.optional(z.array(IdentifierSchema)),
  }),
)
export type TopicRecipient = z.infer<typeof TopicRecipientSchema>

const RECIPIENT_SHAPES = "a subscriberId, { subscriberId, … } or { type: 'Topic', topicKey }"

/** One recipient: a subscriberId, a subscriber object or a topic. */
export const RecipientSchema = deferred(() =>
  z.union([IdentifierSchema, SubscriberSchema, TopicRecipientSchema], {
    error: `must be ${RECIPIENT_SHAPES}`,
  }),
)
export type Recipient = z.infer<typeof RecipientSchema>

/**
 * `to` of a trigger: one recipient or a list of them. The server takes any number (it fans a long
 * list out in parts); an empty list is refused here although the server acknowledges it, since it
 * would answer `processed` for a trigger that reaches no one.
 */
export const RecipientsSchema = deferred(() =>
  z.union([RecipientSchema, z.array(RecipientSchema).check(z.minLength(1))], {
    error: `must be ${RECIPIENT_SHAPES}, or a list of them`,
  }),
)
export type Recipients = z.infer<typeof RecipientsSchema>

/**
 * An email address as the server's check of an actor takes it, in its broad lines: one `@`, no
 * spaces, a dot in the domain. The server's own check is finer; what passes here and not there is
 * the server's 422.
 */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/

/** A time zone the runtime's `Intl` knows (`Europe/Paris`), the test the server applies. */
function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: value })
    return true
  } catch {
    return false
  }
}

/**
 * `actor` as a subscriber object: the server checks it as it checks a subscriber it creates, so
 * `email` must be an address and `timezone` an IANA time zone (a recipient in `to` is not checked
 * so by the server, and is not here).
 */
const ActorSubscriberSchema = deferred(() =>
  z.extend(SubscriberSchema, {
    email: z.nullish(z.string().check(z.regex(EMAIL, { message: 'must be an email address' }))),
    timezone: z.nullish(
      z
        .string()
        .check(z.refine(isTimeZone, { message: 'must be an IANA time zone, such as "Europe/Paris"' })),
    ),
  }),
)

/** `actor`: a subscriberId or a subscriber object (whose `email` and `timezone` are checked). */
export const ActorSchema = deferred(() => z.union([IdentifierSchema, ActorSubscriberSchema]))
export type Actor = z.infer<typeof ActorSchema>

/** `tenant`: an identifier or `{ identifier?, name?, data? }`. */
export const TenantSchema = deferred(() =>
  z.union([
    IdentifierSchema,
    z.strictObject({
      identifier: optionalString,
      name: optionalString,
      data: optionalJsonObject,
    }),
  ]),
)
export type Tenant = z.infer<typeof TenantSchema>

/** Overrides of one workflow step, under `overrides.steps[stepId]`. */
export const StepOverridesSchema = deferred(() =>
  z.strictObject({
    providers: z.optional(z.record(z.string(), JsonObjectSchema)),
    layoutId: nullishString,
  }),
)
export type StepOverrides = z.infer<typeof StepOverridesSchema>

/** Overrides of a channel for every step of it, under `overrides.channels`. */
export const ChannelOverridesSchema = deferred(() =>
  z.strictObject({
    email: z.optional(z.strictObject({ layoutId: nullishString })),
  }),
)
export type ChannelOverrides = z.infer<typeof ChannelOverridesSchema>

/**
 * `overrides` of a trigger or broadcast, in either form the server takes: the structured keys
 * (`steps`, `channels`, `providers`, `severity`, and the older `email`, `push`, `sms`, `chat`,
 * `layoutIdentifier`), or provider-specific content keyed by provider id (`fcm`, `sendgrid`, …) at the
 * top. Every key that is not a structured one must hold an object: a misspelt `severity` is refused
 * rather than sent as a provider's overrides.
 */
export const TriggerOverridesSchema = deferred(() =>
  z.catchall(
    z.object({
      steps: z.optional(z.record(z.string(), StepOverridesSchema)),
      channels: z.optional(ChannelOverridesSchema),
      providers: z.optional(z.record(z.string(), JsonObjectSchema)),
      severity: z.optional(z.enum(SEVERITY_LEVELS)),
      /** @deprecated Use `channels.email` or `providers`. */
      email: optionalJsonObject,
      /** @deprecated Use `providers`. */
      push: optionalJsonObject,
      /** @deprecated Use `providers`. */
      sms: optionalJsonObject,
      /** @deprecated Use `providers`. */
      chat: optionalJsonObject,
      /** @deprecated Use `channels.email.layoutId`. */
      layoutIdentifier: optionalString,
    }),
    ProviderOverridesSchema,
  ),
)
export type TriggerOverrides = z.infer<typeof TriggerOverridesSchema>

/**
 * The value of a top-level key of `overrides` that is not a structured one: a provider's overrides.
 * Typed to admit strings too only because a TypeScript index signature must cover the structured
 * keys' types (`severity`, `layoutIdentifier`); a string there is refused when checked.
 */
const ProviderOverridesSchema = deferred(() =>
  z.custom<JsonObject | string>(isPlainObject, { message: "Expected an object: a provider's overrides" }),
)

/** @deprecated Renamed `TriggerOverridesSchema`, which also types the structured keys. */
export const OverridesSchema = TriggerOverridesSchema

/**
 * The body of a trigger. A `transactionId` the server has seen before is acknowledged `processed`
 * and then ignored: the trigger is not run again.
 */
export const TriggerEventRequestSchema = deferred(() =>
  z.strictObject({
    name: IdentifierSchema,
    to: RecipientsSchema,
    payload: optionalJsonObject,
    overrides: z.optional(TriggerOverridesSchema),
    /**
     * Your id for this trigger, the handle for `events.cancel`. Sent again, it is acknowledged
     * `processed` and ignored: nothing is sent the second time, and the result does not say so.
     * To make retries and re-runs safe, use an idempotency key; a `transactionId` seen before is
     * silently dropped.
     */
    transactionId: z.optional(IdentifierSchema),
    actor: z.optional(ActorSchema),
    tenant: z.optional(TenantSchema),
    context: z.optional(ContextSchema),
    bridgeUrl: optionalString,
  }),
)
export type TriggerEventRequest = z.infer<typeof TriggerEventRequestSchema>

/** The server's limit of events in one bulk request. */
export const MAX_EVENTS_PER_BULK_REQUEST = 100

/** The body of one bulk request: 1 to 100 events. */
export const BulkTriggerEventRequestSchema = deferred(() =>
  z.strictObject({
    events: z
      .array(TriggerEventRequestSchema)
      .check(z.minLength(1), z.maxLength(MAX_EVENTS_PER_BULK_REQUEST)),
  }),
)
export type BulkTriggerEventRequest = z.infer<typeof BulkTriggerEventRequestSchema>

/** The body of a broadcast: like a trigger without `to` and `bridgeUrl`, and `payload` required. */
export const BroadcastEventRequestSchema = deferred(() =>
  z.strictObject({
    name: IdentifierSchema,
    payload: JsonObjectSchema,
    overrides: z.optional(TriggerOverridesSchema),
    transactionId: z.optional(IdentifierSchema),
    actor: z.optional(ActorSchema),
    tenant: z.optional(TenantSchema),
    context: z.optional(ContextSchema),
  }),
)
export type BroadcastEventRequest = z.infer<typeof BroadcastEventRequestSchema>

/**
 * Statuses with which the server answers a trigger it queued nothing for: an inactive workflow, one
 * without (active) steps, an unknown tenant, recipients it could not use, or (in a bulk) an event
 * that failed on its own (`error`, the reason in `error`).
 */
export const TRIGGER_NOT_SENT_STATUSES = [
  'error',
  'trigger_not_active',
  'no_workflow_active_steps_defined',
  'no_workflow_steps_defined',
  'no_tenant_found',
  'invalid_recipients',
  'subscriber_id_missing',
] as const

/** Trigger statuses the server is known to send; open, since it adds new ones. */
export const TriggerStatusSchema = deferred(() => openEnum(['processed', ...TRIGGER_NOT_SENT_STATUSES]))
export type TriggerStatus = z.infer<typeof TriggerStatusSchema>

/** The result of a trigger. Extra fields (`activityFeedLink`, `jobData`) are kept. */
export const TriggerResultSchema = deferred(() =>
  z.looseObject({
    acknowledged: z.boolean(),
    status: TriggerStatusSchema,
    error: optionalStringArray,
    transactionId: optionalString,
  }),
)
/**
 * The documented fields of a trigger result. Every other field the server sends is kept at runtime;
 * reach it with `in`: `if ('activityFeedLink' in result) console.log(result.activityFeedLink)`.
 */
export type TriggerResult = KnownFields<z.infer<typeof TriggerResultSchema>>

/** The answer of one bulk request: one result per event, in order. */
export const BulkTriggerResultSchema = deferred(() => z.array(TriggerResultSchema))

/** The answer of a cancel: `true` when something was cancelled, `false` when nothing cancellable was. */
export const CancelEventResultSchema = deferred(() => z.boolean())
