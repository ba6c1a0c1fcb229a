import type { WithResponse } from '../../core/api-promise.js'
import {
  type BulkChunkFailure,
  BulkTriggerError,
  type NotifyKitError,
  RequestValidationError,
  ResponseValidationError,
  type ValidationIssue,
  withCallContext,
} from '../../core/errors.js'
import type { TriggerStreamOptions } from '../../core/options.js'
import { checkIdempotencyKey, normalizeHeaders } from '../../internal/http/headers.js'
import type { Executor } from '../../internal/pipeline/request-core.js'
import { deadlineError } from '../../internal/pipeline/waits.js'
import { callerAbortError } from '../../internal/transport/attempt.js'
import { checkExtraFields } from '../../internal/validation/extra-fields.js'
import { checkStreamOptions } from '../../internal/validation/option-schemas.js'
import { MAX_EVENTS_PER_BULK_REQUEST, type TriggerResult } from '../../schemas/events.js'
import { isEventIterable } from './event-source.js'
import { type EventOperations, eventIssues, triggerVerdict } from './operations.js'
import { sendInOrder } from './send-in-order.js'

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

/** A request the server applied and sent every event of: one result per event, in their order. */
export interface BulkChunkApplied extends BulkChunkPosition {
  results: TriggerResult[]
  error?: undefined
}

/**
 * A request that failed after its retries, or was not sent: one of its events is invalid
 * (`RequestValidationError`, paths starting with the event's position in the source), or the
 * deadline had passed. Sending the same events again under the same key is safe.
 *
 * Or a request the server applied that has events it sent nothing for: `error` is then a
 * `BulkTriggerError` whose `results` are this request's (`results[j]` for event `offset + j`, left
 * `undefined` for an event not sent) and whose `failures` name each event not sent by its position
 * in the source, with a `TriggerNotSentError`. The same key replays those answers: fix the cause
 * and send those events again under a new key.
 */
export interface BulkChunkFailed extends BulkChunkPosition {
  error: NotifyKitError
  results?: undefined
}

/** One outcome of `triggerStream` per request of at most 100 events. */
export type BulkChunkOutcome = BulkChunkApplied | BulkChunkFailed

/** An outcome as `triggerBulk` reads it: with the response, for its attempts and headers. */
export type SentChunk = BulkChunkOutcome & { response?: WithResponse<TriggerResult[]> }

/**
 * Sends the events of `source` in requests of at most 100, `concurrency` at a time, and yields one
 * outcome per request in the order of the source. Checks the options and the key before reading
 * the source; each chunk's events are checked before that chunk is sent. `triggerBulk` passes its
 * `bulkKey`: its events were all checked and its key made already, its outcomes carry their
 * response, and nothing ends its send early (every chunk gets an outcome, unsent ones failing).
 * @internal
 */
export function streamChunks(
  core: Executor,
  operations: EventOperations,
  source: unknown,
  options: TriggerStreamOptions = {},
  bulkKey?: string,
): AsyncGenerator<SentChunk, void, undefined> {
  const { method } = operations.bulk
  const path = operations.bulk.path.template
  const invalid = (issues: ValidationIssue[]) =>
    withCallContext(new RequestValidationError(issues, 'Invalid events.triggerStream request'), {
      method,
      path,
    })
  if (!isEventIterable(source)) throw invalid([{ path: [], message: 'Must be an iterable of events' }])
  // Concurrency 2 by default: bulk requests cost 100 rate-limit units each.
  const { concurrency = 2, startAtChunk = 0, ...requestOptions } = options
  const { idempotencyKey: key, signal, deadlineMs } = requestOptions
  let baseKey: string
  // Whatever would make the request core refuse every chunk alike fails here, before the first
  // request. A chunk the core still refuses is then a failed chunk like any other.
  try {
    // triggerBulk checked its own options (it has no `startAtChunk`) and made its key already.
    if (!bulkKey) checkStreamOptions(options)
    normalizeHeaders(requestOptions.headers, 'headers')
    if (requestOptions.extraFields !== undefined) {
      checkExtraFields(requestOptions.extraFields, operations.bulk.extraFields)
    }
    baseKey = bulkKey ?? (key === undefined ? globalThis.crypto.randomUUID() : checkIdempotencyKey(key))
  } catch (error) {
    // Each check throws a RequestValidationError; nothing was sent, so no key is reported.
    throw withCallContext(error as NotifyKitError, { method, path })
  }
  const deadline = deadlineMs === undefined ? undefined : Date.now() + deadlineMs

  // Past an abort or the deadline, every further chunk would fail unsent: the stream ends instead
  // of reading the rest of the source to say so.
  const beforeChunk = () => {
    if (bulkKey) return
    if (signal?.aborted) throw callerAbortError(signal)
    if (deadline !== undefined && Date.now() >= deadline) throw deadlineError(deadlineMs, { notSent: true })
  }
  const send = async (offset: number, events: unknown[]): Promise<SentChunk> => {
    const chunkIndex = offset / MAX_EVENTS_PER_BULK_REQUEST
    const idempotencyKey = `${baseKey}:${chunkIndex}`
    const position = { chunkIndex, offset, count: events.length, idempotencyKey }
    const call = { method, path, idempotencyKey }
    try {
      const issues = bulkKey ? [] : eventIssues(operations, events, offset)
      if (issues.length > 0) throw invalid(issues)
      const remainingMs = deadline === undefined ? undefined : deadline - Date.now()
      // A chunk whose turn comes after the deadline is not sent at all, rather than sent with a
      // timeout too short to read the answer of a request the server may still carry out.
      if (remainingMs !== undefined && remainingMs <= 0) {
        throw withCallContext(deadlineError(deadlineMs, { notSent: true }), { ...call, attempts: 0 })
      }
      const response = await core.execute(
        operations.bulk,
        { body: { events } },
        { ...requestOptions, idempotencyKey, deadlineMs: remainingMs },
      )
      const { data, response: answer } = response
      // The results are matched to events by position, so a response that does not hold exactly
      // one result per event cannot confirm any of them: the chunk fails, and sending it again
      // with the same key is safe.
      const found: unknown = data
      if (!Array.isArray(found) || found.length !== position.count) {
        throw withCallContext(
          new ResponseValidationError(
            `events.triggerBulk: the ${answer.status} response holds ${Array.isArray(found) ? found.length : 'no list of'} results for ${position.count} events`,
            answer.status,
            JSON.stringify(found) ?? '',
          ),
          { ...call, attempts: answer.attempts },
        )
      }
      const notSent = notSentIn(data, position, { ...call, attempts: answer.attempts })
      const outcome: BulkChunkOutcome = notSent
        ? { ...position, error: notSent }
        : { ...position, results: data }
      return bulkKey ? { ...outcome, response } : outcome
    } catch (error) {
      // The request core turns every failure into a NotifyKitError carrying its call context.
      return { ...position, error: error as NotifyKitError }
    }
  }
  return sendInOrder(source, startAtChunk, concurrency, beforeChunk, send)
}

/**
 * The events of an applied request that the server sent nothing for, as one error that keeps the
 * results of the others; `undefined` when every event was sent.
 */
function notSentIn(
  results: TriggerResult[],
  { chunkIndex, offset }: BulkChunkPosition,
  call: { method: string; path: string; idempotencyKey: string; attempts: number },
): BulkTriggerError | undefined {
  const failures: BulkChunkFailure[] = []
  const sent = results.map((result, j) => {
    const notSent = triggerVerdict(result, `event ${offset + j}`)?.notSent
    if (!notSent) return result
    failures.push({ chunkIndex, eventIndexes: [offset + j], error: withCallContext(notSent, call) })
    return undefined
  })
  return failures.length > 0 ? withCallContext(new BulkTriggerError(sent, failures), call) : undefined
}
