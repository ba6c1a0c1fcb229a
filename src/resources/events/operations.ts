import { TriggerNotSentError, type ValidationIssue } from '../../core/errors.js'
import { defineOperation, type Operation, type SendVerdict } from '../../internal/pipeline/operation.js'
import { failureOf, issuesOf } from '../../internal/validation/parse.js'
import type { StandardSchemaV1 } from '../../internal/validation/standard-schema.js'
import {
  type BroadcastEventRequest,
  BroadcastEventRequestSchema,
  type BulkTriggerEventRequest,
  BulkTriggerEventRequestSchema,
  BulkTriggerResultSchema,
  CancelEventResultSchema,
  TRIGGER_NOT_SENT_STATUSES,
  type TriggerEventRequest,
  TriggerEventRequestSchema,
  type TriggerResult,
  TriggerResultSchema,
} from '../../schemas/events.js'
import { withPayloadCheck } from './workflows.js'

const triggerEvent = defineOperation({
  name: 'events.trigger',
  method: 'POST',
  path: '/v1/events/trigger',
  body: TriggerEventRequestSchema,
  extraFields: { into: 'body', schema: TriggerEventRequestSchema },
  result: TriggerResultSchema,
  resultKind: 'object',
  rateLimitCost: 1,
  verdict: (result) => triggerVerdict(result, 'the trigger'),
})

export const cancelEvent = defineOperation({
  name: 'events.cancel',
  method: 'DELETE',
  path: '/v1/events/trigger/{transactionId}',
  result: CancelEventResultSchema,
  resultKind: 'boolean',
})

const bulkTriggerEvents = defineOperation({
  name: 'events.triggerBulk',
  method: 'POST',
  path: '/v1/events/trigger/bulk',
  body: BulkTriggerEventRequestSchema,
  extraFields: { into: 'events', schema: TriggerEventRequestSchema },
  result: BulkTriggerResultSchema,
  resultKind: 'array',
  rateLimitCost: 100,
  // Events not sent are failures at their own positions, which the bulk call and the stream name
  // (`notSentIn`); the request warns of a new status once, as a trigger does.
  verdict: (results) => (Array.isArray(results) ? firstUnknownStatus(results) : undefined),
})

const broadcastEvent = defineOperation({
  name: 'events.broadcast',
  method: 'POST',
  path: '/v1/events/trigger/broadcast',
  body: BroadcastEventRequestSchema,
  extraFields: { into: 'body', schema: BroadcastEventRequestSchema },
  result: TriggerResultSchema,
  resultKind: 'object',
  rateLimitCost: 100,
  verdict: (result) => triggerVerdict(result, 'the broadcast'),
})

const NOT_SENT: ReadonlySet<unknown> = new Set(TRIGGER_NOT_SENT_STATUSES)

/**
 * A trigger's result read for what the server did: `processed` is sent; a status that says nothing
 * was sent is a `TriggerNotSentError`; any other value (a status added after this version, or none
 * in a drifted answer) is returned as sent, since reading it as not sent would invite a duplicate.
 * @internal
 */
export function triggerVerdict(result: TriggerResult, what: string): SendVerdict | undefined {
  const status = statusOf(result)
  if (NOT_SENT.has(status)) return { notSent: new TriggerNotSentError(result, what) }
  return unknownStatus(status)
}

/**
 * A trigger's result read as a bulk answer's are: only a status this version does not know is a
 * verdict (a warning); a status that says nothing was sent is left to the caller, which names the event.
 * @internal
 */
export function eventVerdict(result: TriggerResult): SendVerdict | undefined {
  return unknownStatus(statusOf(result))
}

function firstUnknownStatus(results: readonly TriggerResult[]): SendVerdict | undefined {
  for (const result of results) {
    const verdict = unknownStatus(statusOf(result))
    if (verdict) return verdict
  }
  return undefined
}

/** Read as received: a drifted answer may hold no object, or no status. */
function statusOf(result: TriggerResult): unknown {
  return (result as Partial<TriggerResult> | null)?.status
}

/** A status this version does not know; no status at all is drift, which the response reader reports. */
function unknownStatus(status: unknown): SendVerdict | undefined {
  return typeof status === 'string' && status !== 'processed' && !NOT_SENT.has(status)
    ? { unknownStatus: status }
    : undefined
}

/** The `workflows` client option: payload schemas (Standard Schema v1) by workflow name. */
export type WorkflowSchemaMap = Readonly<Record<string, StandardSchemaV1 | undefined>>

/** The operations that carry payloads, as this client checks them. @internal */
export interface EventOperations {
  trigger: Operation<TriggerEventRequest, TriggerResult>
  bulk: Operation<BulkTriggerEventRequest, TriggerResult[]>
  broadcast: Operation<BroadcastEventRequest, TriggerResult>
}

export const uncheckedOperations: EventOperations = {
  trigger: triggerEvent,
  bulk: bulkTriggerEvents,
  broadcast: broadcastEvent,
}

export function checkedOperations(workflows: WorkflowSchemaMap): EventOperations {
  const schemas = copySchemas(workflows)
  return {
    trigger: withPayloadCheck(triggerEvent, schemas, (event) => [{ event, path: [] }]),
    bulk: withPayloadCheck(bulkTriggerEvents, schemas, (body) =>
      body.events.map((event, index) => ({ event, path: ['events', index] })),
    ),
    broadcast: withPayloadCheck(broadcastEvent, schemas, (event) => [{ event, path: [] }]),
  }
}

/**
 * Copies the `workflows` option (checked with the other client options) at construction: a map
 * changed later by the caller does not change what this client checks.
 */
function copySchemas(workflows: WorkflowSchemaMap): Readonly<Record<string, StandardSchemaV1>> {
  // fromEntries defines properties, so a workflow named `__proto__` stays a workflow.
  return Object.fromEntries(
    Object.entries(workflows).filter((entry): entry is [string, StandardSchemaV1] => entry[1] !== undefined),
  )
}

/**
 * The problems of one event as a single trigger would be refused for them, each path starting with
 * the event's position in the caller's list or source.
 * @internal
 */
export function eventIssues(operations: EventOperations, event: unknown, index: number): ValidationIssue[] {
  const schema = operations.trigger.body
  const failure = schema && failureOf(schema, event)
  return failure ? issuesOf(failure, [index], schema) : []
}
