import { type core, safeParse, util } from 'zod/mini'
import { generatedCheckOf } from './generated-checks.js'
import { isPlainObject } from './value-rules.js'

/**
 * Whether `value` passes `schema`, with the answer zod's `safeParse(value).success` would give, but
 * without zod's parse where the schema allows: a parse builds a copy of every object and an issue
 * list for every field, and the SDK never uses the copy (what the caller passed is what is sent,
 * what the server answered is what is returned). On a bulk send that copy was three quarters of
 * what the client allocated per event, and every call paid for it in CPU.
 *
 * The check is read off the schema's definition (`schema._zod.def`, typed by `zod/v4/core` for
 * libraries built on zod), so the rules are written once, in the schemas: for the package's own
 * schemas, the definition written out at build time (generated-checks.ts), which needs neither the
 * schema built nor zod loaded; for any other (an application's workflow payload schema), the
 * schema's own, the first time it is used. A part this reader does not know (a transform, a default,
 * a check kind it has no rule for) is left to zod, so the answer never depends on what is supported
 * here, only the speed. A `false` is then explained by zod's parse.
 * @internal
 */
export function conforms(schema: core.$ZodType, value: unknown): boolean {
  let predicate = roots.get(schema)
  if (predicate === undefined) {
    // Compiling a schema itself always gives a predicate: a part it cannot read is zod's to check.
    predicate = fromGeneratedCheck(schema) ?? (predicateOf(schema, LIVE) as Predicate)
    roots.set(schema, predicate)
  }
  return predicate(value)
}

type Predicate = (value: unknown) => boolean

/**
 * How a part this reader has no rule for is decided. Compiling a schema itself, zod checks that part
 * (`safeParse` of it). Compiling a generated check, which holds no schema, the whole check is given
 * up (`undefined`), and compiled from the schema instead.
 */
interface Mode {
  predicates: WeakMap<object, Predicate | null>
  unsupported(schema: core.$ZodType): Predicate | undefined
  /** A part whose answer, for this value, only zod's parse gives (a surrogate, an async refinement). */
  zodDecides(schema: core.$ZodType): Predicate
}

const zodParses =
  (schema: core.$ZodType): Predicate =>
  (value) =>
    safeParse(schema, value).success

const LIVE: Mode = { predicates: new WeakMap(), unsupported: zodParses, zodDecides: zodParses }

const roots = new WeakMap<core.$ZodType, Predicate>()

/** Thrown by a generated check's part that only zod can decide: the whole value goes to zod. */
const ZOD_DECIDES = Symbol('zod decides')
function zodDecidesTheWhole(): boolean {
  throw ZOD_DECIDES
}

/**
 * The check generated from `schema` at build time, compiled without building the schema, so that a
 * value that passes needs no zod at all; `undefined` when there is none, or when it holds a part
 * this reader has no rule for.
 */
function fromGeneratedCheck(schema: core.$ZodType): Predicate | undefined {
  const generated = generatedCheckOf(schema)
  if (generated === undefined) return undefined
  const mode: Mode = {
    predicates: new WeakMap(),
    unsupported: () => undefined,
    zodDecides: () => zodDecidesTheWhole,
  }
  const predicate = predicateOf(generated, mode)
  if (predicate === undefined) return undefined
  return (value) => {
    try {
      return predicate(value)
    } catch (error) {
      if (error === ZOD_DECIDES) return safeParse(schema, value).success
      throw error
    }
  }
}

function predicateOf(schema: core.$ZodType, mode: Mode): Predicate | undefined {
  const known = mode.predicates.get(schema)
  if (known !== undefined) return known ?? undefined
  // A recursive schema meets itself while it is compiled: there, it is a forward reference.
  let predicate: Predicate | undefined
  mode.predicates.set(schema, (value) => (predicate as Predicate)(value))
  predicate = compile(schema, mode) ?? mode.unsupported(schema)
  mode.predicates.set(schema, predicate ?? null)
  return predicate
}

/** The parts of a schema's definition read here; anything else makes the schema zod's to check. */
interface Definition {
  type: string
  checks?: readonly core.$ZodType[]
  coerce?: boolean
  // object
  shape?: Readonly<Record<string, core.$ZodType>>
  catchall?: core.$ZodType
  // array, record, optional, nullable
  element?: core.$ZodType
  keyType?: core.$ZodType
  valueType?: core.$ZodType
  mode?: string
  innerType?: core.$ZodType
  // union
  options?: readonly core.$ZodType[]
  inclusive?: boolean
  discriminator?: string
  // literal, enum
  values?: readonly unknown[]
  entries?: Readonly<Record<string, unknown>>
  // custom
  fn?: (value: unknown) => unknown
}

/** The rule of a check (`schema.check(...)`) as its definition states it. */
interface CheckDefinition {
  check: string
  minimum?: number
  maximum?: number
  value?: unknown
  inclusive?: boolean
  format?: string
  pattern?: RegExp
}

function definitionOf(schema: core.$ZodType): Definition {
  return schema._zod.def as unknown as Definition
}

function compile(schema: core.$ZodType, mode: Mode): Predicate | undefined {
  const def = definitionOf(schema)
  if (def.coerce) return undefined
  const base = compileType(schema, def, mode)
  if (base === undefined) return undefined
  const zodDecides = mode.zodDecides(schema)
  // A schema may be a check itself (`z.int()`; a custom schema, compiled above), run before its own.
  const ownChecks = schema._zod.traits.has('$ZodCheck') && def.type !== 'custom' ? [schema] : []
  const checks: Predicate[] = []
  for (const check of [...ownChecks, ...(def.checks ?? [])]) {
    const rule = compileCheck(check._zod.def as unknown as CheckDefinition, zodDecides)
    if (rule === undefined) return undefined
    checks.push(rule)
  }
  if (checks.length === 0) return base
  return (value) => {
    if (!base(value)) return false
    for (const check of checks) if (!check(value)) return false
    return true
  }
}

function compileType(schema: core.$ZodType, def: Definition, mode: Mode): Predicate | undefined {
  switch (def.type) {
    case 'string':
      return (value) => typeof value === 'string'
    case 'number':
      return (value) => typeof value === 'number' && Number.isFinite(value)
    case 'boolean':
      return (value) => typeof value === 'boolean'
    case 'unknown':
    case 'any':
      return () => true
    case 'never':
      return () => false
    case 'literal': {
      const values = new Set(def.values)
      return (value) => values.has(value)
    }
    case 'enum': {
      if (def.entries === undefined) return undefined
      // zod's own reading of the entries: a TypeScript numeric enum's reverse mappings are not values.
      const values = new Set<unknown>(util.getEnumValues(def.entries as util.EnumLike))
      return (value) => values.has(value)
    }
    case 'optional': {
      if (def.innerType === undefined || def.innerType._zod.optin === 'defaulted') return undefined
      if (!schema._zod.traits.has('$ZodOptional') || schema._zod.traits.has('$ZodExactOptional'))
        return undefined
      const inner = predicateOf(def.innerType, mode)
      if (inner === undefined) return undefined
      return (value) => value === undefined || inner(value)
    }
    case 'nullable': {
      if (def.innerType === undefined) return undefined
      const inner = predicateOf(def.innerType, mode)
      if (inner === undefined) return undefined
      return (value) => value === null || inner(value)
    }
    case 'array': {
      if (def.element === undefined) return undefined
      const element = predicateOf(def.element, mode)
      if (element === undefined) return undefined
      return (value) => {
        if (!Array.isArray(value)) return false
        for (let i = 0; i < value.length; i++) if (!element(value[i])) return false
        return true
      }
    }
    case 'union': {
      // Exclusive and discriminated unions decide differently from "any member passes".
      if (def.options === undefined || def.inclusive === false || def.discriminator !== undefined)
        return undefined
      const members: Predicate[] = []
      for (const option of def.options) {
        const member = predicateOf(option, mode)
        if (member === undefined) return undefined
        members.push(member)
      }
      return (value) => {
        for (const member of members) if (member(value)) return true
        return false
      }
    }
    case 'object':
      return compileObject(def, mode)
    case 'record':
      return compileRecord(def, mode)
    case 'custom': {
      const { fn } = def
      if (fn === undefined) return undefined
      const zodDecides = mode.zodDecides(schema)
      return (value) => {
        const passed = fn(value)
        // An asynchronous refinement is zod's to refuse in a synchronous parse.
        return passed instanceof Promise ? zodDecides(value) : Boolean(passed)
      }
    }
    default:
      return undefined
  }
}

interface Field {
  key: string
  check: Predicate
  /** zod's "optional in and out": an absent key passes whatever its schema says of `undefined`. */
  absentPasses: boolean
  /** No optionality at all: an absent key fails even where its schema accepts `undefined`. */
  presenceRequired: boolean
}

/**
 * zod's object rule: a non-array object; each key of the shape checked as present (`key in value`,
 * inherited too) or absent by its optionality, `__proto__` skipped; then, in a strict object, no
 * enumerable key (inherited too, `for…in`) outside the shape.
 */
function compileObject(def: Definition, mode: Mode): Predicate | undefined {
  const { shape, catchall } = def
  if (shape === undefined || Object.getOwnPropertySymbols(shape).length > 0) return undefined
  const catchallType = catchall === undefined ? 'none' : definitionOf(catchall).type
  if (catchallType !== 'none' && catchallType !== 'never' && catchallType !== 'unknown') return undefined
  const strict = catchallType === 'never'
  const keys = Object.keys(shape)
  const known = new Set(keys)
  const fields: Field[] = []
  for (const key of keys) {
    const field = shape[key]
    if (key === '__proto__' || field === undefined) continue
    const { optin, optout } = field._zod
    const check = predicateOf(field, mode)
    if (check === undefined) return undefined
    fields.push({
      key,
      check,
      absentPasses: optin !== undefined && optout === 'optional',
      presenceRequired: optin === undefined,
    })
  }
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    const object = value as Record<string, unknown>
    for (const field of fields) {
      if (field.key in object) {
        if (!field.check(object[field.key])) return false
      } else if (field.presenceRequired || (!field.absentPasses && !field.check(undefined))) {
        return false
      }
    }
    if (strict) for (const key in object) if (!known.has(key)) return false
    return true
  }
}

/**
 * zod's record rule for string keys: a plain object whose own enumerable keys (symbols too) are
 * strings, `__proto__` aside, and whose values pass. Other key schemas are zod's.
 */
function compileRecord(def: Definition, mode: Mode): Predicate | undefined {
  const { keyType, valueType } = def
  if (keyType === undefined || valueType === undefined || def.mode !== undefined) return undefined
  const keyDef = definitionOf(keyType)
  if (keyDef.type !== 'string' || keyDef.coerce || (keyDef.checks?.length ?? 0) > 0) return undefined
  const element = predicateOf(valueType, mode)
  if (element === undefined) return undefined
  return (value) => {
    if (!isPlainObject(value)) return false
    for (const key of Reflect.ownKeys(value)) {
      if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue
      if (typeof key !== 'string' || !element((value as Record<string, unknown>)[key])) return false
    }
    return true
  }
}

/**
 * zod counts a string's length in code points, which differ from UTF-16 units only where a
 * surrogate is: where the two counts could disagree on the rule, the string is left to zod.
 */
const SURROGATE = /[\uD800-\uDFFF]/

function compileCheck(check: CheckDefinition, zodDecides: Predicate): Predicate | undefined {
  switch (check.check) {
    case 'min_length': {
      const { minimum } = check
      if (minimum === undefined) return undefined
      return (value) => {
        const { length } = value as { length: number }
        if (length < minimum) return false
        // At least one code point per two units: only a short string's count is in doubt.
        if (typeof value !== 'string' || length >= 2 * minimum) return true
        return SURROGATE.test(value) ? zodDecides(value) : true
      }
    }
    case 'max_length': {
      const { maximum } = check
      if (maximum === undefined) return undefined
      return (value) => {
        // At most one code point per unit: only a long string's count is in doubt.
        if ((value as { length: number }).length <= maximum) return true
        return typeof value === 'string' && SURROGATE.test(value) ? zodDecides(value) : false
      }
    }
    case 'greater_than': {
      const { value: bound, inclusive } = check
      if (typeof bound !== 'number') return undefined
      return inclusive ? (value) => (value as number) >= bound : (value) => (value as number) > bound
    }
    case 'less_than': {
      const { value: bound, inclusive } = check
      if (typeof bound !== 'number') return undefined
      return inclusive ? (value) => (value as number) <= bound : (value) => (value as number) < bound
    }
    case 'number_format':
      return check.format === 'safeint' ? (value) => Number.isSafeInteger(value) : undefined
    case 'string_format': {
      const { pattern } = check
      if (check.format !== 'regex' || pattern === undefined) return undefined
      return (value) => {
        pattern.lastIndex = 0
        return pattern.test(value as string)
      }
    }
    default:
      return undefined
  }
}
