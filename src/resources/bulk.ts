import { randomUUID } from 'node:crypto'
import type { WithResponse } from '../core/api-promise.js'
import {
  type BulkChunkFailure,
  BulkTriggerError,
  NotifyKitError,
  RequestValidationError,
  type ValidationIssue,
} from '../core/errors.js'
import type { RequestOptions } from '../core/options.js'
import type { RequestCore } from '../core/request.js'
import { MAX_EVENTS_PER_BULK_REQUEST, type TriggerResult } from '../schemas/events.js'
import type { EventOperations } from './events.js'

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

const DEFAULT_CONCURRENCY = 2

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
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RequestValidationError([
      { path: ['concurrency'], message: 'Must be a whole number of at least 1' },
    ])
  }
  const baseKey = requestOptions.idempotencyKey ?? randomUUID()
  const deadline =
    requestOptions.deadlineMs === undefined ? undefined : Date.now() + requestOptions.deadlineMs
  const chunkCount = Math.ceil(events.length / MAX_EVENTS_PER_BULK_REQUEST)
  const results: (TriggerResult | undefined)[] = new Array(events.length).fill(undefined)
  const failures: BulkChunkFailure[] = []
  const progress: BulkProgress = { sent: 0, failed: 0, total: events.length }
  let last: WithResponse<TriggerResult[]> | undefined
  let attempts = 0
  let nextChunk = 0

  const sendChunk = async (chunkIndex: number) => {
    const start = chunkIndex * MAX_EVENTS_PER_BULK_REQUEST
    const chunk = events.slice(start, start + MAX_EVENTS_PER_BULK_REQUEST)
    try {
      const outcome = await core.execute(
        operations.bulk,
        { body: { events: chunk } },
        {
          ...requestOptions,
          idempotencyKey: `${baseKey}:${chunkIndex}`,
          ...(deadline === undefined ? {} : { deadlineMs: Math.max(1, deadline - Date.now()) }),
        },
      )
      attempts += outcome.response.attempts
      last = outcome
      outcome.data.forEach((result, offset) => {
        if (start + offset < events.length) results[start + offset] = result
      })
      progress.sent += chunk.length
    } catch (error) {
      const failure =
        error instanceof NotifyKitError ? error : new NotifyKitError('Bulk request failed', { cause: error })
      attempts += failure.attempts
      failures.push({ chunkIndex, eventIndexes: chunk.map((_, offset) => start + offset), error: failure })
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
      method: 'POST',
      path: '/v1/events/trigger/bulk',
      idempotencyKey: baseKey,
      attempts,
    })
  }
  return {
    data: results as TriggerResult[],
    response: { ...last.response, idempotencyKey: baseKey, attempts },
  }
}

/** Every event is checked before the first request goes out, so a bad event 4 999 sends nothing. */
function checkEvents(operations: EventOperations, events: readonly unknown[]): void {
  if (!Array.isArray(events) || events.length === 0) {
    throw new RequestValidationError([{ path: ['events'], message: 'Must hold at least one event' }])
  }
  const schema = operations.trigger.body
  if (!schema) return
  const issues: ValidationIssue[] = []
  events.forEach((event, index) => {
    const parsed = schema.safeParse(event)
    if (parsed.success) return
    for (const issue of parsed.error.issues) {
      issues.push({
        path: [index, ...issue.path.filter((key) => typeof key !== 'symbol')],
        message: issue.message,
      })
    }
  })
  if (issues.length > 0) throw new RequestValidationError(issues, 'Invalid events.triggerBulk request')
}
