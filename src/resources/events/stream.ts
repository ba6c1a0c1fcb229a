import type { WithResponse } from '../../core/api-promise.js'
import {
  BadRequestError,
  type BulkChunkFailure,
  BulkTriggerError,
  failedEvent,
  IdempotencyReplayError,
  NotifyKitError,
  namingSentEvent,
  RateLimitError,
  RequestValidationError,
  ResponseValidationError,
  UnprocessableEntityError,
  type ValidationIssue,
  withCallContext,
} from '../../core/errors.js'
import type { TriggerStreamOptions } from '../../core/options.js'
import {
  checkIdempotencyKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  normalizeHeaders,
} from '../../internal/http/headers.js'
import type { Executor } from '../../internal/pipeline/request-core.js'
import { deadlineError } from '../../internal/pipeline/waits.js'
import { callerAbortError } from '../../internal/transport/attempt.js'
import { checkExtraFields } from '../../internal/validation/extra-fields.js'
import { checkStreamOptions } from '../../internal/validation/option-schemas.js'
import { isPlainObject } from '../../internal/validation/parse.js'
import { MAX_EVENTS_PER_BULK_REQUEST, type TriggerResult } from '../../schemas/events.js'
import { isEventIterable } from './event-source.js'
import { type EventOperations, eventIssues, eventVerdict, triggerVerdict } from './operations.js'
import { sendInOrder } from './send-in-order.js'

/** What the stream says of every request, in the order of the source. */
interface BulkChunkPosition {
  /** The request's position: events `chunkIndex * 100` onwards of the source. */
  chunkIndex: number
  /** Position in the source of the request's first event. */
  offset: number
  /** Events of the source in this request's part (100, or fewer for the last), refused ones included. */
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
 * A request that failed after its retries, or was not sent (the deadline had passed): `error` is
 * why. Sending the same events again under the same key is safe.
 *
 * Or a request with events that were not sent: `error` is then a `BulkTriggerError` whose `results`
 * are this request's (`results[j]` for event `offset + j`, `undefined` for an event not sent) and
 * whose `failures` name each event not sent, by its position in the source, its `transactionId` and
 * its `to`: an event refused before sending, alone (`RequestValidationError`: the others went out
 * without it), an event the server sent nothing for (`TriggerNotSentError`: the same key replays
 * that answer, so fix the cause and send it again under a new key), or the rest of the request if
 * it failed.
 */
export interface BulkChunkFailed extends BulkChunkPosition {
  error: NotifyKitError
  results?: undefined
}

/** One outcome of `triggerStream` per request of at most 100 events. */
export type BulkChunkOutcome = BulkChunkApplied | BulkChunkFailed

/** An outcome as `triggerBulk` reads it: with every event's result or failure, and the response. */
export type SentChunk = BulkChunkOutcome & {
  chunk?: { results: (TriggerResult | undefined)[]; failures: BulkChunkFailure[]; attempts: number }
  response?: WithResponse<TriggerResult[]>
}

/**
 * Sends the events of `source` in requests of at most 100, `concurrency` at a time, and yields one
 * outcome per request in the order of the source. Checks the options and the key before reading
 * the source; each event is checked on its own as its chunk is read: an invalid one is a failure of
 * its own and the rest of its chunk goes out, so a chunk's body is the same whenever it is sent
 * again (the same events, the same ones left out). An event without `payload` is sent with
 * `payload: {}`, as the server fills in for a single trigger and refuses a bulk event without.
 * `triggerBulk` passes its `bulkKey`: its key made already, its outcomes carry every event's result
 * or failure, and nothing ends its send early (every chunk gets an outcome, unsent ones failing).
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
  const prefix = `Invalid events.${bulkKey ? 'triggerBulk' : 'triggerStream'} request`
  const invalid = (issues: ValidationIssue[]) =>
    withCallContext(new RequestValidationError(issues, prefix), { method, path })
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
  // Never rejects (sendInOrder's rule). What can throw here is reading the caller's events (a getter,
  // a proxy) while they are checked: that chunk fails whole, with the reason.
  const send = (offset: number, events: unknown[]): Promise<SentChunk> =>
    sendEvents(offset, events).catch((error: unknown) => {
      const chunkIndex = offset / MAX_EVENTS_PER_BULK_REQUEST
      const idempotencyKey = `${baseKey}:${chunkIndex}`
      const reason = error instanceof Error ? error.message : String(error)
      const failure =
        error instanceof NotifyKitError
          ? error
          : invalid([{ path: [offset], message: `events from here could not be read: ${reason}` }])
      return { chunkIndex, offset, count: events.length, idempotencyKey, error: failure }
    })
  const sendEvents = async (offset: number, events: unknown[]): Promise<SentChunk> => {
    const chunkIndex = offset / MAX_EVENTS_PER_BULK_REQUEST
    const idempotencyKey = `${baseKey}:${chunkIndex}`
    const position = { chunkIndex, offset, count: events.length, idempotencyKey }
    const call = { method, path, idempotencyKey }
    const failures: BulkChunkFailure[] = []
    // The events that go out, and the position in the chunk of each.
    let sending: unknown[] = []
    let at: number[] = []
    events.forEach((event, j) => {
      const prepared = withPayload(event)
      const issues = eventIssues(operations, prepared, offset + j)
      if (issues.length === 0) {
        sending.push(prepared)
        at.push(j)
      } else {
        failures.push(eventFailure(chunkIndex, event, offset + j, invalid(issues)))
      }
    })
    let data: ChunkEntry[] | undefined
    let response: WithResponse<TriggerResult[]> | undefined
    let failed: NotifyKitError | undefined
    let attempts = 0
    while (sending.length > 0) {
      try {
        ;({ entries: data, response } = await sendChunk(sending, { ...call, attempts: 0 }))
        attempts = response.response.attempts
        break
      } catch (error) {
        failed = error as NotifyKitError
        attempts = failed.attempts
        // A body JSON cannot carry is refused whole by the request core, before sending: the events
        // that cannot be sent as JSON fail alone, and the others go out without them.
        const unsendable =
          failed instanceof RequestValidationError && attempts === 0 ? unserializable(sending) : []
        if (unsendable.length === 0) {
          failures.push(requestFailed(chunkIndex, events, offset, at, failed))
          break
        }
        for (const k of unsendable) {
          const j = at[k] as number
          const issue = {
            path: [offset + j],
            message: (failed as RequestValidationError).issues[0]?.message ?? '',
          }
          failures.push(eventFailure(chunkIndex, events[j], offset + j, invalid([issue])))
        }
        const dropped = new Set(unsendable)
        sending = sending.filter((_, k) => !dropped.has(k))
        at = at.filter((_, k) => !dropped.has(k))
        failed = undefined
      }
    }
    // The usual chunk: every event sent, none refused, the server's list as it came.
    if (data && failures.length === 0 && at.length === events.length && allSent(data)) {
      const outcome: BulkChunkOutcome = { ...position, results: data }
      return bulkKey ? { ...outcome, chunk: { results: data, failures, attempts }, response } : outcome
    }
    const results: (TriggerResult | undefined)[] = events.map(() => undefined)
    data?.forEach((result, k) => {
      const j = at[k] as number
      // An event sent on its own that failed (after its retries): a failure of its own.
      if (result instanceof NotifyKitError) {
        failures.push(eventFailure(chunkIndex, events[j], offset + j, result))
        return
      }
      const notSent = triggerVerdict(result, `event ${offset + j}`)?.notSent
      if (notSent) {
        namingSentEvent(notSent, events[j], offset + j)
        failures.push(
          eventFailure(chunkIndex, events[j], offset + j, withCallContext(notSent, { ...call, attempts })),
        )
      } else {
        results[j] = result
      }
    })
    failures.sort((a, b) => (a.eventIndexes[0] ?? 0) - (b.eventIndexes[0] ?? 0))
    // A request that failed with nothing refused beside it is reported as before: its error alone.
    const error =
      failed && failures.length === 1
        ? failed
        : withCallContext(new BulkTriggerError(results, failures), {
            method,
            path,
            ...(attempts > 0 && { idempotencyKey }),
            attempts,
          })
    const outcome: BulkChunkOutcome = { ...position, error }
    return bulkKey
      ? { ...outcome, chunk: { results, failures, attempts }, response: data && response }
      : outcome
  }

  const bulkCost = operations.bulk.rateLimitCost
  /** A trigger of a chunk's event, its result read as a bulk answer's (the chunk names an event not sent). */
  const singleTrigger = { ...operations.trigger, verdict: eventVerdict }
  /** The first chunk sent while nothing was known of the bucket, settled or not. */
  let firstChunk: Promise<unknown> | undefined
  /**
   * The chunk's events that pass, in one bulk request or, where bulk requests are too coarse for
   * the client to pace on the server's bucket (one whose two fifths hold fewer than eight), as single
   * triggers. The chunk's key goes with its first request in either form, and the server holds a
   * key to the body it first came with: a 422 for a key reused with another body means that an
   * earlier call sent the chunk in the other form, which is then taken (its requests replay). A
   * failure is thrown, with its call context.
   */
  const sendChunk = async (sending: unknown[], call: ChunkCall): Promise<ChunkAnswer> => {
    // Until an answer describes the bucket, the form is a guess: the first chunk goes (in bulk)
    // alone, and the others wait for its answer.
    if (core.coarse(bulkCost) === undefined && firstChunk === undefined) {
      const sent = sendInForm(sending, call, false, true)
      firstChunk = sent.catch(() => undefined)
      return sent
    }
    await firstChunk
    // Events JSON cannot carry go in the bulk request, which the request core refuses before sending.
    const singles =
      core.coarse(bulkCost) === true &&
      singleKey(call, sending.length - 1).length <= MAX_IDEMPOTENCY_KEY_LENGTH &&
      unserializable(sending).length === 0
    return sendInForm(sending, call, singles)
  }

  const sendInForm = async (
    sending: unknown[],
    call: ChunkCall,
    singles: boolean,
    blind = false,
  ): Promise<ChunkAnswer> => {
    try {
      return await (singles ? sendSingles : sendBulk)(sending, call)
    } catch (error) {
      // The server refuses for the rate before it takes the key: a bulk request refused so to the
      // end may go one event at a time where the bucket is too coarse for it, or where it was sent
      // blind (one event fits a bucket that a client alone keeps nearly empty, and shows it a newcomer).
      const refusedForRate =
        !singles && error instanceof RateLimitError && (blind || core.coarse(bulkCost) === true)
      if (!sentInOtherForm(error) && !refusedForRate) throw error
      return await (singles ? sendBulk : sendSingles)(sending, call)
    }
  }

  /** The time left for a request, or the deadline's error: a request whose turn comes after it is not sent. */
  const timeLeft = (call: ChunkCall) => {
    const remainingMs = deadline === undefined ? undefined : deadline - Date.now()
    // Not sent at all, rather than sent with a timeout too short to read the answer of a request
    // the server may still carry out.
    if (remainingMs !== undefined && remainingMs <= 0) {
      throw withCallContext(deadlineError(deadlineMs, { notSent: true }), call)
    }
    return remainingMs
  }

  const sendBulk = async (sending: unknown[], call: ChunkCall): Promise<ChunkAnswer> => {
    const response = await core.execute(
      operations.bulk,
      { body: { events: sending } },
      { ...requestOptions, idempotencyKey: call.idempotencyKey, deadlineMs: timeLeft(call) },
    )
    const { data, response: answer } = response
    // The results are matched to events by position, so a response that does not hold exactly
    // one result per event cannot confirm any of them: the chunk fails, and sending it again
    // with the same key is safe.
    const found: unknown = data
    if (!Array.isArray(found) || found.length !== sending.length) {
      throw withCallContext(
        new ResponseValidationError(
          `events.triggerBulk: the ${answer.status} response holds ${Array.isArray(found) ? found.length : 'no list of'} results for ${sending.length} events`,
          answer.status,
          JSON.stringify(found) ?? '',
        ),
        { ...call, attempts: answer.attempts },
      )
    }
    return { entries: data, response }
  }

  /**
   * One trigger per event, the first under the chunk's key and alone: until the server holds that
   * key to a trigger's body, no other event of the chunk goes, so a chunk whose first answer is a
   * 422 for another form, or no answer at all, has sent nothing else. The others go under
   * `<chunk key>:<position>`, and each that fails (after its retries) is a failure of its own event.
   */
  const sendSingles = async (sending: unknown[], call: ChunkCall): Promise<ChunkAnswer> => {
    const trigger = async (k: number) =>
      core.execute(
        singleTrigger,
        { body: sending[k] },
        { ...requestOptions, idempotencyKey: singleKey(call, k), deadlineMs: timeLeft(call) },
      )
    let first: WithResponse<TriggerResult> | NotifyKitError
    try {
      first = await trigger(0)
    } catch (error) {
      if (!answeredByRoute(error)) throw error
      first = error
    }
    const rest = await Promise.allSettled(sending.slice(1).map((_, k) => trigger(k + 1)))
    const answers = [
      first,
      ...rest.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : asError(outcome.reason))),
    ]
    const entries = answers.map((answer) => (answer instanceof NotifyKitError ? answer : answer.data))
    const sent = answers.filter(
      (answer): answer is WithResponse<TriggerResult> => !(answer instanceof NotifyKitError),
    )
    const last = sent[sent.length - 1]
    // Not one event answered: the chunk failed as a request would, with its first event's error.
    if (last === undefined) throw first
    const attempts = answers.reduce(
      (total, answer) =>
        total + (answer instanceof NotifyKitError ? answer.attempts : answer.response.attempts),
      0,
    )
    const data = sent.map((answer) => answer.data)
    return {
      entries,
      response: { data, response: { ...last.response, idempotencyKey: call.idempotencyKey, attempts } },
    }
  }
  return sendInOrder(source, startAtChunk, concurrency, beforeChunk, send)
}

/** Each event's result, or the failure of an event sent on its own. */
type ChunkEntry = TriggerResult | NotifyKitError

/** What a chunk's requests answered: an entry per event sent, and the response to report. */
interface ChunkAnswer {
  entries: ChunkEntry[]
  response: WithResponse<TriggerResult[]>
}

/** A chunk's request as its errors name it. */
interface ChunkCall {
  method: string
  path: string
  idempotencyKey: string
  attempts: number
}

/** The key of the chunk's `k`th trigger when sent one by one: the chunk's own for the first. */
function singleKey(call: ChunkCall, k: number): string {
  return k === 0 ? call.idempotencyKey : `${call.idempotencyKey}:${k}`
}

/** The server's 422 for a key it holds to another body: the chunk went out before in the other form. */
function sentInOtherForm(error: unknown): boolean {
  return error instanceof UnprocessableEntityError && /reused for a different body/.test(error.message)
}

/**
 * A refusal the trigger's route answered, which the server keeps for the key (and replays): the
 * key is held to this form. A 422 for another form, a 429, no answer, or a server error are not.
 */
function answeredByRoute(error: unknown): error is NotifyKitError {
  if (error instanceof IdempotencyReplayError) return true
  return (
    (error instanceof BadRequestError || error instanceof UnprocessableEntityError) && !sentInOtherForm(error)
  )
}

function asError(reason: unknown): NotifyKitError {
  return reason instanceof NotifyKitError ? reason : new NotifyKitError(String(reason), { cause: reason })
}

/**
 * The event as it goes out: one without `payload` gets `payload: {}`, which the server fills in for
 * a single trigger but refuses a bulk event without. The caller's object is not changed.
 */
function withPayload(event: unknown): unknown {
  return isPlainObject(event) && event.payload === undefined ? { ...event, payload: {} } : event
}

/** Whether the server sent every event of the list (the verdict's test, without building errors). */
function allSent(entries: readonly ChunkEntry[]): entries is TriggerResult[] {
  return entries.every((entry) => !(entry instanceof NotifyKitError) && !triggerVerdict(entry, '')?.notSent)
}

/** One event that fails on its own: refused before sending, not sent, or its own trigger failed. */
function eventFailure(
  chunkIndex: number,
  event: unknown,
  index: number,
  error: NotifyKitError,
): BulkChunkFailure {
  return { chunkIndex, eventIndexes: [index], events: [failedEvent(event, index)], error }
}

/** The events a failed request carried, those refused before it left out. */
function requestFailed(
  chunkIndex: number,
  events: readonly unknown[],
  offset: number,
  at: readonly number[],
  error: NotifyKitError,
): BulkChunkFailure {
  return {
    chunkIndex,
    eventIndexes: at.map((j) => offset + j),
    events: at.map((j) => failedEvent(events[j], offset + j)),
    error,
  }
}

/** The positions in `events` of those JSON cannot carry (a BigInt, a cycle). */
function unserializable(events: readonly unknown[]): number[] {
  const found: number[] = []
  events.forEach((event, k) => {
    try {
      JSON.stringify(event)
    } catch {
      found.push(k)
    }
  })
  return found
}
