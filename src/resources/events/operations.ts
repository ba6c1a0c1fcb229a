import type { z } from 'zod'
import { NotifyKitError } from '../../core/errors.js'
import { defineOperation, type Operation } from '../../internal/operation.js'
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
  result: TriggerResultSchema,
})

export const cancelEvent = defineOperation({
  name: 'events.cancel',
  method: 'DELETE',
  path: '/v1/events/trigger/{transactionId}',
  result: CancelEventResultSchema,
})

const bulkTriggerEvents = defineOperation({
  name: 'events.triggerBulk',
  method: 'POST',
  path: '/v1/events/trigger/bulk',
  body: BulkTriggerEventRequestSchema,
  result: BulkTriggerResultSchema,
})

const broadcastEvent = defineOperation({
  name: 'events.broadcast',
  method: 'POST',
  path: '/v1/events/trigger/broadcast',
  body: BroadcastEventRequestSchema,
  result: TriggerResultSchema,
})

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

export function checkedOperations(workflows: unknown): EventOperations {
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
 * Checks the `workflows` option once, at construction, and copies it: a map changed later by the
 * caller does not change what this client checks.
 */
function copySchemas(workflows: unknown): Readonly<Record<string, z.ZodType>> {
  if (workflows === null || typeof workflows !== 'object' || Array.isArray(workflows)) {
    throw new NotifyKitError('The workflows option must map workflow names to zod schemas')
  }
  const entries = Object.entries(workflows).filter(([, schema]) => schema !== undefined)
  for (const [name, schema] of entries) {
    if (typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') {
      throw new NotifyKitError(`workflows[${JSON.stringify(name)}] must be a zod schema`)
    }
  }
  // fromEntries defines properties, so a workflow named `__proto__` stays a workflow.
  return Object.fromEntries(entries) as Record<string, z.ZodType>
}
