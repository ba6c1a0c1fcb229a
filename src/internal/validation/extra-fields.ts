import { invalidRequestOptions } from '../http/headers.js'
import { isPlainObject } from './parse.js'

/**
 * Where a call's `extraFields` go: into the body, into each of its `events` (a bulk request) or into
 * the query string (a read), and the schema of the object they join, whose fields they may not repeat.
 */
export interface ExtraFieldsTarget {
  readonly into: 'body' | 'events' | 'query'
  /** A zod object schema: its `shape` names the fields. */
  readonly schema: { readonly shape: object }
}

/**
 * Refuses `extraFields` that name a field the SDK types: that field belongs in the request, where it
 * is checked; sent from here it would bypass the check and replace what the request says.
 */
export function checkExtraFields(extraFields: unknown, target: ExtraFieldsTarget | undefined): void {
  if (!isPlainObject(extraFields)) {
    throw invalidRequestOptions([{ path: ['extraFields'], message: 'Expected an object of fields to add' }])
  }
  if (!target) {
    throw invalidRequestOptions([
      { path: ['extraFields'], message: 'this request has no body to add fields to' },
    ])
  }
  const known = target.schema.shape
  const repeated = Object.keys(extraFields).filter((key) => Object.hasOwn(known, key))
  if (repeated.length > 0) {
    throw invalidRequestOptions(
      repeated.map((key) => ({
        path: ['extraFields', key],
        message: 'is a field notifykit types: set it in the request, where it is checked',
      })),
    )
  }
}

/** The checked body with `extraFields` added where `target` says; the caller's objects are not changed. */
export function withExtraFields(
  body: unknown,
  extraFields: Readonly<Record<string, unknown>>,
  target: ExtraFieldsTarget,
): unknown {
  const add = (object: unknown) => ({ ...(object as object), ...extraFields })
  if (target.into !== 'events') return add(body)
  const { events, ...rest } = body as { events: readonly unknown[] }
  return { ...rest, events: events.map(add) }
}
