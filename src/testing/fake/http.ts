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

/** Extra fields of an error body beyond `statusCode`, `timestamp`, `path`, `message`, `error`. */
export type ErrorExtras = Record<string, unknown>

/** Thrown inside route handlers; the pipeline turns it into the server's error body. */
export class HttpError extends Error {
  readonly status: number
  readonly extras: ErrorExtras
  readonly headers: Record<string, string>
  /** The server's `message` may be a string, an array or an object. */
  readonly detail: unknown

  constructor(
    status: number,
    detail: unknown,
    extras: ErrorExtras = {},
    headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail))
    this.name = 'HttpError'
    this.status = status
    this.detail = detail
    this.extras = extras
    this.headers = headers
  }
}

/** 422 with the server's validation shape: `errors: { <field>: { messages, value? } }`. */
export type FieldErrors = Record<string, { messages: string[]; value?: unknown }>

export function validationError(errors: FieldErrors): HttpError {
  return new HttpError(422, 'Validation Error', { errors })
}

/** The wrapped success body: the server wraps every successful JSON body in `{ data: ... }`. */
export function ok(status: number, data: unknown): Reply {
  return { status, body: { data }, headers: {} }
}

/** The server's error body; never wrapped. */
export function errorReply(
  status: number,
  path: string,
  message: unknown,
  extras: ErrorExtras = {},
  headers: Record<string, string> = {},
): Reply {
  return {
    status,
    body: {
      statusCode: status,
      timestamp: new Date().toISOString(),
      path,
      message,
      error: reasonPhrase(status),
      ...extras,
    },
    headers,
  }
}

export function fromHttpError(error: HttpError, path: string): Reply {
  return errorReply(error.status, path, error.detail, error.extras, error.headers)
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
