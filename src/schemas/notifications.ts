import * as z from 'zod/mini'
import {
  looseObject,
  nullishString,
  optionalBoolean,
  optionalNumber,
  optionalString,
  optionalStringArray,
} from './fields.js'
import { ChannelNameSchema, JsonObjectSchema, openEnum } from './shared.js'

/** Shared by every optional object field of this module's tables (see fields.ts). */
const optionalJsonObject = z.optional(JsonObjectSchema)

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
export const FilterSchema = looseObject({
  isNegated: optionalBoolean,
  type: z.optional(openEnum(['BOOLEAN'])),
  value: z.optional(openEnum(['AND', 'OR'])),
  children: z.optional(
    z.array(
      looseObject({
        field: optionalString,
        value: optionalString,
        operator: z.optional(openEnum(['LARGER', 'SMALLER', 'EQUAL', 'NOT_EQUAL'])),
        on: z.optional(openEnum(['subscriber', 'payload'])),
      }),
    ),
  ),
})
export type Filter = z.infer<typeof FilterSchema>

/** api.md 2.6, step object; `variants` holds steps of the same shape. */
export const StepSchema = looseObject({
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
})
export type Step = z.infer<typeof StepSchema>

export const DigestUnitSchema = openEnum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months'])

/** api.md 2.6, timed digest object. */
export const TimedDigestSchema = looseObject({
  atTime: optionalString,
  weekDays: optionalStringArray,
  monthDays: z.optional(z.array(z.number())),
  ordinal: optionalString,
  ordinalValue: optionalString,
  monthlyType: z.optional(openEnum(['each', 'on'])),
  cronExpression: optionalString,
})
export type TimedDigest = z.infer<typeof TimedDigestSchema>

/** api.md 2.6, digest object. */
export const DigestSchema = looseObject({
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
})
export type Digest = z.infer<typeof DigestSchema>

/** api.md 2.6, execution detail. */
export const ExecutionDetailSchema = looseObject({
  _id: optionalString,
  createdAt: optionalString,
  status: z.optional(openEnum(['Success', 'Warning', 'Failed', 'Pending', 'Queued', 'ReadConfirmation'])),
  detail: optionalString,
  isRetry: optionalBoolean,
  isTest: optionalBoolean,
  providerId: optionalString,
  raw: nullishString,
  source: z.optional(openEnum(['Credentials', 'Internal', 'Payload', 'Webhook'])),
})
export type ExecutionDetail = z.infer<typeof ExecutionDetailSchema>

/** api.md 2.6, job object. */
export const JobSchema = looseObject({
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
})
export type Job = z.infer<typeof JobSchema>

/** api.md 2.6, `template`. */
export const NotificationTemplateSchema = looseObject({
  _id: optionalString,
  name: optionalString,
  origin: z.optional(openEnum(['novu-cloud', 'novu-cloud-v1', 'external'])),
  triggers: z.optional(
    z.array(
      looseObject({
        type: z.optional(openEnum(['event'])),
        identifier: optionalString,
        variables: z.optional(z.array(looseObject({ name: z.string() }))),
        subscriberVariables: z.optional(z.array(looseObject({ name: z.string() }))),
      }),
    ),
  ),
})
export type NotificationTemplate = z.infer<typeof NotificationTemplateSchema>

/** api.md 2.6, the notification: the record of one trigger for one subscriber. */
export const NotificationSchema = looseObject({
  _id: z.string(),
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
    looseObject({
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
  topics: z.optional(z.array(looseObject({ _topicId: optionalString, topicKey: optionalString }))),
  severity: z.optional(SeveritySchema),
  critical: optionalBoolean,
})
export type Notification = z.infer<typeof NotificationSchema>
