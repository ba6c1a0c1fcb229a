/**
 * zod for the package as Node loads it from node_modules: loaded the first time a schema is built
 * or a refused value is explained, never at import. Loading zod costs about 60% of what loading
 * undici does, and a fresh serverless instance would pay it before its first call; with the checks
 * generated from the schemas (checks.generated.ts), a call that passes its checks needs no zod.
 *
 * The Node build resolves every `zod/mini` and `zod/locales` import of the sources to this module
 * and its sibling (tsup.config.ts), so that the sources keep zod's own imports and types. Builds for
 * bundlers and other runtimes import zod as usual: a bundler must see the import to include zod.
 *
 * The load is synchronous (`require`), because a schema is built synchronously wherever it is first
 * touched. Node resolves `require` to zod's CommonJS build; an application that imports zod itself
 * has the ES module build too. The two agree: zod recognises its schemas by their traits (so
 * `instanceof`, composition and `z.toJSONSchema` work across them), and keeps its configuration and
 * global registry on `globalThis`.
 * @internal
 */
import { createRequire } from 'node:module'
import type * as Zod from 'zod/mini'

type ZodMini = typeof Zod

/** `require` from the package's own files: zod as the package's dependency resolves. */
export const requireFromHere = createRequire(import.meta.url)
let zod: ZodMini | undefined

/** zod/mini, loaded at the first call. */
export function loadZod(): ZodMini {
  zod ??= requireFromHere('zod/mini') as ZodMini
  return zod
}

type Callable = (...args: unknown[]) => unknown

/** A function of zod/mini that loads zod when it is first called. */
function onDemand<Name extends keyof ZodMini>(name: Name): ZodMini[Name] {
  const call = (...args: unknown[]) => (loadZod()[name] as unknown as Callable)(...args)
  return call as unknown as ZodMini[Name]
}

// What the sources use of zod/mini; the build fails on a name missing here (tsup.config.ts).
export const _default = onDemand('_default')
export const array = onDemand('array')
export const boolean = onDemand('boolean')
export const config = onDemand('config')
export const custom = onDemand('custom')
export const enum_ = onDemand('enum')
export const extend = onDemand('extend')
export const int = onDemand('int')
export const literal = onDemand('literal')
export const looseObject = onDemand('looseObject')
export const maximum = onDemand('maximum')
export const maxLength = onDemand('maxLength')
export const minimum = onDemand('minimum')
export const minLength = onDemand('minLength')
export const nullish = onDemand('nullish')
export const number = onDemand('number')
export const object = onDemand('object')
export const optional = onDemand('optional')
export const pipe = onDemand('pipe')
export const positive = onDemand('positive')
export const record = onDemand('record')
export const regex = onDemand('regex')
export const safeParse = onDemand('safeParse')
export const strictObject = onDemand('strictObject')
export const string = onDemand('string')
export const superRefine = onDemand('superRefine')
export const transform = onDemand('transform')
export const union = onDemand('union')
export const unknown = onDemand('unknown')
export { enum_ as enum }

/** `z.util`, read from zod once it is loaded. */
export const util = new Proxy({} as ZodMini['util'], {
  get: (_, key) => Reflect.get(loadZod().util, key),
})
