import { ApiPromise } from '../../core/api-promise.js'
import { namingSentEvent } from '../../core/errors.js'
import type { BulkTriggerOptions, RequestOptions, TriggerStreamOptions } from '../../core/options.js'
import type { Operation } from '../../internal/pipeline/operation.js'
import type { RequestCore } from '../../internal/pipeline/request-core.js'
import type { TriggerResult } from '../../schemas/events.js'
import { triggerInChunks } from './bulk.js'
import { collectEvents, type EventIterable } from './event-source.js'
import {
  cancelEvent,
  checkedOperations,
  type EventOperations,
  uncheckedOperations,
  type WorkflowSchemaMap,
} from './operations.js'
import { type BulkChunkOutcome, streamChunks } from './stream.js'
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
   * Resolves when the server queued it; rejects with `TriggerNotSentError` when it answered that it
   * sent nothing (an inactive workflow, one without steps, an unknown tenant, …). A `transactionId`
   * the server has seen before is the exception it does not report: answered `processed`, ignored.
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
    return this.#named(this.#operations.trigger, params, options)
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
   * time (as single triggers on a rate-limit bucket too small for bulk requests, as `triggerStream`
   * does), and the results come back in input order. An event without `payload` is sent with
   * `payload: {}`, as the server fills in for a single trigger (it refuses a bulk event without).
   * Each event is checked on its own: an invalid one is not sent and the others are. An invalid
   * event, a request that still fails after its retries, or an event the server sent nothing for
   * makes the call reject with `BulkTriggerError`, which keeps the results of the events sent and
   * names every other event (position, `transactionId`, `to`) with why.
   * Any iterable or async iterable is read whole first, since every result is returned; for sends
   * too large to hold, use `triggerStream`.
   * With a typed client, events built before the call need a type (`TriggerEventOf<typeof client,
   * 'weekly-digest'>[]`, or the generator's yield type): without one, TypeScript widens each `name`
   * to `string`. A wrong event of a list written in the call is reported at that event.
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
    // An array apart from the other iterables: TypeScript checks a list written in the call against
    // an array type element by element and reports a wrong event at that event, where against
    // `Iterable` alone it reports the whole list at the call. One signature, not overloads: with two,
    // a wrong event is reported as "No overload matches this call", at the method's name.
    events: readonly CheckedTrigger<W, Name>[] | EventIterable<CheckedTrigger<W, Name>>,
    options?: BulkTriggerOptions,
  ): ApiPromise<TriggerResult[]> {
    const operations = this.#operations
    // Read whole first, then one call for the hooks whose requests are its parts.
    return new ApiPromise(
      collectEvents(events).then((list) =>
        this.#core.batch(operations.bulk, (core) => triggerInChunks(core, operations, list, options)),
      ),
    )
  }

  /**
   * Sends the events of any iterable or async iterable (a database cursor, a generator) in
   * requests of at most 100, `concurrency` at a time, and yields one outcome per request in the
   * order of the source: its `results`, or the `error` it failed with (the stream goes on). Each
   * event is checked on its own and sent with `payload: {}` when it has none: a request with events
   * not sent (invalid ones, left out of it, or ones the server sent nothing for) fails with a
   * `BulkTriggerError` naming each by its position in the source, `transactionId` and `to`. The
   * source is read only as requests go out, so memory does not grow with its length. Request _i_ is
   * sent with the key `<idempotencyKey>:<i>`: after a crash, run it again with the same key and
   * source, and `startAtChunk` past the last outcome you recorded. On a rate-limit bucket too small
   * for bulk requests (the free plan), a request's events go as single triggers: the first under its
   * key, the others under `<idempotencyKey>:<i>:<k>`; so does a call's first request, sent before any
   * answer describes the bucket, if the server refuses it for the rate to the end.
   *
   * @example
   * ```ts
   * for await (const outcome of client.events.triggerStream(usersCursor(), { idempotencyKey: 'digest-2026-W47' })) {
   *   if (outcome.error) console.error(`events ${outcome.offset}+${outcome.count}:`, outcome.error.message)
   *   else await saveProgress(outcome.chunkIndex)
   * }
   * ```
   * @typeParam Name As for `triggerBulk`: a generator of a typed client's events declares their
   * type (`AsyncGenerator<TriggerEventOf<typeof client, 'weekly-digest'>>`).
   */
  triggerStream<Name extends string>(
    source: EventIterable<CheckedTrigger<W, Name>>,
    options?: TriggerStreamOptions,
  ): AsyncIterableIterator<BulkChunkOutcome> {
    // Each request its own call for the hooks: a stream may last hours, and a span that long, with
    // a part per 100 events, would end only when the consumer does.
    return streamChunks(this.#core, this.#operations, source, options)
  }

  /**
   * Triggers a workflow for every subscriber of the environment, for announcements. Rejects with
   * `TriggerNotSentError`, as `trigger` does, when the server answered that it sent nothing.
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
    return this.#named(this.#operations.broadcast, params, options)
  }

  /** A trigger or broadcast whose `TriggerNotSentError` names the event by its `transactionId` and `to`. */
  #named<Body>(
    operation: Operation<Body, TriggerResult>,
    event: unknown,
    options: RequestOptions | undefined,
  ): ApiPromise<TriggerResult> {
    return new ApiPromise(
      this.#core.execute(operation, { body: event }, options).catch((error: unknown) => {
        throw namingSentEvent(error, event)
      }),
    )
  }
}
