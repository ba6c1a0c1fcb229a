import { reasonPhrase } from './reason-phrases.js'

/**
 * An answer before it becomes a `Response`: kept as data so the idempotency store can replay it and
 * the pipeline can add headers (request id, rate limit) on the way out.
 */
export interface Reply {
  status: number
  /** A JSON value, or a string sent as `text/plain`; `undefined` for no body. */
  body: unknown
  headers: Record<string, string>
}

/** 422 field errors as the server's command checks list them: `{ <field>: { messages, value? } }`. */
export type FieldErrors = Record<string, { messages: string[]; value?: unknown }>

/** The text of the server's 500 body, which carries an `errorId` to quote to support. */
const INTERNAL_ERROR_MESSAGE = 'Internal server error, contact support and provide them with the errorId'

/**
 * An exception as the server's code throws it, one kind per branch of its exception filter:
 * - `http`: a NestJS `HttpException`, with the response it holds (a named one such as
 *   `NotFoundException('…')` holds `{ message, error: <reason phrase>, statusCode }`);
 * - `command`: a command's own check (`Validation failed for <Command>: <field>: <messages>`);
 * - `dto`: the request DTO's checks (the validation pipe's list of messages);
 * - `throttled`: the rate limiter's refusal;
 * - `internal`: anything else, a 500 with an `errorId`.
 */
export type ServerException =
  | { kind: 'http'; status: number; response: string | Record<string, unknown> }
  | { kind: 'command'; command: string; errors: FieldErrors }
  | { kind: 'dto'; messages: string[] }
  | { kind: 'throttled' }
  | {
      kind: 'internal'
      errorId: string /** The fake's own failure, said in place of the server's text. */
      message?: string
    }

/** Thrown inside route handlers; the pipeline turns it into the server's error body. */
export class HttpError extends Error {
  readonly exception: ServerException
  readonly headers: Record<string, string>

  /**
   * A named HTTP exception (`new NotFoundException('Notification not found')` on the server); with
   * an object, an exception holding that response (its `message` and the context beside it); or any
   * kind of {@link ServerException}.
   */
  constructor(
    status: number | ServerException,
    response: string | Record<string, unknown> = '',
    headers: Record<string, string> = {},
  ) {
    const exception: ServerException =
      typeof status !== 'number'
        ? status
        : typeof response === 'string'
          ? {
              kind: 'http',
              status,
              response: { message: response, error: reasonPhrase(status), statusCode: status },
            }
          : { kind: 'http', status, response }
    super(messageOf(exception))
    this.name = 'HttpError'
    this.exception = exception
    this.headers = headers
  }

  get status(): number {
    return statusOf(this.exception)
  }
}

/** A command's check failed: 422, one entry per field, in the order the command checks them. */
export function commandValidationError(command: string, errors: FieldErrors): HttpError {
  return new HttpError({ kind: 'command', command, errors })
}

/** The request DTO's checks failed: 422 `Validation Error` with the pipe's messages. */
export function dtoValidationError(messages: string[]): HttpError {
  return new HttpError({ kind: 'dto', messages })
}

export function statusOf(exception: ServerException): number {
  switch (exception.kind) {
    case 'http':
      return exception.status
    case 'command':
    case 'dto':
      return 422
    case 'throttled':
      return 429
    case 'internal':
      return 500
  }
}

/**
 * The exception's own `message`, as the bulk route copies it into a failed event's `error` list:
 * the command's sentence names the command and every field with its messages.
 */
export function messageOf(exception: ServerException): string {
  switch (exception.kind) {
    case 'http': {
      const { response } = exception
      if (typeof response === 'string') return response
      return typeof response.message === 'string' ? response.message : JSON.stringify(response.message)
    }
    case 'command': {
      const details = Object.entries(exception.errors)
        .map(([field, entry]) => `${field}: ${entry.messages.join(', ')}`)
        .join('; ')
      return `Validation failed for ${exception.command}: ${details}`
    }
    case 'dto':
      return 'Validation Error'
    case 'throttled':
      return 'API rate limit exceeded'
    case 'internal':
      return exception.message ?? INTERNAL_ERROR_MESSAGE
  }
}

/** The wrapped success body: the server wraps every successful JSON body in `{ data: ... }`. */
export function ok(status: number, data: unknown): Reply {
  return { status, body: { data }, headers: {} }
}

/**
 * The server's error body for `exception`, as its exception filter writes it: `statusCode`,
 * `timestamp`, `path`, `message` and `ctx` (the exception's context), with the context's fields also
 * copied to the top level for older clients. Validation failures add `errors`; a 500 has `errorId`
 * and no context. The one place the fake builds an error body.
 */
export function errorReply(
  path: string,
  exception: ServerException,
  headers: Record<string, string> = {},
): Reply {
  const base = (message: unknown, ctx?: Record<string, unknown>) => ({
    ...ctx,
    statusCode: statusOf(exception),
    timestamp: new Date().toISOString(),
    path,
    message,
    ...(ctx === undefined ? {} : { ctx }),
  })
  let body: Record<string, unknown>
  switch (exception.kind) {
    case 'http': {
      const { response, status } = exception
      if (typeof response === 'string') body = base(response)
      else if ('message' in response) {
        const { message, ...ctx } = response
        body = base(message, ctx)
      } else body = base(`Api Exception Raised with status ${status}`, response)
      break
    }
    case 'command':
      body = { ...base(messageOf(exception), {}), errors: exception.errors }
      break
    case 'dto':
      body = {
        ...base('Validation Error', {}),
        errors: { general: { messages: exception.messages, value: 'No Value Recorded' } },
      }
      break
    case 'throttled':
      body = base('API rate limit exceeded', {})
      break
    case 'internal':
      body = { ...base(messageOf(exception)), errorId: exception.errorId }
      break
  }
  return { status: statusOf(exception), body, headers }
}

export function fromHttpError(error: HttpError, path: string): Reply {
  return errorReply(path, error.exception, error.headers)
}

/** Statuses a `Response` may not carry a body with. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304])

export function toResponse(reply: Reply): Response {
  const headers = new Headers(reply.headers)
  let body: string | null = null
  if (NULL_BODY_STATUSES.has(reply.status)) {
    body = null
  } else if (typeof reply.body === 'string') {
    body = reply.body
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain; charset=utf-8')
  } else if (reply.body !== undefined) {
    body = JSON.stringify(reply.body)
    if (!headers.has('content-type')) headers.set('content-type', 'application/json; charset=utf-8')
  }
  return new Response(body, { status: reply.status, statusText: reasonPhrase(reply.status), headers })
}

/** Plain-object test that rejects arrays and null, for request bodies and their fields. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A time zone the runtime knows (an IANA name), as the server's subscriber check and its schedule read it. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}
