import * as z from 'zod/mini'
import { $constructor, type $ZodObjectDef, $ZodObjectJIT, util } from 'zod/v4/core'

// One instance of each common field schema, shared by every table (not exported from the package).
// A zod schema is immutable, so sharing is safe; building one per use made importing the package
// build twice as many schemas, a cost every fresh serverless instance pays.

export const optionalString = z.optional(z.string())
export const nullishString = z.nullish(z.string())
export const optionalBoolean = z.optional(z.boolean())
export const optionalNumber = z.optional(z.number())
export const optionalStringArray = z.optional(z.array(z.string()))

/**
 * zod/mini's objects check their keys in a loop; classic zod's compile a parser for each shape
 * (where the runtime allows `new Function`; elsewhere they fall back to the loop). Compiled, a
 * trigger's request check costs about a quarter as much. These are zod/mini's `strictObject` and
 * `looseObject` on classic's compiled parser: the same schema type and API, the same issues.
 */
type Init = (inst: z.ZodMiniObject, def: $ZodObjectDef) => void
// Typed as plain functions: called as properties, TypeScript refuses their `asserts` signatures.
// Named imports from zod's core (the module zod/mini itself uses), not `z.core.…`: a namespace
// path keeps all of zod's core in a bundle (94 KB instead of 25 for a Worker).
const initCompiledObject: Init = $ZodObjectJIT.init
const initMiniType: Init = z.ZodMiniType.init
const installLazyProp: typeof util.installLazyProp = util.installLazyProp
const ZodMiniObjectJIT = $constructor<z.ZodMiniObject>('ZodMiniObject', (inst, def) => {
  initCompiledObject(inst, def)
  initMiniType(inst, def)
  // As zod/mini's own objects do: on the prototype, so that instances keep V8's fast property layout.
  installLazyProp(inst, 'shape', (self: z.ZodMiniObject) => self._zod.def.shape, false)
})

export const strictObject: typeof z.strictObject = (shape) =>
  new ZodMiniObjectJIT({ type: 'object', shape, catchall: z.never() }) as never

export const looseObject: typeof z.looseObject = (shape) =>
  new ZodMiniObjectJIT({ type: 'object', shape, catchall: z.unknown() }) as never
