import { parseRetryAfterMs, type ResponseHeaders, requestIdOf } from '../internal/http/response-headers.js'
import { errorIdOfBody, issuesOfBody } from '../internal/text/error-body.js'
import { describeStatus, formatIssues } from '../internal/text/messages.js'
import type { Recipients, TriggerResult, TriggerStatus } from '../schemas/events.js'

export type { ResponseHeaders }

/**
 * Stable, machine-readable error codes. Match on `error.code` (or `instanceof`), never on messages.
 */
export type ErrorCode =
  | ApiErrorCode
  | 'NOTIFYKIT_CONFIGURATION'
  | 'NOTIFYKIT_CONNECTION'
  | 'NOTIFYKIT_TIMEOUT'
  | 'NOTIFYKIT_ABORTED'
  | 'NOTIFYKIT_CLIENT_CLOSED'
  | 'NOTIFYKIT_REQUEST_VALIDATION'
  | 'NOTIFYKIT_RESPONSE_VALIDATION'
  | 'NOTIFYKIT_RESPONSE_TOO_LARGE'
  | 'NOTIFYKIT_BULK_TRIGGER'
  | 'NOTIFYKIT_TRIGGER_NOT_SENT'

/** The codes an `ApiError` (a non-2xx answer) can carry, one per status family. */
export type ApiErrorCode =
  | 'NOTIFYKIT_API'
  | 'NOTIFYKIT_BAD_REQUEST'
  | 'NOTIFYKIT_AUTHENTICATION'
  | 'NOTIFYKIT_PERMISSION_DENIED'
  | 'NOTIFYKIT_NOT_FOUND'
  | 'NOTIFYKIT_CONFLICT'
  | 'NOTIFYKIT_UNPROCESSABLE_ENTITY'
  | 'NOTIFYKIT_RATE_LIMIT'
  | 'NOTIFYKIT_INTERNAL_SERVER'
  | 'NOTIFYKIT_IDEMPOTENCY_REPLAY'

/** Facts about the call that every error raised by a request carries. @internal */
export interface CallContext {
  method?: string
  path?: string
  idempotencyKey?: string
  attempts?: number
  retryBudgetSpent?: boolean
  requestId?: string
}

/**
 * Each class's code, as a static member under a registered symbol: the same symbol in the CommonJS
 * and the ES module copy of the package, so that each copy recognises the other's errors.
 * @internal
 */
const CODE: unique symbol = Symbol.for('notifykit.error.code')

/**
 * The root of every error the SDK throws. Catch this to handle any notifykit failure.
 *
 * `instanceof` works across copies of notifykit in one app (its CommonJS and ES module builds both
 * loaded, the dual-package hazard): an error thrown by one copy is an instance of the other's class
 * of the same `code`, and of that class's parents.
 */
export class NotifyKitError extends Error {
  /** @internal */
  static readonly [CODE]: ErrorCode = 'NOTIFYKIT_CONFIGURATION'

  override name = 'NotifyKitError'
  // Fields set by a constructor or by the request core are declared, not defined: a defined field
  // would be set to undefined first on every error, and costs its name again in every bundle.
  /** Stable and machine-readable; each class has its own, so `instanceof` narrows it to a literal. */
  declare readonly code: ErrorCode
  /** HTTP method of the call (for an error raised by a call). */
  declare readonly method?: string
  /** Path of the call; it holds no secret (the base URL is left out). */
  declare readonly path?: string
  /** The idempotency key the call sent on every attempt (POST and PATCH), only if one was sent. */
  declare readonly idempotencyKey?: string
  /** How many attempts were made before this error (0 when nothing was sent). */
  readonly attempts: number = 0
  /**
   * True when the call could have been retried but was not, because the client's retry budget was
   * spent: the service failed repeatedly, and retries would only add to its load. The budget refills
   * as calls succeed.
   */
  declare readonly retryBudgetSpent?: boolean
  /**
   * The server's id for the request, to quote to support, when the call learnt it: a trigger's
   * answer carries it in its `activityFeedLink` (so a `TriggerNotSentError` has it), and an error
   * response has it only where a proxy in front of the server added an `x-request-id` header.
   */
  declare readonly requestId?: string | undefined

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = new.target[CODE]
  }

  /**
   * `error instanceof RateLimitError` is true for a `RateLimitError` of either copy of notifykit.
   * @example
   * ```ts
   * if (error instanceof RateLimitError) setTimeout(retry, error.retryAfterMs ?? 1_000)
   * ```
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of `instanceof`, a subclass's too
    return isInstance(this, value)
  }
}

function isInstance(type: abstract new (...args: never[]) => unknown, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(type, value)) return true
  // Only the package's own classes have a code of their own to compare; a subclass of yours stays
  // an ordinary class.
  if (!Object.hasOwn(type, CODE)) return false
  const code = (type as { [CODE]?: unknown })[CODE]
  // The value's class and its parents, in the copy of the package that made it.
  for (let other = (value as { constructor?: unknown } | null)?.constructor; typeof other === 'function'; ) {
    // An inherited code is its parent's, which the walk reaches next anyway.
    if ((other as { [CODE]?: unknown })[CODE] === code) return true
    other = Object.getPrototypeOf(other)
  }
  return false
}

/**
 * Records which call an error belongs to; the request core calls it once per error. A function of
 * this module rather than a method, so that it is no part of the errors users see.
 * @internal
 */
export function withCallContext<E extends NotifyKitError>(error: E, context: CallContext): E {
  return Object.assign(error, context)
}

/**
 * One problem the server listed in an error body: where it is, from the request body
 * (`['payload', 'orderId']`; empty when the server named no field, as its DTO checks do), the
 * server's words, and what it said of the value.
 */
export interface ApiIssue extends ValidationIssue {
  /** The value the server refused, when it said which. */
  value?: unknown
  /** For a payload checked against the workflow's schema: the rule that failed, e.g. `#/required`. */
  schemaPath?: string
}

/** The server answered with a non-2xx status. Subclasses name the status family. */
export class ApiError extends NotifyKitError {
  override name = 'ApiError'
  /** @internal */
  static override readonly [CODE]: ApiErrorCode = 'NOTIFYKIT_API'
  declare readonly code: ApiErrorCode
  /** The HTTP status code. */
  declare readonly status: number
  /** The response headers, as received. */
  declare readonly headers: ResponseHeaders
  /** The parsed JSON error body, or the raw text when it was not JSON (an HTML page from a proxy). */
  declare readonly body: unknown
  /**
   * Every problem the body lists, in the server's order: a 422's `errors` (a command's
   * `errors.<field>.messages`, a DTO's `errors.general.messages`), a payload's schema errors (under
   * `payload`, with `value` and `schemaPath`), a schema's `errors` list, or a `message` list. Empty
   * when it lists none.
   */
  declare readonly issues: ApiIssue[]
  /**
   * The service names no request id on an error; this is the `x-request-id` (or `request-id`) header,
   * only where a proxy in front of the server adds one.
   */
  declare readonly requestId: string | undefined
  /** The id a `500` asks you to quote to support (`errorId` in the body), if the server sent one. */
  declare readonly errorId: string | undefined
  /** The wait the server asked for (`retry-after-ms`, `Retry-After` in seconds or as a date), if any. */
  declare readonly retryAfterMs: number | undefined

  constructor(status: number, body: unknown, headers: ResponseHeaders, message?: string) {
    const issues: ApiIssue[] = issuesOfBody(body)
    super(message ?? describeStatus(status, body, issues))
    this.status = status
    this.body = body
    this.headers = headers
    this.issues = issues
    this.requestId = requestIdOf(headers)
    this.errorId = errorIdOfBody(body)
    this.retryAfterMs = parseRetryAfterMs(headers)
  }

  /**
   * Builds the subclass that matches the status, or an `IdempotencyReplayError` for an error the
   * server replays (`Idempotency-Replay: true`).
   * @example
   * ```ts
   * const error = ApiError.fromResponse(429, { message: 'slow down' }, { 'retry-after': '2' })
   * error instanceof RateLimitError // true; error.retryAfterMs === 2000
   * ```
   */
  static fromResponse(status: number, body: unknown, headers: ResponseHeaders): ApiError {
    const ErrorClass = isReplay(headers) ? IdempotencyReplayError : errorClassForStatus(status)
    return new ErrorClass(status, body, headers)
  }
}

/** The server's mark on an answer it replays for an idempotency key it has seen. */
function isReplay(headers: ResponseHeaders): boolean {
  return headers['idempotency-replay']?.trim().toLowerCase() === 'true'
}

/** 400: the server rejected the request (for example a payload that failed the workflow's schema). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_BAD_REQUEST' as const
  declare readonly code: 'NOTIFYKIT_BAD_REQUEST'
}

/** 401: the API key is missing, malformed or wrong. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_AUTHENTICATION' as const
  declare readonly code: 'NOTIFYKIT_AUTHENTICATION'
}

/** 403: the key is valid but may not do this. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_PERMISSION_DENIED' as const
  declare readonly code: 'NOTIFYKIT_PERMISSION_DENIED'
}

/** 404, or a `200 {"data": null}` where a record was expected. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_NOT_FOUND' as const
  declare readonly code: 'NOTIFYKIT_NOT_FOUND'
}

/** 409: for example the same idempotency key while the first request is still running. */
export class ConflictError extends ApiError {
  override name = 'ConflictError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_CONFLICT' as const
  declare readonly code: 'NOTIFYKIT_CONFLICT'
}

/** 422: validation failed on the server, the workflow was not found, or a key was reused with another body. */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_UNPROCESSABLE_ENTITY' as const
  declare readonly code: 'NOTIFYKIT_UNPROCESSABLE_ENTITY'
  /**
   * For `422 workflow_not_found`: the workflow name the call sent, which the server does not know
   * (a typo, or a workflow of another environment than the API key's).
   */
  declare readonly workflowName?: string
}

/**
 * A `422 workflow_not_found` answers a trigger or broadcast whose `name` the server does not know;
 * the error then names it. The request core calls this with the `name` of the body it sent.
 * @internal
 */
export function namingWorkflow(error: unknown, name: unknown): unknown {
  // Only an UnprocessableEntityError has a body whose message is this.
  const failure = error as { body?: { message?: unknown }; workflowName?: string; message: string } | null
  if (typeof name === 'string' && failure?.body?.message === 'workflow_not_found') {
    failure.workflowName = name
    failure.message = `422 workflow_not_found: no workflow named ${JSON.stringify(name)}`
  }
  return error
}

/** 429: over the rate limit. `retryAfterMs` says how long the server asked to wait. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_RATE_LIMIT' as const
  declare readonly code: 'NOTIFYKIT_RATE_LIMIT'
}

/** 5xx: the server or a proxy in front of it failed. */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_INTERNAL_SERVER' as const
  declare readonly code: 'NOTIFYKIT_INTERNAL_SERVER'
}

/**
 * The server answered this idempotency key with an error before, and replays it: every request under
 * the key gets that answer until the key expires (a day), so the call was not retried. The service
 * replays an error as `503 Service Unavailable` with `Idempotency-Replay: true`, whatever the first
 * error was (a 4xx, a 500, a 503); `firstError` is that first error when this call saw it.
 *
 * What to do: fix the cause, then send again with a new idempotency key. If the first attempt was
 * applied (a 500 can come after the trigger was queued), a new key can send it twice; for a trigger,
 * send the same `transactionId` again and the server ignores the repeat.
 *
 * @example
 * ```ts
 * try {
 *   await client.events.trigger(event, { idempotencyKey: 'order-42-shipped' })
 * } catch (error) {
 *   if (error instanceof IdempotencyReplayError) {
 *     console.error('replayed:', error.firstError?.message ?? error.message)
 *     // after fixing the cause: same transactionId, new key
 *     await client.events.trigger(event, { idempotencyKey: 'order-42-shipped:2' })
 *   }
 * }
 * ```
 */
export class IdempotencyReplayError extends ApiError {
  override name = 'IdempotencyReplayError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_IDEMPOTENCY_REPLAY' as const
  declare readonly code: 'NOTIFYKIT_IDEMPOTENCY_REPLAY'
  /**
   * The error of this call's first attempt under the key, which the server recorded and now
   * replays (an `ApiError`, or a `TimeoutError` when its answer never arrived); also `cause`.
   * `undefined` when an earlier call used the key first.
   */
  declare readonly firstError: NotifyKitError | undefined

  constructor(status: number, body: unknown, headers: ResponseHeaders) {
    super(status, body, headers, `${describeStatus(status, body)}: ${REPLAY_EXPLAINED}`)
    this.firstError = undefined
  }
}

const REPLAY_EXPLAINED =
  'a replay (Idempotency-Replay): the server answered this idempotency key with an error before and gives every request under it the same answer until the key expires, so it was not retried; ' +
  'fix the cause, then send again with a new idempotency key (if the first attempt was applied, a new key can send it twice: for a trigger, send the same transactionId and the server ignores the repeat)'

/**
 * Records the error this call's first attempt under the key failed with, which the replay stands for.
 * @internal
 */
export function replayOf(
  replay: IdempotencyReplayError,
  firstError: NotifyKitError | undefined,
): IdempotencyReplayError {
  if (firstError === undefined) return replay
  Object.assign(replay, { firstError })
  causedBy(replay, firstError)
  replay.message += `; the first attempt failed with: ${firstError.message}`
  return replay
}

/**
 * Sets `cause` on an error built without one (an answer's `ApiError`): the failure before it, when a
 * call was retried, so that the error a call ends with leads to every failure before it.
 * @internal
 */
export function causedBy<E extends NotifyKitError>(error: E, cause: NotifyKitError): E {
  Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true })
  return error
}

/** No response was received: refused, reset, DNS failure, a dropped socket. `cause` has the detail. */
export class ConnectionError extends NotifyKitError {
  override name = 'ConnectionError'
  /** @internal */
  static override readonly [CODE]: 'NOTIFYKIT_CONNECTION' | 'NOTIFYKIT_TIMEOUT' = 'NOTIFYKIT_CONNECTION'
  declare readonly code: 'NOTIFYKIT_CONNECTION' | 'NOTIFYKIT_TIMEOUT'
  /** Whether the response's status and headers had arrived before the connection failed. */
  responseStarted = false
}

/** An attempt ran past `timeoutMs`, or the whole call past `deadlineMs`. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_TIMEOUT' as const
  declare readonly code: 'NOTIFYKIT_TIMEOUT'
}

/** The caller's `signal` fired. `cause` is the signal's reason. */
export class AbortError extends NotifyKitError {
  override name = 'AbortError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_ABORTED' as const
  declare readonly code: 'NOTIFYKIT_ABORTED'
}

/**
 * The call was made on a client after `close()` (or on one derived from it with `withOptions`). It is
 * never retried: the client will not send again, whatever the transport.
 */
export class ClientClosedError extends NotifyKitError {
  override name = 'ClientClosedError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_CLIENT_CLOSED' as const
  declare readonly code: 'NOTIFYKIT_CLIENT_CLOSED'

  constructor() {
    super('The client was closed: create a new NotificationClient to send again')
  }
}

/** The response body ran past `maxResponseBytes`; the rest was not read and the socket was released. */
export class ResponseTooLargeError extends NotifyKitError {
  override name = 'ResponseTooLargeError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_RESPONSE_TOO_LARGE' as const
  declare readonly code: 'NOTIFYKIT_RESPONSE_TOO_LARGE'
  declare readonly limitBytes: number

  constructor(limitBytes: number) {
    super(`Response body exceeds maxResponseBytes (${limitBytes} bytes); the rest was not read`)
    this.limitBytes = limitBytes
  }
}

/** One problem found in a request before it was sent. */
export interface ValidationIssue {
  /** Where the problem is, e.g. `['schedule', 'weeklySchedule', 'monday', 'hours', 0, 'start']`. */
  path: (string | number)[]
  message: string
}

/** The request was refused before anything was sent. `issues` lists each problem with its path. */
export class RequestValidationError extends NotifyKitError {
  override name = 'RequestValidationError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_REQUEST_VALIDATION' as const
  declare readonly code: 'NOTIFYKIT_REQUEST_VALIDATION'
  declare readonly issues: ValidationIssue[]

  constructor(issues: ValidationIssue[], prefix = 'Invalid request') {
    super(`${prefix}: ${formatIssues(issues)}`)
    this.issues = issues
  }
}

/** The response did not match its schema and `responseValidation` is `'strict'`. `body` is the raw text. */
export class ResponseValidationError extends NotifyKitError {
  override name = 'ResponseValidationError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_RESPONSE_VALIDATION' as const
  declare readonly code: 'NOTIFYKIT_RESPONSE_VALIDATION'
  declare readonly status: number
  declare readonly body: string
  declare readonly issues: ValidationIssue[]

  constructor(
    message: string,
    status: number,
    body: string,
    issues: ValidationIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(`${message}${issues.length ? `: ${formatIssues(issues)}` : ''}`, options)
    this.status = status
    this.body = body
    this.issues = issues
  }
}

type ApiErrorClass = new (status: number, body: unknown, headers: ResponseHeaders) => ApiError

// Built once, after the classes it names: every non-2xx answer (each retried 429 or 503) looks here.
const API_ERROR_CLASS_BY_STATUS: Record<number, ApiErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
}

function errorClassForStatus(status: number): ApiErrorClass {
  return API_ERROR_CLASS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : ApiError)
}

/**
 * The server accepted the request and answered that it sent nothing for the event: `status` says
 * why (`trigger_not_active`, `no_workflow_active_steps_defined`, `no_workflow_steps_defined`,
 * `no_tenant_found`, `invalid_recipients`, `subscriber_id_missing`, or `error`: every value of
 * `TRIGGER_NOT_SENT_STATUSES`). Sending it again
 * unchanged gets the same answer: fix the cause, then send it with a new idempotency key. A status
 * this version of notifykit does not know is never read as this: the call resolves, and a warning
 * is logged once. The error names the event: `transactionId`, `to`, and in a bulk call or a stream
 * its position, `eventIndex`.
 */
export class TriggerNotSentError extends NotifyKitError {
  override name = 'TriggerNotSentError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_TRIGGER_NOT_SENT' as const
  declare readonly code: 'NOTIFYKIT_TRIGGER_NOT_SENT'
  /** The server's answer for the event, as received. */
  declare readonly result: TriggerResult
  /** `result.status`. */
  declare readonly status: TriggerStatus
  /**
   * The event's position in the list passed to `triggerBulk` or in the source of `triggerStream`,
   * counted from 0 over the whole list or source; absent for `trigger` and `broadcast`.
   */
  declare readonly eventIndex?: number
  /** The event's `transactionId`: the one it was sent with, else the one the server answered with. */
  declare readonly transactionId?: string
  /** The recipients the event was sent to, its `to` as given; absent for a broadcast. */
  declare readonly to?: Recipients

  constructor(result: TriggerResult, event = 'the trigger') {
    super(notSentMessage(result, event))
    this.result = result
    this.status = result.status
    const transactionId: unknown = (result as Partial<TriggerResult> | null)?.transactionId
    if (typeof transactionId === 'string') this.transactionId = transactionId
  }
}

function notSentMessage(result: TriggerResult, event: string): string {
  // Read as received: a drifted answer may hold a string, or nothing, where a list is documented.
  const error: unknown = result.error
  const reasons = Array.isArray(error) ? error.join('; ') : typeof error === 'string' ? error : ''
  return `Not sent: the server answered ${event} with status "${result.status}"${reasons && `: ${reasons}`}`
}

/**
 * Names the event a `TriggerNotSentError` is about, from what the caller sent, and says so in its
 * message. A function of this module, so that it is no part of the errors users see.
 * @internal
 */
export function namingSentEvent(error: unknown, event: unknown, index?: number): unknown {
  if (!(error instanceof TriggerNotSentError)) return error
  const named = error as { -readonly [Key in keyof TriggerNotSentError]: TriggerNotSentError[Key] }
  const { transactionId, to } = eventFields(event)
  if (index !== undefined) named.eventIndex = index
  if (typeof transactionId === 'string') named.transactionId = transactionId
  if (to !== undefined) named.to = to as Recipients
  const label = [
    index === undefined ? (to === undefined ? 'the broadcast' : 'the trigger') : `event ${index}`,
    describeEvent(named.transactionId, to),
  ].join('')
  named.message = notSentMessage(named.result, label)
  return error
}

/** ` (transactionId "tx-1", to "user-1", "user-2" and 3 more)`: what the caller knows the event by. */
function describeEvent(transactionId: string | undefined, to: unknown): string {
  const parts: string[] = []
  if (transactionId !== undefined) parts.push(`transactionId ${JSON.stringify(transactionId)}`)
  const recipients = describeRecipients(to)
  if (recipients) parts.push(`to ${recipients}`)
  return parts.length ? ` (${parts.join(', ')})` : ''
}

const RECIPIENTS_NAMED = 3

/**
 * Recipients by their ids only: a subscriber object's email or phone never goes into a message,
 * which ends up in logs.
 */
function describeRecipients(to: unknown): string {
  const one = (recipient: unknown): string | undefined => {
    if (typeof recipient === 'string') return JSON.stringify(recipient)
    const { subscriberId, topicKey } = eventFields(recipient)
    if (typeof subscriberId === 'string') return JSON.stringify(subscriberId)
    if (typeof topicKey === 'string') return `topic ${JSON.stringify(topicKey)}`
    return undefined
  }
  if (!Array.isArray(to)) return one(to) ?? ''
  const named = to.slice(0, RECIPIENTS_NAMED).map((recipient) => one(recipient) ?? '?')
  const more = to.length - named.length
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ')
}

/** An object's fields, read without trusting it to be one. */
function eventFields(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}

/**
 * An event a failure is about, as you can find it again in what you sent: its position, and its
 * `transactionId` and recipients as you gave them. Its payload is left out: a failure is logged.
 */
export interface FailedEvent {
  /**
   * Its position in the list passed to `triggerBulk`, or in the source of `triggerStream`: counted
   * from 0 over the whole list or source, whichever request it was in.
   */
  index: number
  /** Its `transactionId`, when it had one. */
  transactionId?: string
  /** Its `to`, as given (anything, for an event refused before sending because of it). */
  to: unknown
}

/**
 * The event at `index` as a failure names it.
 * @internal
 */
export function failedEvent(event: unknown, index: number): FailedEvent {
  const { transactionId, to } = eventFields(event)
  return typeof transactionId === 'string' ? { index, transactionId, to } : { index, to }
}

/**
 * Events of a bulk call or a stream that were not sent, or not confirmed: one event refused before
 * sending (`error` is a `RequestValidationError`), one event the server answered as not sent
 * (`error` is a `TriggerNotSentError`), or the events of a request that failed (`error` is why it
 * failed; the server may or may not have applied it).
 */
export interface BulkChunkFailure {
  /** Position of the request among the call's requests (events 0–99 are chunk 0). */
  chunkIndex: number
  /**
   * Positions, in the caller's list or source, of the events this failure is about: the one event
   * refused or not sent, or every event of a failed request (those refused apart).
   */
  eventIndexes: number[]
  /** The same events, each with its `transactionId` and `to` as given, in the same order. */
  events: FailedEvent[]
  /**
   * Why. A `RequestValidationError` means the event was refused before sending, and nothing of it
   * went out: its `issues` paths start with the event's position; fix it and send it again. A
   * `TriggerNotSentError` means the server answered and sent nothing for that event: the same call
   * again replays that answer, so fix the cause and send the event under a new key. Any other error
   * means the request failed: the same call with the same key sends it again safely, unless the
   * server recorded the error for the chunk's key (an `IdempotencyReplayError`, or an `ApiError` that
   * echoes the `idempotency-key` header, which the client does not retry): that key only replays it,
   * so send those events under a new key, with their own `transactionId`s, which the server ignores
   * if it has seen them.
   */
  error: NotifyKitError
}

/**
 * Some events of a `triggerBulk` call (or of one request of a `triggerStream`) were not sent.
 * `results` holds, at each event's position, the server's result for every event it sent
 * (`undefined` for the others); `failures` names every other event and why.
 */
export class BulkTriggerError extends NotifyKitError {
  override name = 'BulkTriggerError'
  /** @internal */
  static override readonly [CODE] = 'NOTIFYKIT_BULK_TRIGGER' as const
  declare readonly code: 'NOTIFYKIT_BULK_TRIGGER'
  // Not a type parameter: `error instanceof BulkTriggerError` would then type `results` as `any[]`.
  declare readonly results: (TriggerResult | undefined)[]
  declare readonly failures: BulkChunkFailure[]

  constructor(results: (TriggerResult | undefined)[], failures: BulkChunkFailure[]) {
    super(bulkFailureMessage(results.length, failures), { cause: failures[0]?.error })
    this.results = results
    this.failures = failures
  }
}

function bulkFailureMessage(total: number, failures: BulkChunkFailure[]): string {
  const refused = failures.filter((failure) => failure.error instanceof RequestValidationError)
  const notSent = failures.filter((failure) => failure.error instanceof TriggerNotSentError)
  const requests = failures.filter(
    (failure) =>
      !(failure.error instanceof TriggerNotSentError || failure.error instanceof RequestValidationError),
  )
  const events = (some: BulkChunkFailure[]) =>
    some.reduce((sum, failure) => sum + failure.eventIndexes.length, 0)
  const parts: string[] = []
  if (refused.length > 0) {
    parts.push(
      `${events(refused)} of ${total} events were refused before sending (first: ${refused[0]?.error.message})`,
    )
  }
  if (notSent.length > 0) {
    parts.push(`${events(notSent)} of ${total} events were not sent (first: ${notSent[0]?.error.message})`)
  }
  if (requests.length > 0) {
    const plural = requests.length === 1 ? '' : 's'
    parts.push(
      `${events(requests)} of ${total} events were not confirmed (${requests.length} failed request${plural}; first: ${requests[0]?.error.message})`,
    )
  }
  return parts.join('; ')
}
