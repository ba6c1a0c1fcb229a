import type { WithResponse } from '../../core/api-promise.js'
import { type NotifyKitError, ResponseValidationError } from '../../core/errors.js'
import type { RequestOptions } from '../../core/options.js'
import { deadlineError } from '../../internal/deadline.js'
import type { RequestCore } from '../../internal/request.js'
import type { TriggerResult } from '../../schemas/events.js'
import type { EventOperations } from './operations.js'

/** How one request of a bulk send ended: its results, or why they cannot be trusted. */
export type ChunkRequestOutcome =
  | { response: WithResponse<TriggerResult[]>; error?: undefined; attempts: number }
  | { response?: undefined; error: NotifyKitError; attempts: number }

/**
 * Sends one request of at most 100 events under its own key, within what is left of the whole
 * send's `deadline`. Never rejects: a failure is an outcome, so one request cannot lose the others.
 * @internal
 */
export async function sendChunkRequest(
  core: RequestCore,
  operations: EventOperations,
  events: readonly unknown[],
  options: RequestOptions & { idempotencyKey: string },
  deadline: number | undefined,
): Promise<ChunkRequestOutcome> {
  const { method } = operations.bulk
  const path = operations.bulk.path.template
  const call = { method, path, idempotencyKey: options.idempotencyKey }
  let response: WithResponse<TriggerResult[]>
  try {
    const remainingMs = deadline === undefined ? undefined : deadline - Date.now()
    // A chunk whose turn comes after the deadline is not sent at all, rather than sent with a
    // timeout too short to read the answer of a request the server may still carry out.
    if (remainingMs !== undefined && remainingMs <= 0) {
      throw deadlineError(options.deadlineMs, { notSent: true }).withContext({ ...call, attempts: 0 })
    }
    response = await core.execute(
      operations.bulk,
      { body: { events } },
      remainingMs === undefined ? options : { ...options, deadlineMs: remainingMs },
    )
  } catch (error) {
    // The request core turns every failure into a NotifyKitError carrying its call context.
    const failure = error as NotifyKitError
    return { error: failure, attempts: failure.attempts }
  }
  const attempts = response.response.attempts
  const mismatch = countMismatch(response, events.length, call)
  return mismatch ? { error: mismatch, attempts } : { response, attempts }
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
  return new ResponseValidationError(
    `events.triggerBulk: the ${outcome.response.status} response holds ${found} for ${expected} events`,
    outcome.response.status,
    body,
  ).withContext({ ...call, attempts: outcome.response.attempts })
}
