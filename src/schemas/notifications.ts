import * as z from 'zod/mini'
import { deferred } from '../internal/validation/deferred.js'
import {
  nullishString,
  optionalBoolean,
  optionalJsonObject,
  optionalNumber,
  optionalString,
  optionalStringArray,
} from './fields.js'
import type { KnownFields } from './known-fields.js'
import {
  CHANNEL_NAMES,
  ChannelNameSchema,
  IdentifierSchema,
  JsonObjectSchema,
  openEnum,
  SEVERITY_LEVELS,
  SeveritySchema,
} from './shared.js'

// Every schema here reads a response: loose objects (unknown keys kept), open enums, and fields
// optional unless the server always sends them.

/** Step and job types the server is known to use; open. */
export const StepTypeSchema = deferred(() =>
  openEnum([
    'in_app',
    'email',
    'sms',
    'chat',
    'push',
    'digest',
    'trigger',
    'delay',
    'throttle',
    'custom',
    'http_request',
  ]),
)
export type StepType = z.infer<typeof StepTypeSchema>

export const JobStatusSchema = deferred(() =>
  openEnum([
    'pending',
    'queued',
    'running',
    'completed',
    'failed',
    'delayed',
    'canceled',
    'merged',
    'skipped',
  ]),
)
export type JobStatus = z.infer<typeof JobStatusSchema>

/** A step's filter. */
export const FilterSchema = deferred(() =>
  z.looseObject({
    isNegated: optionalBoolean,
    type: z.optional(openEnum(['BOOLEAN'])),
    value: z.optional(openEnum(['AND', 'OR'])),
    children: z.optional(
      z.array(
        z.looseObject({
          field: optionalString,
          value: optionalString,
          operator: z.optional(
            openEnum([
              'LARGER',
              'SMALLER',
              'LARGER_EQUAL',
              'SMALLER_EQUAL',
              'EQUAL',
              'NOT_EQUAL',
              'ALL_IN',
              'ANY_IN',
              'NOT_IN',
              'BETWEEN',
              'NOT_BETWEEN',
              'LIKE',
              'NOT_LIKE',
              'IN',
            ]),
          ),
          on: z.optional(openEnum(['subscriber', 'payload'])),
        }),
      ),
    ),
  }),
)
export type Filter = KnownFields<z.infer<typeof FilterSchema>>

/** A workflow step as a job records it; `variants` holds steps of the same shape. */
export const StepSchema = deferred(() =>
  z.looseObject({
    _id: optionalString,
    active: optionalBoolean,
    replyCallback: optionalJsonObject,
    controlVariables: optionalJsonObject,
    metadata: optionalJsonObject,
    issues: optionalJsonObject,
    filters: z.optional(z.array(FilterSchema)),
    template: optionalJsonObject,
    get variants(): z.ZodMiniOptional<z.ZodMiniArray<typeof StepSchema>> {
      return z.optional(z.array(StepSchema))
    },
    _templateId: optionalString,
    name: optionalString,
    _parentId: nullishString,
  }),
)
export type Step = KnownFields<z.infer<typeof StepSchema>>

export const DigestUnitSchema = deferred(() =>
  openEnum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months']),
)

/** The timing of a timed digest. */
export const TimedDigestSchema = deferred(() =>
  z.looseObject({
    atTime: optionalString,
    weekDays: optionalStringArray,
    monthDays: z.optional(z.array(z.number())),
    ordinal: optionalString,
    ordinalValue: optionalString,
    monthlyType: z.optional(openEnum(['each', 'on'])),
    cronExpression: optionalString,
    untilDate: optionalString,
  }),
)
export type TimedDigest = KnownFields<z.infer<typeof TimedDigestSchema>>

/** A digest job's settings. */
export const DigestSchema = deferred(() =>
  z.looseObject({
    digestKey: optionalString,
    amount: optionalNumber,
    unit: z.optional(DigestUnitSchema),
    type: z.optional(openEnum(['regular', 'backoff', 'timed'])),
    events: z.optional(z.array(JsonObjectSchema)),
    backoff: optionalBoolean,
    backoffAmount: optionalNumber,
    backoffUnit: z.optional(DigestUnitSchema),
    updateMode: optionalBoolean,
    timed: z.optional(TimedDigestSchema),
  }),
)
export type Digest = KnownFields<z.infer<typeof DigestSchema>>

/** One execution detail of a job. */
export const ExecutionDetailSchema = deferred(() =>
  z.looseObject({
    _id: optionalString,
    createdAt: optionalString,
    status: z.optional(openEnum(['Success', 'Warning', 'Failed', 'Pending', 'Queued', 'ReadConfirmation'])),
    detail: optionalString,
    isRetry: optionalBoolean,
    isTest: optionalBoolean,
    providerId: optionalString,
    raw: nullishString,
    source: z.optional(openEnum(['Credentials', 'Internal', 'Payload', 'Webhook'])),
  }),
)
export type ExecutionDetail = KnownFields<z.infer<typeof ExecutionDetailSchema>>

/** One job of a notification: one step run for one subscriber. */
export const JobSchema = deferred(() =>
  z.looseObject({
    _id: optionalString,
    type: z.optional(StepTypeSchema),
    digest: z.optional(DigestSchema),
    executionDetails: z.optional(z.array(ExecutionDetailSchema)),
    step: z.optional(StepSchema),
    overrides: optionalJsonObject,
    payload: optionalJsonObject,
    providerId: optionalString,
    status: z.optional(JobStatusSchema),
    updatedAt: optionalString,
    scheduleExtensionsCount: z.optional(z.number().check(z.int())),
  }),
)
export type Job = KnownFields<z.infer<typeof JobSchema>>

/** The workflow (`template`) a notification was made from. */
export const NotificationTemplateSchema = deferred(() =>
  z.looseObject({
    _id: optionalString,
    name: optionalString,
    origin: z.optional(openEnum(['novu-cloud', 'novu-cloud-v1', 'external'])),
    triggers: z.optional(
      z.array(
        z.looseObject({
          type: z.optional(openEnum(['event'])),
          identifier: optionalString,
          variables: z.optional(z.array(z.looseObject({ name: z.string() }))),
          subscriberVariables: z.optional(z.array(z.looseObject({ name: z.string() }))),
        }),
      ),
    ),
  }),
)
export type NotificationTemplate = KnownFields<z.infer<typeof NotificationTemplateSchema>>

/** A notification: the record of one trigger for one subscriber, with its jobs. */
export const NotificationSchema = deferred(() =>
  z.looseObject({
    // The server's OpenAPI document leaves `_id` out of its required fields: a body without one is
    // still a notification.
    _id: optionalString,
    _environmentId: z.string(),
    _organizationId: z.string(),
    _subscriberId: z.string(),
    transactionId: z.string(),
    _templateId: optionalString,
    _digestedNotificationId: nullishString,
    createdAt: optionalString,
    updatedAt: optionalString,
    channels: z.optional(z.array(ChannelNameSchema)),
    subscriber: z.optional(
      z.looseObject({
        _id: optionalString,
        subscriberId: optionalString,
        firstName: nullishString,
        lastName: nullishString,
        email: nullishString,
        phone: nullishString,
      }),
    ),
    template: z.optional(NotificationTemplateSchema),
    jobs: z.optional(z.array(JobSchema)),
    payload: optionalJsonObject,
    tags: optionalStringArray,
    controls: optionalJsonObject,
    to: z.optional(z.unknown()),
    topics: z.optional(z.array(z.looseObject({ _topicId: optionalString, topicKey: optionalString }))),
    severity: z.optional(SeveritySchema),
    critical: optionalBoolean,
    contextKeys: optionalStringArray,
  }),
)
/**
 * The documented fields of a notification, nested ones included. Every other field the server sends
 * is kept at runtime; reach it with `in` (`if ('_feedId' in notification) …`) or through
 * `const fields: Record<string, unknown> = notification`.
 */
export type Notification = KnownFields<z.infer<typeof NotificationSchema>>

/** A list filter the server reads as one value or a list of them (`channels=sms` or repeated). */
function oneOrMany<Item extends z.ZodMiniType>(item: Item) {
  return z.optional(z.union([item, z.array(item)]))
}

/** A date as the server reads `after` and `before`: anything `new Date()` parses, ISO 8601 above all. */
const DateFilterSchema = deferred(() =>
  z.string().check(
    z.refine((value) => !Number.isNaN(new Date(value).getTime()), {
      message: 'Must be a date the server can read, such as an ISO 8601 string ("2026-04-01T00:00:00Z")',
    }),
  ),
)

/** A database id (24 hexadecimal characters), the form the server requires of a workflow's `_id`. */
const ObjectIdSchema = deferred(() =>
  z
    .string()
    .check(z.regex(/^[0-9a-fA-F]{24}$/, { message: 'Must be a workflow _id (24 hexadecimal characters)' })),
)

/** The most notifications the server returns on one page (`limit`); it returns 10 without one. */
export const MAX_NOTIFICATIONS_PER_PAGE = 50

/**
 * The filters and page of a notifications list: the query of `GET /v1/notifications`. Checked as the
 * server checks it; a filter left out does not filter. Lists also take one value.
 */
export const ListNotificationsRequestSchema = deferred(() =>
  z
    .strictObject({
      // An empty or undefined transactionId would list every notification of the environment: refused.
      transactionId: oneOrMany(IdentifierSchema),
      subscriberIds: oneOrMany(z.string()),
      channels: oneOrMany(z.enum(CHANNEL_NAMES)),
      templates: oneOrMany(ObjectIdSchema),
      emails: oneOrMany(z.string()),
      severity: oneOrMany(z.enum(SEVERITY_LEVELS)),
      topicKey: optionalString,
      subscriptionId: optionalString,
      contextKeys: oneOrMany(z.string()),
      after: z.optional(DateFilterSchema),
      before: z.optional(DateFilterSchema),
      search: optionalString,
      page: z.optional(z.number().check(z.int(), z.nonnegative())),
      limit: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_NOTIFICATIONS_PER_PAGE))),
    })
    .check(
      // `{ transactionId }` from a result without one would otherwise list every notification.
      z.refine((query) => !('transactionId' in query && query.transactionId === undefined), {
        message:
          'is undefined: pass the transactionId to find, or leave the key out to list every notification',
        path: ['transactionId'],
      }),
      z.refine(
        (query) =>
          query.after === undefined ||
          query.before === undefined ||
          new Date(query.after).getTime() <= new Date(query.before).getTime(),
        { message: '`after` must not be later than `before`', path: ['after'] },
      ),
    ),
)
export type ListNotificationsRequest = z.infer<typeof ListNotificationsRequestSchema>

/**
 * One page of a notifications list, as received. The server pages by number: `hasMore` is true when
 * the page came back full, so the page after a full last page is empty. It reports no total.
 */
export const NotificationsPageSchema = deferred(() =>
  z.looseObject({
    data: z.array(NotificationSchema),
    hasMore: z.boolean(),
    page: z.number(),
    pageSize: z.number(),
  }),
)
export type NotificationsPageBody = KnownFields<z.infer<typeof NotificationsPageSchema>>
