import * as z from 'zod/mini'
import { deferred } from '../internal/deferred.js'

// One instance of each common field schema, shared by every table (not exported from the package).
// A zod schema is immutable, so sharing is safe; building one per use made importing the package
// build twice as many schemas. Built at first use, like the tables that use them.

export const optionalString = deferred(() => z.optional(z.string()))
export const nullishString = deferred(() => z.nullish(z.string()))
export const optionalBoolean = deferred(() => z.optional(z.boolean()))
export const optionalNumber = deferred(() => z.optional(z.number()))
export const optionalStringArray = deferred(() => z.optional(z.array(z.string())))
