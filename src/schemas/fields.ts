import * as z from 'zod/mini'

// One instance of each common field schema, shared by every table (not exported from the package).
// A zod schema is immutable, so sharing is safe; building one per use made importing the package
// build twice as many schemas, a cost every fresh serverless instance pays.

export const optionalString = z.optional(z.string())
export const nullishString = z.nullish(z.string())
export const optionalBoolean = z.optional(z.boolean())
export const optionalNumber = z.optional(z.number())
export const optionalStringArray = z.optional(z.array(z.string()))
