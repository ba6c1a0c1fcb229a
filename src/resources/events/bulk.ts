import type { WithResponse } from '../../core/api-promise.js'
import { type BulkChunkFailure, BulkTriggerError, RequestValidationError } from '../../core/errors.js'
import type { RequestOptions } from '../../core/options.js'
import { checkIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH, normalizeHeaders } from '../../internal/headers.js'
import { checkBulkOptions, invalidRequestOptions } from '../../internal/option-schemas.js'
import type { RequestCore } from '../../internal/request.js'
import { MAX_EVENTS_PER_BULK_REQUEST, type TriggerResult } from '../../schemas/events.js'
import { sendChunkRequest } from './chunk-request.js'
import { eventIssues } from './event-issues.js'
import type { EventOperations } from './operations.js'

/** Progress of a `triggerBulk` call, reported after each request settles. */
export interface BulkProgress {
  /** Events whose request succeeded so far. */
  sent: number
  /** Events whose request failed after its retries. */
  failed: number
  /** Events in the call. */
  total: number
}

export interface BulkTriggerOptions extends RequestOptions {
  /**
   * Requests in flight at once. Default 2: bulk calls cost 100 rate-limit units each.
   * @example `client.events.triggerBulk(events, { concurrency: 4 })`
   */
  concurrency?: number
  /**
   * Called after each request of at most 100 events settles. An exception thrown here is ignored.
   * @example `client.events.triggerBulk(events, { onProgress: ({ sent, total }) => bar.update(sent / total) })`
   */
  onProgress?: (progress: BulkProgress) => void
}

export const DEFAULT_CONCURRENCY = 2

/**
 * Splits events into requests of at most 100 and sends them with bounded concurrency. Each request
 * has its own idempotency key, `<key>:<chunk index>`, so a second call with the same key and events
 * sends again only what did not finish: the server replays the rest.
 * @internal
 */
export async function triggerInChunks(
  core: RequestCore,
  operations: EventOperations,
  events: readonly unknown[],
  options: BulkTriggerOptions = {},
): Promise<WithResponse<TriggerResult[]>> {
  const { concurrency = DEFAULT_CONCURRENCY, onProgress, ...requestOptions } = options
  checkEvents(operations, events)
  checkBulkOptions(options)
  const chunkCount = Math.ceil(events.length / MAX_EVENTS_PER_BULK_REQUEST)
  const baseKey = chunkKeyBase(requestOptions.idempotencyKey, chunkCount)
  // Whatever would make the request core refuse every chunk alike fails here, before the first
  // request: the events, limits and keys above, the headers here. A chunk the core still refuses
  // is then a failed chunk like any other, and every event stays accounted for.
  normalizeHeaders(requestOptions.headers, 'headers')
  const { method } = operations.bulk
  const path = operations.bulk.path.template
  const deadline =
    requestOptions.deadlineMs === undefined ? undefined : Date.now() + requestOptions.deadlineMs
  const results: (TriggerResult | undefined)[] = new Array(events.length).fill(undefined)
  const failures: BulkChunkFailure[] = []
  const progress: BulkProgress = { sent: 0, failed: 0, total: events.length }
  let last: WithResponse<TriggerResult[]> | undefined
  let attempts = 0
  let nextChunk = 0

  const sendChunk = async (chunkIndex: number) => {
    const start = chunkIndex * MAX_EVENTS_PER_BULK_REQUEST
    const chunk = events.slice(start, start + MAX_EVENTS_PER_BULK_REQUEST)
    const idempotencyKey = `${baseKey}:${chunkIndex}`
    const sent = await sendChunkRequest(
      core,
      operations,
      chunk,
      { ...requestOptions, idempotencyKey },
      deadline,
    )
    attempts += sent.attempts
    if (sent.response) {
      last = sent.response
      sent.response.data.forEach((result, offset) => {
        results[start + offset] = result
      })
      progress.sent += chunk.length
    } else {
      failures.push({ chunkIndex, eventIndexes: range(start, start + chunk.length), error: sent.error })
      progress.failed += chunk.length
    }
    try {
      onProgress?.({ ...progress })
    } catch {
      // A broken progress callback must not lose the results of requests that were sent.
    }
  }

  const worker = async () => {
    while (nextChunk < chunkCount) await sendChunk(nextChunk++)
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, chunkCount) }, worker))

  if (failures.length > 0 || !last) {
    failures.sort((a, b) => a.chunkIndex - b.chunkIndex)
    throw new BulkTriggerError(results, failures).withContext({
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
        message: `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH - (longest.length - key.length)} characters, so that each request's key (\`${longest}\` for the last one) stays within ${MAX_IDEMPOTENCY_KEY_LENGTH}`,
      },
    ])
  }
  return key
}

/** Every event is checked before the first request goes out, so a bad event 4 999 sends nothing. */
function checkEvents(operations: EventOperations, events: readonly unknown[]): void {
  if (!Array.isArray(events) || events.length === 0) {
    throw new RequestValidationError(
      [{ path: [], message: 'Must be a list of at least one event' }],
      'Invalid events.triggerBulk request',
    )
  }
  const issues = eventIssues(operations, events, 0)
  if (issues.length > 0) throw new RequestValidationError(issues, 'Invalid events.triggerBulk request')
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, offset) => from + offset)
}
