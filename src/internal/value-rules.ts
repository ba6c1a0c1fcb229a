/**
 * The rules of the schemas' custom checks, as named functions: the checks generated from the schemas
 * (checks.generated.ts) refer to them by name, since a function cannot be written out as data. They
 * use nothing of zod, so that a call whose values pass loads no zod.
 * @internal
 */

/** zod's plain-object test (its records use it): `{}`, `Object.create(null)`, not arrays or class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const ctor = (value as { constructor?: unknown }).constructor
  if (ctor === undefined || typeof ctor !== 'function') return true
  const prototype: unknown = ctor.prototype
  if (typeof prototype !== 'object' || prototype === null || Array.isArray(prototype)) return false
  return Object.hasOwn(prototype, 'isPrototypeOf')
}

export function isString(value: unknown): value is string {
  return typeof value === 'string'
}

export function isFunction(value: unknown): value is (...args: never[]) => unknown {
  return typeof value === 'function'
}

/** Every rule by the name the generated checks use. */
export const VALUE_RULES: Readonly<Record<string, (value: unknown) => boolean>> = {
  isFunction,
  isPlainObject,
  isString,
}
