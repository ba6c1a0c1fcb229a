import { formatIssues } from '../internal/issues.js'
import { parseRetryAfterMs, requestIdOf } from '../internal/response-headers.js'
import { describeStatus } from '../internal/status-message.js'
import type { TriggerResult } from '../schemas/events.js'

/**
 * Response headers: lower-case names; a header the server repeated is one string, its values joined
 * by `, ` (the Fetch standard's form), whichever transport carried the call.
 */
export type ResponseHeaders = Record<string, string>

/**
 * Stable, machine-readable error codes. Match on `error.code` (or `instanceof`), never on messages.
 */
export type ErrorCode =
  | 'NOTIFYKIT_CONFIGURATION'
  | 'NOTIFYKIT_API'
  | 'NOTIFYKIT_BAD_REQUEST'
  | 'NOTIFYKIT_AUTHENTICATION'
  | 'NOTIFYKIT_PERMISSION_DENIED'
  | 'NOTIFYKIT_NOT_FOUND'
  | 'NOTIFYKIT_CONFLICT'
  | 'NOTIFYKIT_UNPROCESSABLE_ENTITY'
  | 'NOTIFYKIT_RATE_LIMIT'
  | 'NOTIFYKIT_INTERNAL_SERVER'
  | 'NOTIFYKIT_CONNECTION'
  | 'NOTIFYKIT_TIMEOUT'
  | 'NOTIFYKIT_ABORTED'
  | 'NOTIFYKIT_CLIENT_CLOSED'
  | 'NOTIFYKIT_REQUEST_VALIDATION'
  | 'NOTIFYKIT_RESPONSE_VALIDATION'
  | 'NOTIFYKIT_RESPONSE_TOO_LARGE'
  | 'NOTIFYKIT_BULK_TRIGGER'

/** Facts about the call that every error raised by a request carries. */
export interface CallContext {
  /** HTTP method and path of the call (the path holds no secret; the base URL is left out). */
  method?: string
  path?: string
  /** The idempotency key the call sent on every attempt (POST and PATCH). */
  idempotencyKey?: string
  /** How many attempts were made before this error (0 when nothing was sent). */
  attempts?: number
}

/**
 * The root of every error the SDK throws. Catch this to handle any notifykit failure.
 */
export class NotifyKitError extends Error {
  override name = 'NotifyKitError'
  readonly code: ErrorCode = 'NOTIFYKIT_CONFIGURATION'
  method?: string
  path?: string
  idempotencyKey?: string
  attempts = 0

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }

  /** @internal Records where the error happened; called once by the request core. */
  withContext(context: CallContext): this {
    if (context.method !== undefined) this.method = context.method
    if (context.path !== undefined) this.path = context.path
    if (context.idempotencyKey !== undefined) this.idempotencyKey = context.idempotencyKey
    if (context.attempts !== undefined) this.attempts = context.attempts
    return this
  }
}

/** The server answered with a non-2xx status. Subclasses name the status family. */
export class ApiError extends NotifyKitError {
  override name = 'ApiError'
  override readonly code: ErrorCode = 'NOTIFYKIT_API'
  /** The HTTP status code. */
  readonly status: number
  /** The response headers, as received. */
  readonly headers: ResponseHeaders
  /** The parsed JSON error body, or the raw text when it was not JSON (an HTML page from a proxy). */
  readonly body: unknown
  /** The server's request id (`x-request-id` or `request-id`), to quote to support. */
  readonly requestId: string | undefined
  /** The wait the server asked for (`retry-after-ms`, `Retry-After` in seconds or as a date), if any. */
  readonly retryAfterMs: number | undefined

  constructor(status: number, body: unknown, headers: ResponseHeaders, message?: string) {
    super(message ?? describeStatus(status, body))
    this.status = status
    this.body = body
    this.headers = headers
    this.requestId = requestIdOf(headers)
    this.retryAfterMs = parseRetryAfterMs(headers)
  }

  /**
   * Builds the subclass that matches the status.
   * @example
   * ```ts
   * const error = ApiError.fromResponse(429, { message: 'slow down' }, { 'retry-after': '2' })
   * error instanceof RateLimitError // true; error.retryAfterMs === 2000
   * ```
   */
  static fromResponse(status: number, body: unknown, headers: ResponseHeaders): ApiError {
    const ErrorClass = errorClassForStatus(status)
    return new ErrorClass(status, body, headers)
  }
}

/** 400: the server rejected the request (for example a payload that failed the workflow's schema). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError'
  override readonly code: ErrorCode = 'NOTIFYKIT_BAD_REQUEST'
}

/** 401: the API key is missing, malformed or wrong. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError'
  override readonly code: ErrorCode = 'NOTIFYKIT_AUTHENTICATION'
}

/** 403: the key is valid but may not do this. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError'
  override readonly code: ErrorCode = 'NOTIFYKIT_PERMISSION_DENIED'
}

/** 404, or a `200 {"data": null}` where a record was expected. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError'
  override readonly code: ErrorCode = 'NOTIFYKIT_NOT_FOUND'
}

/** 409: for example the same idempotency key while the first request is still running. */
export class ConflictError extends ApiError {
  override name = 'ConflictError'
  override readonly code: ErrorCode = 'NOTIFYKIT_CONFLICT'
}

/** 422: validation failed on the server, the workflow was not found, or a key was reused with another body. */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError'
  override readonly code: ErrorCode = 'NOTIFYKIT_UNPROCESSABLE_ENTITY'
}

/** 429: over the rate limit. `retryAfterMs` says how long the server asked to wait. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError'
  override readonly code: ErrorCode = 'NOTIFYKIT_RATE_LIMIT'
}

/** 5xx: the server or a proxy in front of it failed. */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError'
  override readonly code: ErrorCode = 'NOTIFYKIT_INTERNAL_SERVER'
}

/** No response was received: refused, reset, DNS failure, a dropped socket. `cause` has the detail. */
export class ConnectionError extends NotifyKitError {
  override name = 'ConnectionError'
  override readonly code: ErrorCode = 'NOTIFYKIT_CONNECTION'
  /** Whether the response's status and headers had arrived before the connection failed. */
  responseStarted = false
}

/** An attempt ran past `timeoutMs`, or the whole call past `deadlineMs`. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError'
  override readonly code: ErrorCode = 'NOTIFYKIT_TIMEOUT'
}

/** The caller's `signal` fired. `cause` is the signal's reason. */
export class AbortError extends NotifyKitError {
  override name = 'AbortError'
  override readonly code: ErrorCode = 'NOTIFYKIT_ABORTED'
}

/**
 * The call was made on a client after `close()` (or on one derived from it with `withOptions`). It is
 * never retried: the client will not send again, whatever the transport.
 */
export class ClientClosedError extends NotifyKitError {
  override name = 'ClientClosedError'
  override readonly code: ErrorCode = 'NOTIFYKIT_CLIENT_CLOSED'

  constructor() {
    super('The client was closed: create a new NotificationClient to send again')
  }
}

/** The response body ran past `maxResponseBytes`; the rest was not read and the socket was released. */
export class ResponseTooLargeError extends NotifyKitError {
  override name = 'ResponseTooLargeError'
  override readonly code: ErrorCode = 'NOTIFYKIT_RESPONSE_TOO_LARGE'
  readonly limitBytes: number

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
  override readonly code: ErrorCode = 'NOTIFYKIT_REQUEST_VALIDATION'
  readonly issues: ValidationIssue[]

  constructor(issues: ValidationIssue[], prefix = 'Invalid request') {
    super(`${prefix}: ${formatIssues(issues)}`)
    this.issues = issues
  }
}

/** The response did not match its schema and `responseValidation` is `'strict'`. `body` is the raw text. */
export class ResponseValidationError extends NotifyKitError {
  override name = 'ResponseValidationError'
  override readonly code: ErrorCode = 'NOTIFYKIT_RESPONSE_VALIDATION'
  readonly status: number
  readonly body: string
  readonly issues: ValidationIssue[]

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

function errorClassForStatus(status: number): ApiErrorClass {
  switch (status) {
    case 400:
      return BadRequestError
    case 401:
      return AuthenticationError
    case 403:
      return PermissionDeniedError
    case 404:
      return NotFoundError
    case 409:
      return ConflictError
    case 422:
      return UnprocessableEntityError
    case 429:
      return RateLimitError
    default:
      return status >= 500 ? InternalServerError : ApiError
  }
}

/** One bulk request that still failed after its retries. */
export interface BulkChunkFailure {
  /** Position of the request among the bulk call's requests (events 0–99 are chunk 0). */
  chunkIndex: number
  /** Positions, in the caller's list, of the events that request carried: send exactly these again. */
  eventIndexes: number[]
  /** Why the request failed. */
  error: NotifyKitError
}

/**
 * Some requests of a `triggerBulk` call failed. `results` holds, at each event's position, the
 * server's result for every event whose request succeeded (`undefined` for the others); `failures`
 * names the events that were not confirmed.
 */
export class BulkTriggerError extends NotifyKitError {
  override name = 'BulkTriggerError'
  override readonly code: ErrorCode = 'NOTIFYKIT_BULK_TRIGGER'
  // Not a type parameter: `error instanceof BulkTriggerError` would then type `results` as `any[]`.
  readonly results: (TriggerResult | undefined)[]
  readonly failures: BulkChunkFailure[]

  constructor(results: (TriggerResult | undefined)[], failures: BulkChunkFailure[]) {
    const failed = failures.reduce((count, failure) => count + failure.eventIndexes.length, 0)
    super(
      `${failed} of ${results.length} events were not confirmed (${failures.length} failed request${failures.length === 1 ? '' : 's'}; first: ${failures[0]?.error.message})`,
      { cause: failures[0]?.error },
    )
    this.results = results
    this.failures = failures
  }
}
