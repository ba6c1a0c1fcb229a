import type { WithResponse } from '../../core/api-promise.js'
import {
  type BulkChunkFailure,
  BulkTriggerError,
  failedEvent,
  type NotifyKitError,
  RequestValidationError,
  withCallContext,
} from '../../core/errors.js'
import type { BulkProgress, BulkTriggerOptions } from '../../core/options.js'
import {
  checkIdempotencyKey,
  invalidRequestOptions,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../../internal/http/headers.js'
import type { Executor } from '../../internal/pipeline/request-core.js'
import { checkBulkOptions } from '../../internal/validation/option-schemas.js'
import { MAX_EVENTS_PER_BULK_REQUEST, type TriggerResult } from '../../schemas/events.js'
import type { EventOperations } from './operations.js'
import { streamChunks } from './stream.js'

/**
 * Splits events into requests of at most 100 and sends them with bounded concurrency. Each request
 * has its own idempotency key, `<key>:<chunk index>`, so a second call with the same key and events
 * sends again only what did not finish: the server replays the rest.
 * @internal
 */
export async function triggerInChunks(
  core: Executor,
  operations: EventOperations,
  events: readonly unknown[],
  options: BulkTriggerOptions = {},
): Promise<WithResponse<TriggerResult[]>> {
  const { onProgress, ...sendOptions } = options
  const { method } = operations.bulk
  const path = operations.bulk.path.template
  let baseKey: string
  // Whatever would make the request core refuse every chunk alike fails here, before the first
  // request: an empty list, the options and the key here, the headers as the chunks are read. An
  // invalid event, or a chunk the core still refuses, is then a failure like any other, and every
  // event stays accounted for.
  try {
    checkEvents(events)
    checkBulkOptions(options)
    baseKey = chunkKeyBase(options.idempotencyKey, Math.ceil(events.length / MAX_EVENTS_PER_BULK_REQUEST))
  } catch (error) {
    // Each check throws a RequestValidationError; nothing was sent, so no key is reported.
    throw withCallContext(error as NotifyKitError, { method, path })
  }
  const results: (TriggerResult | undefined)[] = events.map(() => undefined)
  const failures: BulkChunkFailure[] = []
  const progress: BulkProgress = { sent: 0, failed: 0, total: events.length }
  let last: WithResponse<TriggerResult[]> | undefined
  let attempts = 0

  for await (const outcome of streamChunks(core, operations, events, sendOptions, baseKey)) {
    const { chunkIndex, offset, count, chunk, response, error } = outcome
    if (response) last = response
    if (!chunk && error) {
      // A chunk that failed in a way the stream did not foresee: every event of it unconfirmed.
      const at = Array.from({ length: count }, (_, j) => offset + j)
      const named = at.map((index) => failedEvent(events[index], index))
      failures.push({ chunkIndex, eventIndexes: at, events: named, error })
      progress.failed += count
    } else if (chunk) {
      attempts += chunk.attempts
      results.splice(offset, count, ...chunk.results)
      failures.push(...chunk.failures)
      const failed = chunk.failures.reduce((sum, failure) => sum + failure.eventIndexes.length, 0)
      progress.sent += count - failed
      progress.failed += failed
    }
    try {
      onProgress?.({ ...progress })
    } catch {
      // A broken progress callback must not lose the results of requests that were sent.
    }
  }

  if (failures.length > 0 || !last) {
    throw withCallContext(new BulkTriggerError(results, failures), {
      method,
      path,
      idempotencyKey: baseKey,
      attempts,
    })
  }
  return {
    data: results as TriggerResult[],
    response: { ...last.response, idempotencyKey: baseKey, attempts },
  }
}

/** The caller's key (checked here, so a bad key fails before anything is sent) or a new one. */
function chunkKeyBase(key: string | undefined, chunkCount: number): string {
  if (key === undefined) return globalThis.crypto.randomUUID()
  checkIdempotencyKey(key)
  const longest = `${key}:${chunkCount - 1}`
  if (longest.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw invalidRequestOptions([
      {
        path: ['idempotencyKey'],
        message: `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH - (longest.length - key.length)} characters: the last request's key, \`${longest}\`, must stay within ${MAX_IDEMPOTENCY_KEY_LENGTH}`,
      },
    ])
  }
  return key
}

/**
 * An empty list is refused whole. Each event is checked on its own as its chunk goes out: an invalid
 * one is a failure of its own, and the others are sent.
 */
function checkEvents(events: readonly unknown[]): void {
  if (events.length === 0) {
    throw new RequestValidationError(
      [{ path: [], message: 'Must be a list of at least one event' }],
      'Invalid events.triggerBulk request',
    )
  }
}
