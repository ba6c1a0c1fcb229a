import * as z from 'zod/mini'
import { ChannelNameSchema, JsonObjectSchema, openEnum } from './shared.js'

// Every schema here reads a response: loose objects (unknown keys kept), open enums, and fields
// optional unless server-notes.md says they are always there.

/** Step and job types seen (server-notes.md). */
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

/** api.md 2.6, filter object. */
export const FilterSchema = z.looseObject({
  isNegated: z.optional(z.boolean()),
  type: z.optional(openEnum(['BOOLEAN'])),
  value: z.optional(openEnum(['AND', 'OR'])),
  children: z.optional(
    z.array(
      z.looseObject({
        field: z.optional(z.string()),
        value: z.optional(z.string()),
        operator: z.optional(openEnum(['LARGER', 'SMALLER', 'EQUAL', 'NOT_EQUAL'])),
        on: z.optional(openEnum(['subscriber', 'payload'])),
      }),
    ),
  ),
})
export type Filter = z.infer<typeof FilterSchema>

/** api.md 2.6, step object; `variants` holds steps of the same shape. */
export const StepSchema = z.looseObject({
  _id: z.optional(z.string()),
  active: z.optional(z.boolean()),
  replyCallback: z.optional(JsonObjectSchema),
  controlVariables: z.optional(JsonObjectSchema),
  metadata: z.optional(JsonObjectSchema),
  issues: z.optional(JsonObjectSchema),
  filters: z.optional(z.array(FilterSchema)),
  template: z.optional(JsonObjectSchema),
  get variants(): z.ZodMiniOptional<z.ZodMiniArray<typeof StepSchema>> {
    return z.optional(z.array(StepSchema))
  },
  _templateId: z.optional(z.string()),
  name: z.optional(z.string()),
  _parentId: z.nullish(z.string()),
})
export type Step = z.infer<typeof StepSchema>

export const DigestUnitSchema = openEnum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months'])

/** api.md 2.6, timed digest object. */
export const TimedDigestSchema = z.looseObject({
  atTime: z.optional(z.string()),
  weekDays: z.optional(z.array(z.string())),
  monthDays: z.optional(z.array(z.number())),
  ordinal: z.optional(z.string()),
  ordinalValue: z.optional(z.string()),
  monthlyType: z.optional(openEnum(['each', 'on'])),
  cronExpression: z.optional(z.string()),
})
export type TimedDigest = z.infer<typeof TimedDigestSchema>

/** api.md 2.6, digest object. */
export const DigestSchema = z.looseObject({
  digestKey: z.optional(z.string()),
  amount: z.optional(z.number()),
  unit: z.optional(DigestUnitSchema),
  type: z.optional(openEnum(['regular', 'backoff', 'timed'])),
  events: z.optional(z.array(JsonObjectSchema)),
  backoff: z.optional(z.boolean()),
  backoffAmount: z.optional(z.number()),
  backoffUnit: z.optional(DigestUnitSchema),
  updateMode: z.optional(z.boolean()),
  timed: z.optional(TimedDigestSchema),
})
export type Digest = z.infer<typeof DigestSchema>

/** api.md 2.6, execution detail. */
export const ExecutionDetailSchema = z.looseObject({
  _id: z.optional(z.string()),
  createdAt: z.optional(z.string()),
  status: z.optional(openEnum(['Success', 'Warning', 'Failed', 'Pending', 'Queued', 'ReadConfirmation'])),
  detail: z.optional(z.string()),
  isRetry: z.optional(z.boolean()),
  isTest: z.optional(z.boolean()),
  providerId: z.optional(z.string()),
  raw: z.nullish(z.string()),
  source: z.optional(openEnum(['Credentials', 'Internal', 'Payload', 'Webhook'])),
})
export type ExecutionDetail = z.infer<typeof ExecutionDetailSchema>

/** api.md 2.6, job object. */
export const JobSchema = z.looseObject({
  _id: z.optional(z.string()),
  type: z.optional(StepTypeSchema),
  digest: z.optional(DigestSchema),
  executionDetails: z.optional(z.array(ExecutionDetailSchema)),
  step: z.optional(StepSchema),
  overrides: z.optional(JsonObjectSchema),
  payload: z.optional(JsonObjectSchema),
  providerId: z.optional(z.string()),
  status: z.optional(JobStatusSchema),
  updatedAt: z.optional(z.string()),
  scheduleExtensionsCount: z.optional(z.number().check(z.int())),
})
export type Job = z.infer<typeof JobSchema>

/** api.md 2.6, `template`. */
export const NotificationTemplateSchema = z.looseObject({
  _id: z.optional(z.string()),
  name: z.optional(z.string()),
  origin: z.optional(openEnum(['novu-cloud', 'novu-cloud-v1', 'external'])),
  triggers: z.optional(
    z.array(
      z.looseObject({
        type: z.optional(openEnum(['event'])),
        identifier: z.optional(z.string()),
        variables: z.optional(z.array(z.looseObject({ name: z.string() }))),
        subscriberVariables: z.optional(z.array(z.looseObject({ name: z.string() }))),
      }),
    ),
  ),
})
export type NotificationTemplate = z.infer<typeof NotificationTemplateSchema>

/** api.md 2.6, the notification: the record of one trigger for one subscriber. */
export const NotificationSchema = z.looseObject({
  _id: z.string(),
  _environmentId: z.string(),
  _organizationId: z.string(),
  _subscriberId: z.string(),
  transactionId: z.string(),
  _templateId: z.optional(z.string()),
  _digestedNotificationId: z.nullish(z.string()),
  createdAt: z.optional(z.string()),
  updatedAt: z.optional(z.string()),
  channels: z.optional(z.array(ChannelNameSchema)),
  subscriber: z.optional(
    z.looseObject({
      _id: z.optional(z.string()),
      subscriberId: z.optional(z.string()),
      firstName: z.nullish(z.string()),
      lastName: z.nullish(z.string()),
      email: z.nullish(z.string()),
      phone: z.nullish(z.string()),
    }),
  ),
  template: z.optional(NotificationTemplateSchema),
  jobs: z.optional(z.array(JobSchema)),
  payload: z.optional(JsonObjectSchema),
  tags: z.optional(z.array(z.string())),
  controls: z.optional(JsonObjectSchema),
  to: z.optional(z.unknown()),
  topics: z.optional(
    z.array(z.looseObject({ _topicId: z.optional(z.string()), topicKey: z.optional(z.string()) })),
  ),
  severity: z.optional(SeveritySchema),
  critical: z.optional(z.boolean()),
})
export type Notification = z.infer<typeof NotificationSchema>
