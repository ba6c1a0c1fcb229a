import { type NotifyKitError, RequestValidationError } from '../../core/errors.js'
import { callerAbortError } from '../../internal/abort.js'
import { deadlineError } from '../../internal/deadline.js'
import { checkIdempotencyKey, normalizeHeaders } from '../../internal/headers.js'
import { checkStreamOptions } from '../../internal/option-schemas.js'
import { orderedPool } from '../../internal/ordered-pool.js'
import type { RequestCore } from '../../internal/request.js'
import { MAX_EVENTS_PER_BULK_REQUEST, type TriggerResult } from '../../schemas/events.js'
import { type BulkTriggerOptions, DEFAULT_CONCURRENCY } from './bulk.js'
import { sendChunkRequest } from './chunk-request.js'
import { eventIssues } from './event-issues.js'
import { type EventChunk, isEventIterable, readChunks } from './event-source.js'
import type { EventOperations } from './operations.js'

/** Options of `triggerStream`: those of `triggerBulk` but progress, which the outcomes are. */
export interface TriggerStreamOptions extends Omit<BulkTriggerOptions, 'onProgress'> {
  /**
   * Chunks of the source (100 events each) to read past without sending, to resume a send that
   * stopped: pass the `chunkIndex` after the last outcome you recorded, with the same
   * `idempotencyKey` and the same source. Default 0.
   * @example `client.events.triggerStream(events(), { idempotencyKey: job.id, startAtChunk: saved.chunkIndex + 1 })`
   */
  startAtChunk?: number
}

/** What the stream says of every request, in the order of the source. */
interface BulkChunkPosition {
  /** The request's position: events `chunkIndex * 100` onwards of the source. */
  chunkIndex: number
  /** Position in the source of the request's first event. */
  offset: number
  /** Events the request carried (100, or fewer for the last). */
  count: number
  /** The key the request was sent with, `<idempotencyKey>:<chunkIndex>`. */
  idempotencyKey: string
}

/** A request the server applied: one result per event, in the order of the events. */
export interface BulkChunkApplied extends BulkChunkPosition {
  results: TriggerResult[]
  error?: undefined
}

/**
 * A request that failed after its retries, or was not sent: one of its events is invalid
 * (`RequestValidationError`, paths starting with the event's position in the source), or the
 * deadline had passed. Sending the same events again under the same key is safe.
 */
export interface BulkChunkFailed extends BulkChunkPosition {
  error: NotifyKitError
  results?: undefined
}

/** One outcome of `triggerStream` per request of at most 100 events. */
export type BulkChunkOutcome = BulkChunkApplied | BulkChunkFailed

/**
 * Sends the events of `source` in requests of at most 100, `concurrency` at a time, and yields one
 * outcome per request in the order of the source. Checks the options and the key before reading
 * the source; each chunk's events are checked before that chunk is sent.
 * @internal
 */
export function streamChunks(
  core: RequestCore,
  operations: EventOperations,
  source: unknown,
  options: TriggerStreamOptions = {},
): AsyncGenerator<BulkChunkOutcome, void, undefined> {
  if (!isEventIterable(source)) {
    throw new RequestValidationError(
      [{ path: [], message: 'Must be an iterable or async iterable of events' }],
      'Invalid events.triggerStream request',
    )
  }
  checkStreamOptions(options)
  const { concurrency = DEFAULT_CONCURRENCY, startAtChunk = 0, ...requestOptions } = options
  normalizeHeaders(requestOptions.headers, 'headers')
  const { idempotencyKey: key, signal, deadlineMs } = requestOptions
  const baseKey = key === undefined ? globalThis.crypto.randomUUID() : checkIdempotencyKey(key)
  const deadline = deadlineMs === undefined ? undefined : Date.now() + deadlineMs
  const { method } = operations.bulk
  const path = operations.bulk.path.template

  const send = async ({ chunkIndex, offset, events }: EventChunk): Promise<BulkChunkOutcome> => {
    const position = { chunkIndex, offset, count: events.length, idempotencyKey: `${baseKey}:${chunkIndex}` }
    const issues = eventIssues(operations, events, offset)
    if (issues.length > 0) {
      const error = new RequestValidationError(issues, 'Invalid events.triggerStream request')
      return { ...position, error: error.withContext({ method, path, attempts: 0 }) }
    }
    const sent = await sendChunkRequest(
      core,
      operations,
      events,
      { ...requestOptions, idempotencyKey: position.idempotencyKey },
      deadline,
    )
    return sent.response ? { ...position, results: sent.response.data } : { ...position, error: sent.error }
  }

  // Past an abort or the deadline, every further chunk would fail unsent: the stream ends instead
  // of reading the rest of the source to say so.
  const stopReason = () => {
    if (signal?.aborted) return callerAbortError(signal)
    if (deadline !== undefined && Date.now() >= deadline) return deadlineError(deadlineMs, { notSent: true })
    return undefined
  }
  return orderedPool(
    readChunks(source, MAX_EVENTS_PER_BULK_REQUEST, startAtChunk),
    concurrency,
    send,
    stopReason,
  )
}
