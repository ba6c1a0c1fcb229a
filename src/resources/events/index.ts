import { ApiPromise } from '../../core/api-promise.js'
import type { RequestOptions } from '../../core/options.js'
import type { RequestCore } from '../../internal/request.js'
import type { TriggerResult } from '../../schemas/events.js'
import { type BulkTriggerOptions, triggerInChunks } from './bulk.js'
import {
  cancelEvent,
  checkedOperations,
  type EventOperations,
  uncheckedOperations,
  type WorkflowSchemaMap,
} from './operations.js'
import type { CheckedBroadcast, CheckedTrigger, WorkflowPayloads } from './workflows.js'

/** Triggering workflows: one event, many, a broadcast; and cancelling them. */
export class Events<W extends object = WorkflowPayloads> {
  readonly #core: RequestCore
  readonly #operations: EventOperations

  /** @internal */
  constructor(core: RequestCore, workflowSchemas?: WorkflowSchemaMap) {
    this.#core = core
    this.#operations =
      workflowSchemas === undefined ? uncheckedOperations : checkedOperations(workflowSchemas)
  }

  /**
   * Triggers a workflow for one or more recipients (`POST /v1/events/trigger`). Safe to retry: the same
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
   * @typeParam Name The workflow name as the compiler sees it, inferred: a wrong payload is then
   * reported against that workflow's payload type alone.
   */
  trigger<Name extends string>(
    params: CheckedTrigger<W, Name>,
    options?: RequestOptions,
  ): ApiPromise<TriggerResult> {
    return this.#core.request(this.#operations.trigger, { body: params }, options)
  }

  /**
   * Cancels the pending work (digests, delays) of a trigger. Resolves to `true` when something was
   * cancelled and `false` when nothing cancellable was found (`DELETE /v1/events/trigger/{transactionId}`).
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
   * With a typed client, a list built before the call needs a type (`TriggerEventOf<typeof client,
   * 'weekly-digest'>[]`): without one, TypeScript widens each `name` to `string`.
   *
   * @example
   * ```ts
   * const results = await client.events.triggerBulk(
   *   users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { week: '2026-W47' } })),
   *   { idempotencyKey: 'digest-2026-W47', onProgress: ({ sent, total }) => console.log(`${sent}/${total}`) },
   * )
   * ```
   */
  triggerBulk<Name extends string>(
    events: readonly CheckedTrigger<W, Name>[],
    options?: BulkTriggerOptions,
  ): ApiPromise<TriggerResult[]> {
    const operations = this.#operations
    return new ApiPromise(
      this.#core.batch(operations.bulk, (core) => triggerInChunks(core, operations, events, options)),
    )
  }

  /**
   * Triggers a workflow for every subscriber of the environment, for announcements.
   *
   * @example
   * ```ts
   * await client.events.broadcast({ name: 'maintenance', payload: { startsAt: '2026-12-01T22:00:00Z' } })
   * ```
   */
  broadcast<Name extends string>(
    params: CheckedBroadcast<W, Name>,
    options?: RequestOptions,
  ): ApiPromise<TriggerResult> {
    return this.#core.request(this.#operations.broadcast, { body: params }, options)
  }
}
