import type { ValidationIssue } from '../../core/errors.js'
import { defineOperation, type Operation } from '../../internal/pipeline/operation.js'
import { failureOf, issuesOf } from '../../internal/validation/parse.js'
import type { StandardSchemaV1 } from '../../internal/validation/standard-schema.js'
import {
  type BroadcastEventRequest,
  BroadcastEventRequestSchema,
  type BulkTriggerEventRequest,
  BulkTriggerEventRequestSchema,
  BulkTriggerResultSchema,
  CancelEventResultSchema,
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
})

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
 * The problems of each event as a single trigger would be refused for them, each path starting
 * with the event's position in the caller's source (`firstIndex` is that of `events[0]`).
 * @internal
 */
export function eventIssues(
  operations: EventOperations,
  events: readonly unknown[],
  firstIndex: number,
): ValidationIssue[] {
  const schema = operations.trigger.body
  if (!schema) return []
  const issues: ValidationIssue[] = []
  events.forEach((event, offset) => {
    const failure = failureOf(schema, event)
    if (failure) issues.push(...issuesOf(failure, [firstIndex + offset], schema))
  })
  return issues
}
