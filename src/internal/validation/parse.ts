import { en } from 'zod/locales'
import { config, type core } from 'zod/mini'
import { didYouMean } from '../text/did-you-mean.js'
import type { Issue } from '../text/messages.js'

// zod as the SDK calls it: a parse whose refusal reads in English, and zod's issues as the SDK's
// errors report them. Only zod's documented API: its parse methods, `config()` and its issue types.

/** zod's English, built at the first refusal rather than at import. */
let english: ReturnType<typeof en>['localeError'] | undefined

/**
 * zod/mini loads no locale, so without one a message a schema does not spell out itself reads
 * "Invalid input". This map gives zod's English instead (as classic zod, which registers English at
 * its first schema, does). The application's own map and locale (`z.config()`) are read at each issue
 * and still win: they are never changed here.
 */
const ENGLISH_UNLESS_CONFIGURED: core.ParseContext<core.$ZodIssue> = {
  error: (issue) => {
    const global = config()
    english ??= en().localeError
    return global.customError?.(issue) ?? global.localeError?.(issue) ?? english(issue)
  },
}

/** What the SDK calls on a schema: zod 4's `safeParse`, classic or mini. */
export interface Parsable {
  safeParse(value: unknown, params?: core.ParseContext<core.$ZodIssue>): { success: boolean }
}

/**
 * `schema.safeParse(value)`, its issues in zod's English when the application loaded no locale.
 * zod copies parse parameters into every parse, so only a parse that failed while no locale is
 * loaded runs again with them; with a locale loaded, the messages are already the ones the
 * parameters would give.
 */
export function safeParse<Schema extends Parsable>(
  schema: Schema,
  value: unknown,
): ReturnType<Schema['safeParse']> {
  const result = schema.safeParse(value)
  if (result.success || config().localeError) return result as ReturnType<Schema['safeParse']>
  return schema.safeParse(value, ENGLISH_UNLESS_CONFIGURED) as ReturnType<Schema['safeParse']>
}

/** The error of a value `schema` refuses, or `undefined` when it passes. */
export function failureOf(schema: Parsable, value: unknown): core.$ZodError | undefined {
  const parsed = safeParse(schema, value) as { success: boolean; error?: core.$ZodError }
  return parsed.success ? undefined : parsed.error
}

/**
 * zod's issues as the SDK reports them, under `prefix`; symbol keys (never in JSON) dropped. A value
 * that matched no member of a union is explained by the member it came closest to (see `explain`).
 * Given the `schema` that refused the value, a key it does not know names the key probably meant.
 */
export function issuesOf(
  error: core.$ZodError,
  prefix: readonly (string | number)[] = [],
  schema?: object,
): Issue[] {
  const issues = error.issues.flatMap((issue) => explain(issue, []))
  return issues.map(({ path, message, keys }) => ({
    path: [...prefix, ...path],
    message: schema && keys ? message + suggestions(keys, knownKeys(schema, path)) : message,
  }))
}

type ZodIssue = core.$ZodIssue
type Explained = Issue & { keys?: readonly string[] }

/**
 * zod reports a value that no member of a union accepts as one `Invalid input`, with each member's
 * own issues kept aside. Those of the member the value has the shape of say which rule it broke
 * (`to.type: must be 'Topic'`; `to: at most 100 recipients, got 101`), so they are reported instead,
 * those of the member with the fewest issues when several have its shape. A value of no member's
 * shape keeps the union's own message, which lists the shapes accepted.
 */
function explain(issue: ZodIssue, prefix: readonly (string | number)[]): Explained[] {
  const path = [...prefix, ...issue.path.filter((key): key is string | number => typeof key !== 'symbol')]
  if (issue.code === 'invalid_union') {
    let closest: ZodIssue[] | undefined
    for (const member of issue.errors) {
      if (isWrongShape(member)) continue
      if (!closest || member.length < closest.length) closest = member
    }
    if (closest) return closest.flatMap((memberIssue) => explain(memberIssue, path))
  }
  if (issue.code === 'unrecognized_keys') return [{ path, message: issue.message, keys: issue.keys }]
  return [{ path, message: issue.message }]
}

/** `; did you mean `payload`?` for one unknown key; `; did you mean `payload` for "payloadd", …?` for several. */
function suggestions(keys: readonly string[], known: readonly string[]): string {
  if (keys.length === 1) return didYouMean(keys[0] as string, known)
  const meant = keys
    .map((key) => ({ key, hint: didYouMean(key, known) }))
    .filter(({ hint }) => hint !== '')
    .map(({ key, hint }) => `${hint.slice('; did you mean '.length, -1)} for ${JSON.stringify(key)}`)
  return meant.length ? `; did you mean ${meant.join(', ')}?` : ''
}

/**
 * The keys of the object schema at `path` under `schema`, read through `.shape`, zod's documented
 * way to an object's fields, as far as it reaches: a field whose schema is a union or an optional
 * object has no shape to give, and then no key is suggested.
 */
function knownKeys(schema: object, path: readonly (string | number)[]): string[] {
  let current: unknown = schema
  for (const step of path) current = shapeOf(current)?.[step]
  return Object.keys(shapeOf(current) ?? {})
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  const shape = (schema as { shape?: unknown } | undefined)?.shape
  return typeof shape === 'object' && shape !== null ? (shape as Record<string, unknown>) : undefined
}

/** The value is not of the member's kind at all (not a string, not an array…). */
function isWrongShape(issues: readonly ZodIssue[]): boolean {
  return issues.some(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === 'invalid_type' || (issue.code === 'invalid_union' && issue.errors.every(isWrongShape))),
  )
}

/**
 * A plain object, the rule `z.record` applies: `{}`, `Object.create(null)`, an object literal from
 * another realm; not an array, a class instance or a live object (a socket, a request).
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const ctor = (value as { constructor?: unknown }).constructor
  if (ctor === undefined || typeof ctor !== 'function') return true
  const prototype: unknown = ctor.prototype
  if (typeof prototype !== 'object' || prototype === null || Array.isArray(prototype)) return false
  return Object.hasOwn(prototype, 'isPrototypeOf')
}
