import * as z from 'zod/mini'
import { deferred } from '../internal/validation/deferred.js'
import { isPlainObject } from '../internal/validation/parse.js'

// One instance of each common field schema, shared by every table (not exported from the package,
// but for JsonObjectSchema, which shared.ts exports).
// A zod schema is immutable, so sharing is safe; building one per use made importing the package
// build twice as many schemas. Built at first use, like the tables that use them.

export const optionalString = deferred(() => z.optional(z.string()))
export const nullishString = deferred(() => z.nullish(z.string()))
export const optionalBoolean = deferred(() => z.optional(z.boolean()))
export const optionalNumber = deferred(() => z.optional(z.number()))
export const optionalStringArray = deferred(() => z.optional(z.array(z.string())))

/**
 * A JSON object with any keys: payloads, overrides, controls. Only the container is checked, the
 * same plain-object test `z.record` makes: walking every key (as `z.record(z.string(), z.unknown())`
 * does, copying each into a new object) costs about as much as `JSON.parse` of a large response,
 * and its copy is never used: requests are sent and results returned exactly as they are.
 */
export const JsonObjectSchema = deferred(() =>
  z.custom<Record<string, unknown>>(isPlainObject, {
    message: 'Expected an object',
  }),
)

export const optionalJsonObject = deferred(() => z.optional(JsonObjectSchema))
