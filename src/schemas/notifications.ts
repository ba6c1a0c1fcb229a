import * as z from 'zod'
import type { KnownFields } from './known-fields.js'
import { ChannelNameSchema, JsonObjectSchema, openEnum } from './shared.js'

// Every schema here reads a response: loose objects (unknown keys kept), open enums, and fields
// optional unless the server always sends them.

/** Step and job types the server is known to use; open. */
export const StepTypeSchema = openEnum([
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
])
export type StepType = z.infer<typeof StepTypeSchema>

export const JobStatusSchema = openEnum([
  'pending',
  'queued',
  'running',
  'completed',
  'failed',
  'delayed',
  'canceled',
  'merged',
  'skipped',
])
export type JobStatus = z.infer<typeof JobStatusSchema>

export const SeveritySchema = openEnum(['high', 'medium', 'low', 'none'])

/** A step's filter. */
export const FilterSchema = z.looseObject({
  isNegated: z.boolean().optional(),
  type: openEnum(['BOOLEAN']).optional(),
  value: openEnum(['AND', 'OR']).optional(),
  children: z
    .array(
      z.looseObject({
        field: z.string().optional(),
        value: z.string().optional(),
        operator: openEnum(['LARGER', 'SMALLER', 'EQUAL', 'NOT_EQUAL']).optional(),
        on: openEnum(['subscriber', 'payload']).optional(),
      }),
    )
    .optional(),
})
export type Filter = KnownFields<z.infer<typeof FilterSchema>>

/** A workflow step as a job records it; `variants` holds steps of the same shape. */
export const StepSchema = z.looseObject({
  _id: z.string().optional(),
  active: z.boolean().optional(),
  replyCallback: JsonObjectSchema.optional(),
  controlVariables: JsonObjectSchema.optional(),
  metadata: JsonObjectSchema.optional(),
  issues: JsonObjectSchema.optional(),
  filters: z.array(FilterSchema).optional(),
  template: JsonObjectSchema.optional(),
  get variants(): z.ZodOptional<z.ZodArray<typeof StepSchema>> {
    return z.array(StepSchema).optional()
  },
  _templateId: z.string().optional(),
  name: z.string().optional(),
  _parentId: z.string().nullish(),
})
export type Step = KnownFields<z.infer<typeof StepSchema>>

export const DigestUnitSchema = openEnum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months'])

/** The timing of a timed digest. */
export const TimedDigestSchema = z.looseObject({
  atTime: z.string().optional(),
  weekDays: z.array(z.string()).optional(),
  monthDays: z.array(z.number()).optional(),
  ordinal: z.string().optional(),
  ordinalValue: z.string().optional(),
  monthlyType: openEnum(['each', 'on']).optional(),
  cronExpression: z.string().optional(),
})
export type TimedDigest = KnownFields<z.infer<typeof TimedDigestSchema>>

/** A digest job's settings. */
export const DigestSchema = z.looseObject({
  digestKey: z.string().optional(),
  amount: z.number().optional(),
  unit: DigestUnitSchema.optional(),
  type: openEnum(['regular', 'backoff', 'timed']).optional(),
  events: z.array(JsonObjectSchema).optional(),
  backoff: z.boolean().optional(),
  backoffAmount: z.number().optional(),
  backoffUnit: DigestUnitSchema.optional(),
  updateMode: z.boolean().optional(),
  timed: TimedDigestSchema.optional(),
})
export type Digest = KnownFields<z.infer<typeof DigestSchema>>

/** One execution detail of a job. */
export const ExecutionDetailSchema = z.looseObject({
  _id: z.string().optional(),
  createdAt: z.string().optional(),
  status: openEnum(['Success', 'Warning', 'Failed', 'Pending', 'Queued', 'ReadConfirmation']).optional(),
  detail: z.string().optional(),
  isRetry: z.boolean().optional(),
  isTest: z.boolean().optional(),
  providerId: z.string().optional(),
  raw: z.string().nullish(),
  source: openEnum(['Credentials', 'Internal', 'Payload', 'Webhook']).optional(),
})
export type ExecutionDetail = KnownFields<z.infer<typeof ExecutionDetailSchema>>

/** One job of a notification: one step run for one subscriber. */
export const JobSchema = z.looseObject({
  _id: z.string().optional(),
  type: StepTypeSchema.optional(),
  digest: DigestSchema.optional(),
  executionDetails: z.array(ExecutionDetailSchema).optional(),
  step: StepSchema.optional(),
  overrides: JsonObjectSchema.optional(),
  payload: JsonObjectSchema.optional(),
  providerId: z.string().optional(),
  status: JobStatusSchema.optional(),
  updatedAt: z.string().optional(),
  scheduleExtensionsCount: z.number().int().optional(),
})
export type Job = KnownFields<z.infer<typeof JobSchema>>

/** The workflow (`template`) a notification was made from. */
export const NotificationTemplateSchema = z.looseObject({
  _id: z.string().optional(),
  name: z.string().optional(),
  origin: openEnum(['novu-cloud', 'novu-cloud-v1', 'external']).optional(),
  triggers: z
    .array(
      z.looseObject({
        type: openEnum(['event']).optional(),
        identifier: z.string().optional(),
        variables: z.array(z.looseObject({ name: z.string() })).optional(),
        subscriberVariables: z.array(z.looseObject({ name: z.string() })).optional(),
      }),
    )
    .optional(),
})
export type NotificationTemplate = KnownFields<z.infer<typeof NotificationTemplateSchema>>

/** A notification: the record of one trigger for one subscriber, with its jobs. */
export const NotificationSchema = z.looseObject({
  _id: z.string(),
  _environmentId: z.string(),
  _organizationId: z.string(),
  _subscriberId: z.string(),
  transactionId: z.string(),
  _templateId: z.string().optional(),
  _digestedNotificationId: z.string().nullish(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  channels: z.array(ChannelNameSchema).optional(),
  subscriber: z
    .looseObject({
      _id: z.string().optional(),
      subscriberId: z.string().optional(),
      firstName: z.string().nullish(),
      lastName: z.string().nullish(),
      email: z.string().nullish(),
      phone: z.string().nullish(),
    })
    .optional(),
  template: NotificationTemplateSchema.optional(),
  jobs: z.array(JobSchema).optional(),
  payload: JsonObjectSchema.optional(),
  tags: z.array(z.string()).optional(),
  controls: JsonObjectSchema.optional(),
  to: z.unknown().optional(),
  topics: z
    .array(z.looseObject({ _topicId: z.string().optional(), topicKey: z.string().optional() }))
    .optional(),
  severity: SeveritySchema.optional(),
  critical: z.boolean().optional(),
})
/**
 * The documented fields of a notification, nested ones included. Every other field the server sends
 * is kept at runtime; reach it with `in` (`if ('_feedId' in notification) …`) or through
 * `const fields: Record<string, unknown> = notification`.
 */
export type Notification = KnownFields<z.infer<typeof NotificationSchema>>
