import type { ZodMiniType } from 'zod/mini'
import type { NotifyKitError } from '../../core/errors.js'
import { type PathTemplate, pathTemplate } from '../http/path.js'
import type { ExtraFieldsTarget } from '../validation/extra-fields.js'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

export type ResultKind = 'object' | 'array' | 'boolean' | 'number'

/**
 * One endpoint, as data: the request core runs the same pipeline for all of them. Adding an
 * endpoint is a schema and an `Operation`, plus a one-line resource method.
 */
export interface Operation<Body, Result> {
  /** Dotted name used in logs and messages, e.g. `events.trigger`. */
  readonly name: string
  readonly method: HttpMethod
  readonly path: PathTemplate
  /** Strict schema of the JSON body; absent for operations without one. */
  readonly body: ZodMiniType<Body> | undefined
  /** Strict schema of the query parameters (an object); absent for operations without them. */
  readonly query: ZodMiniType<unknown> | undefined
  /** Where a call's `extraFields` go; absent for operations with neither a body nor a query. */
  readonly extraFields: ExtraFieldsTarget | undefined
  /** Schema of the unwrapped success payload, checked as `responseValidation` says. */
  readonly result: ZodMiniType<Result>
  /**
   * The kind of value `result` describes. Lenient mode checks every response for it, and a read
   * whose answer is of another kind (an array for a notification) fails, since no one can use it.
   */
  readonly resultKind: ResultKind
  /** Whether `200 {"data": null}` means the record does not exist, as some server versions answer. */
  readonly nullIsNotFound: boolean
  /** Units the request takes from the server's `trigger` rate-limit bucket; 0 outside that bucket. */
  readonly rateLimitCost: number
  /**
   * For a send whose 2xx answer may still say nothing was sent: what the answer says. A method, so
   * that an operation reads as an `Operation<unknown, unknown>` where its result type does not matter.
   */
  verdict?(result: Result): SendVerdict | undefined
}

/**
 * What a 2xx answer of a send says beyond "received": `notSent`, the error the call rejects with,
 * since the server says it sent nothing; `unknownStatus`, a status this version does not know,
 * which is returned as sent (never read as not sent, which would invite sending it again) with a
 * warning. `undefined`: sent.
 */
export interface SendVerdict {
  notSent?: NotifyKitError
  unknownStatus?: string
}

interface OperationDefinition<Body, Result> {
  name: string
  method: HttpMethod
  path: string
  body?: ZodMiniType<Body>
  query?: ZodMiniType<unknown>
  extraFields?: ExtraFieldsTarget
  result: ZodMiniType<Result>
  resultKind: ResultKind
  nullIsNotFound?: boolean
  rateLimitCost?: number
  verdict?: (result: Result) => SendVerdict | undefined
}

export function defineOperation<Body = undefined, Result = unknown>(
  definition: OperationDefinition<Body, Result>,
): Operation<Body, Result> {
  return {
    name: definition.name,
    method: definition.method,
    path: pathTemplate(definition.path),
    body: definition.body,
    query: definition.query,
    extraFields: definition.extraFields,
    result: definition.result,
    resultKind: definition.resultKind,
    nullIsNotFound: definition.nullIsNotFound ?? false,
    rateLimitCost: definition.rateLimitCost ?? 0,
    verdict: definition.verdict,
  }
}

/** POST and PATCH change state, so they carry an idempotency key; the server ignores one elsewhere. */
export function sendsIdempotencyKey(method: HttpMethod): boolean {
  return method === 'POST' || method === 'PATCH'
}
