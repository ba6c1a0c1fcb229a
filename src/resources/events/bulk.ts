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
import type { RequestOptions } from '../../core/options.js'
import { deadlineError } from '../../internal/deadline.js'
import { checkIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH, normalizeHeaders } from '../../internal/headers.js'
import { issuesOf } from '../../internal/issues.js'
import { checkBulkOptions, invalidRequestOptions } from '../../internal/option-schemas.js'
import type { Executor } from '../../internal/request.js'
import { MAX_EVENTS_PER_BULK_REQUEST, type TriggerResult } from '../../schemas/events.js'
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
  concurrency?: number | undefined
  /**
   * Called after each request of at most 100 events settles. An exception thrown here is ignored.
   * @example `client.events.triggerBulk(events, { onProgress: ({ sent, total }) => bar.update(sent / total) })`
   */
  onProgress?: ((progress: BulkProgress) => void) | undefined
}

const DEFAULT_CONCURRENCY = 2

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
  const { concurrency = DEFAULT_CONCURRENCY, onProgress, ...requestOptions } = options
  const { method } = operations.bulk
  const path = operations.bulk.path.template
  let chunkCount: number
  let baseKey: string
  // Whatever would make the request core refuse every chunk alike fails here, before the first
  // request: the events, the options, the key and the headers. A chunk the core still refuses is
  // then a failed chunk like any other, and every event stays accounted for.
  try {
    checkEvents(operations, events)
    checkBulkOptions(options)
    chunkCount = Math.ceil(events.length / MAX_EVENTS_PER_BULK_REQUEST)
    baseKey = chunkKeyBase(requestOptions.idempotencyKey, chunkCount)
    normalizeHeaders(requestOptions.headers, 'headers')
  } catch (error) {
    // Each check throws a RequestValidationError; nothing was sent, so no key is reported.
    throw withCallContext(error as NotifyKitError, { method, path })
  }
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
    let outcome: WithResponse<TriggerResult[]> | undefined
    let failure: NotifyKitError | undefined
    try {
      const remainingMs = deadline === undefined ? undefined : deadline - Date.now()
      // A chunk whose turn comes after the deadline is not sent at all, rather than sent with a
      // timeout too short to read the answer of a request the server may still carry out.
      if (remainingMs !== undefined && remainingMs <= 0) {
        throw withCallContext(deadlineError(requestOptions.deadlineMs, { notSent: true }), {
          method,
          path,
          idempotencyKey,
          attempts: 0,
        })
      }
      outcome = await core.execute(
        operations.bulk,
        { body: { events: chunk } },
        {
          ...requestOptions,
          idempotencyKey,
          ...(remainingMs === undefined ? {} : { deadlineMs: remainingMs }),
        },
      )
    } catch (error) {
      // The request core turns every failure into a NotifyKitError carrying its call context.
      failure = error as NotifyKitError
    }
    if (outcome) {
      attempts += outcome.response.attempts
      failure = countMismatch(outcome, chunk.length, { method, path, idempotencyKey })
    } else if (failure) {
      attempts += failure.attempts
    }
    if (outcome && !failure) {
      last = outcome
      outcome.data.forEach((result, offset) => {
        results[start + offset] = result
      })
      progress.sent += chunk.length
    } else if (failure) {
      failures.push({ chunkIndex, eventIndexes: range(start, start + chunk.length), error: failure })
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

/**
 * The results are matched to events by position, so a response that does not hold exactly one
 * result per event cannot confirm any of them: the chunk counts as failed, and sending it again
 * with the same key is safe.
 */
function countMismatch(
  outcome: WithResponse<TriggerResult[]>,
  expected: number,
  call: { method: string; path: string; idempotencyKey: string },
): NotifyKitError | undefined {
  const data: unknown = outcome.data
  if (Array.isArray(data) && data.length === expected) return undefined
  const found = Array.isArray(data) ? `${data.length} results` : 'no list of results'
  const body = JSON.stringify(data) ?? ''
  return withCallContext(
    new ResponseValidationError(
      `events.triggerBulk: the ${outcome.response.status} response holds ${found} for ${expected} events`,
      outcome.response.status,
      body,
    ),
    { ...call, attempts: outcome.response.attempts },
  )
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
  const schema = operations.trigger.body
  if (!schema) return
  const issues: ValidationIssue[] = []
  events.forEach((event, index) => {
    const parsed = schema.safeParse(event)
    if (parsed.success) return
    issues.push(...issuesOf(parsed.error, [index]))
  })
  if (issues.length > 0) throw new RequestValidationError(issues, 'Invalid events.triggerBulk request')
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, offset) => from + offset)
}
