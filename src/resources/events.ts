import type { z } from 'zod'
import { ApiPromise } from '../core/api-promise.js'
import { NotifyKitError } from '../core/errors.js'
import { defineOperation, type Operation } from '../core/operation.js'
import type { RequestOptions } from '../core/options.js'
import type { RequestCore } from '../core/request.js'
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
} from '../schemas/events.js'
import { type BulkTriggerOptions, triggerInChunks } from './bulk.js'
import {
  type BroadcastEventParams,
  type TriggerEventParams,
  type WorkflowPayloads,
  withPayloadCheck,
} from './workflows.js'

const triggerEvent = defineOperation({
  name: 'events.trigger',
  method: 'POST',
  path: '/v1/events/trigger',
  body: TriggerEventRequestSchema,
  result: TriggerResultSchema,
})

const cancelEvent = defineOperation({
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

const uncheckedOperations: EventOperations = {
  trigger: triggerEvent,
  bulk: bulkTriggerEvents,
  broadcast: broadcastEvent,
}

function checkedOperations(workflows: unknown): EventOperations {
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

/** Triggering workflows: one event, many, a broadcast; and cancelling them. */
export class Events<W extends object = WorkflowPayloads> {
  readonly #core: RequestCore
  readonly #operations: EventOperations

  /** @internal */
  constructor(core: RequestCore, workflowSchemas?: unknown) {
    this.#core = core
    this.#operations =
      workflowSchemas === undefined ? uncheckedOperations : checkedOperations(workflowSchemas)
  }

  /**
   * Triggers a workflow for one or more recipients (api.md 4.3). Safe to retry: the same
   * idempotency key goes out on every attempt; pass your own to make re-runs of a job safe too.
   *
   * @example
   * ```ts
   * const result = await client.events.trigger(
   *   { name: 'order-shipped', to: { subscriberId: 'user-1', email: 'ada@example.com' }, payload: { orderId: 'o-42' } },
   *   { idempotencyKey: 'order-o-42-shipped' },
   * )
   * console.log(result.transactionId)
   * ```
   */
  trigger(params: TriggerEventParams<W>, options?: RequestOptions): ApiPromise<TriggerResult> {
    return this.#core.request(this.#operations.trigger, { body: params }, options)
  }

  /**
   * Cancels the pending work (digests, delays) of a trigger. Resolves to `true` when something was
   * cancelled and `false` when nothing cancellable was found (api.md 4.4).
   *
   * @example
   * ```ts
   * const cancelled = await client.events.cancel('tx-order-o-42')
   * ```
   */
  cancel(transactionId: string, options?: RequestOptions): ApiPromise<boolean> {
    return this.#core.request(cancelEvent, { pathParams: { transactionId } }, options)
  }

  /**
   * Triggers any number of events: they are sent in requests of at most 100, `concurrency` at a
   * time, and the results come back in input order. A request that still fails after its retries
   * makes the call reject with `BulkTriggerError`, which says exactly which events to send again.
   *
   * @example
   * ```ts
   * const results = await client.events.triggerBulk(
   *   users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { week: '2026-W47' } })),
   *   { idempotencyKey: 'digest-2026-W47', onProgress: ({ sent, total }) => console.log(`${sent}/${total}`) },
   * )
   * ```
   */
  triggerBulk(
    events: readonly TriggerEventParams<W>[],
    options?: BulkTriggerOptions,
  ): ApiPromise<TriggerResult[]> {
    return new ApiPromise(triggerInChunks(this.#core, this.#operations, events, options))
  }

  /**
   * Triggers a workflow for every subscriber of the environment, for announcements.
   *
   * @example
   * ```ts
   * await client.events.broadcast({ name: 'maintenance', payload: { startsAt: '2026-12-01T22:00:00Z' } })
   * ```
   */
  broadcast(params: BroadcastEventParams<W>, options?: RequestOptions): ApiPromise<TriggerResult> {
    return this.#core.request(this.#operations.broadcast, { body: params }, options)
  }
}
