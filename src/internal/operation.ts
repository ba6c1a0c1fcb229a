import type { ZodMiniType } from 'zod/mini'
import { type PathTemplate, pathTemplate } from './path.js'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

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
  /** Schema of the unwrapped success payload, checked as `responseValidation` says. */
  readonly result: ZodMiniType<Result>
  /** Whether `200 {"data": null}` means the record does not exist, as some server versions answer. */
  readonly nullIsNotFound: boolean
}

interface OperationDefinition<Body, Result> {
  name: string
  method: HttpMethod
  path: string
  body?: ZodMiniType<Body>
  result: ZodMiniType<Result>
  nullIsNotFound?: boolean
}

export function defineOperation<Body = undefined, Result = unknown>(
  definition: OperationDefinition<Body, Result>,
): Operation<Body, Result> {
  return {
    name: definition.name,
    method: definition.method,
    path: pathTemplate(definition.path),
    body: definition.body,
    result: definition.result,
    nullIsNotFound: definition.nullIsNotFound ?? false,
  }
}

/** POST and PATCH change state, so they carry an idempotency key; the server ignores one elsewhere. */
export function sendsIdempotencyKey(method: HttpMethod): boolean {
  return method === 'POST' || method === 'PATCH'
}
