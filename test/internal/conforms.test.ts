import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { core } from 'zod/mini'
import * as z from 'zod/mini'
import { conforms } from '../../src/internal/conforms.js'
import * as schemas from '../../src/schemas/index.js'

// `conforms` must answer exactly as zod's parse does, for every schema the SDK checks with it: a
// `true` zod would refuse lets an invalid request onto the wire. Each schema is fuzzed with values
// built from its own definition (mostly valid, with every way of breaking each part), and each
// answer compared with `safeParse(...).success`.

interface Def {
  type: string
  checks?: readonly core.$ZodType[]
  shape?: Record<string, core.$ZodType>
  catchall?: core.$ZodType
  element?: core.$ZodType
  keyType?: core.$ZodType
  valueType?: core.$ZodType
  innerType?: core.$ZodType
  options?: readonly core.$ZodType[]
  values?: readonly unknown[]
  entries?: Record<string, unknown>
  in?: core.$ZodType
}

const defOf = (schema: core.$ZodType) => schema._zod.def as unknown as Def
const checkDefs = (schema: core.$ZodType) =>
  (defOf(schema).checks ?? []).map((check) => check._zod.def as unknown as Record<string, unknown>)

/** Values of every kind: what a wrong field may hold. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    'x',
    '\uD83D\uDE00',
    '\uD83D',
    0,
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 60,
    true,
    false,
    [],
    {},
    Object.create(null),
    new Date(0),
    () => 1,
    Symbol('s'),
  ),
  fc.anything({ maxDepth: 2 }),
)

/** Strings around a length rule's bounds, surrogate pairs and lone surrogates included. */
function stringNear(schema: core.$ZodType): fc.Arbitrary<string> {
  const bounds = checkDefs(schema).flatMap((check) =>
    [check.minimum, check.maximum].filter((bound): bound is number => typeof bound === 'number'),
  )
  const pattern = checkDefs(schema).find((check) => check.format === 'regex')?.pattern as RegExp | undefined
  const around = bounds.flatMap((bound) => [bound - 1, bound, bound + 1, bound * 2 - 1, bound * 2])
  return fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.string({ unit: 'grapheme', maxLength: 4 }),
    fc.constantFrom('', 'a', '\uD83D\uDE00', '\uD83D', 'a\uD83D\uDE00', '09:30 AM', '13:00 PM'),
    ...(pattern ? [fc.stringMatching(pattern)] : []),
    ...(around.length > 0
      ? [
          fc
            .tuple(fc.constantFrom(...around.filter((n) => n >= 0)), fc.constantFrom('a', '\uD83D\uDE00'))
            .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)),
        ]
      : []),
  )
}

function arrayNear(schema: core.$ZodType, element: fc.Arbitrary<unknown>): fc.Arbitrary<unknown[]> {
  const bounds = checkDefs(schema).flatMap((check) =>
    [check.minimum, check.maximum].filter((bound): bound is number => typeof bound === 'number'),
  )
  const lengths = bounds.flatMap((bound) => [bound - 1, bound, bound + 1]).filter((n) => n >= 0)
  return fc.oneof(
    fc.array(element, { maxLength: 3 }),
    ...(lengths.length > 0
      ? [
          fc
            .tuple(fc.constantFrom(...lengths), element)
            .map(([n, value]) => Array.from({ length: n }, () => value)),
        ]
      : []),
  )
}

/** Schemas being built: a recursive one (a notification's children) stops at its second level. */
const building = new Map<core.$ZodType, number>()

/** Mostly what `schema` accepts, often one part broken. */
function near(schema: core.$ZodType): fc.Arbitrary<unknown> {
  const depth = building.get(schema) ?? 0
  if (depth >= 2) return anyValue
  building.set(schema, depth + 1)
  try {
    return fc.oneof({ weight: 1, arbitrary: anyValue }, { weight: 5, arbitrary: valid(schema) })
  } finally {
    building.set(schema, depth)
  }
}

function valid(schema: core.$ZodType): fc.Arbitrary<unknown> {
  const def = defOf(schema)
  switch (def.type) {
    case 'string':
      return stringNear(schema)
    case 'number':
      return fc.oneof(
        fc.integer({ min: -3, max: 3 }),
        fc.double(),
        fc.constantFrom(0.5, 2 ** 53, 2 ** 53 - 1, 2_147_483_647, 2_147_483_648, -0),
      )
    case 'boolean':
      return fc.boolean()
    case 'literal':
      return fc.constantFrom(...(def.values ?? []))
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}))
    case 'optional':
      return fc.oneof(fc.constant(undefined), near(def.innerType as core.$ZodType))
    case 'nullable':
      return fc.oneof(fc.constant(null), near(def.innerType as core.$ZodType))
    case 'array':
      return arrayNear(schema, near(def.element as core.$ZodType))
    case 'union':
      return fc.oneof(...(def.options ?? []).map(near))
    case 'record':
      return fc.oneof(
        fc.dictionary(fc.string({ maxLength: 3 }), near(def.valueType as core.$ZodType), { maxKeys: 3 }),
        near(def.valueType as core.$ZodType).map((value) => ({ [Symbol('key')]: value })),
        near(def.valueType as core.$ZodType).map((value) =>
          JSON.parse(`{"__proto__": 1, "a": ${JSON.stringify(value) ?? 'null'}}`),
        ),
      )
    case 'object':
      return objectNear(def)
    case 'pipe':
      return near(def.in as core.$ZodType)
    default:
      return anyValue
  }
}

/** Each key present, absent or `undefined`; unknown, inherited and `__proto__` keys; odd containers. */
function objectNear(def: Def): fc.Arbitrary<unknown> {
  const shape = def.shape ?? {}
  const fields = Object.entries(shape).map(([key, field]) =>
    fc.oneof(
      { weight: 6, arbitrary: near(field).map((value) => [[key, value]] as [string, unknown][]) },
      { weight: 1, arbitrary: fc.constant([] as [string, unknown][]) },
      { weight: 1, arbitrary: fc.constant([[key, undefined]] as [string, unknown][]) },
    ),
  )
  const extra = fc.oneof(
    { weight: 8, arbitrary: fc.constant([] as [string, unknown][]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('extra', 'toString', 'constructor'), anyValue)
        .map((entry) => [entry]),
    },
  )
  return fc
    .tuple(
      fc.tuple(...fields),
      extra,
      fc.constantFrom('plain', 'null-prototype', 'inherited', 'proto-key', 'class'),
    )
    .map(([entries, extras, container]) => {
      const pairs = [...entries.flat(), ...extras]
      const own = Object.fromEntries(pairs)
      switch (container) {
        case 'null-prototype':
          return Object.assign(Object.create(null), own)
        case 'inherited': {
          // The first field comes from the prototype: `in` sees it, zod reads it.
          const [first, ...rest] = pairs
          return Object.assign(Object.create(first ? { [first[0]]: first[1] } : {}), Object.fromEntries(rest))
        }
        case 'proto-key':
          return Object.assign(JSON.parse('{"__proto__": {"x": 1}}'), own)
        case 'class':
          return Object.assign(new (class Event {})(), own)
        default:
          return own
      }
    })
}

function agreesWithZod(schema: core.$ZodType, runs: number) {
  fc.assert(
    fc.property(near(schema), (value) => {
      expect(conforms(schema, value)).toBe(z.safeParse(schema, value).success)
    }),
    { numRuns: runs },
  )
}

function isSchema(value: unknown): value is core.$ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value
}

const publicSchemas = Object.entries(schemas as Record<string, unknown>).flatMap(([name, value]) =>
  isSchema(value) ? [[name, value] as [string, core.$ZodType]] : [],
)

describe('conforms answers as zod does', () => {
  // The package's own schemas are checked from the checks generated from them (checks.generated.ts)…
  it.each(publicSchemas)('%s', (_name, schema) => {
    agreesWithZod(schema, 300)
  })

  // …and any other schema (a copy of one of them here) from its own definition.
  it.each(publicSchemas)('%s, read off the schema itself', (_name, schema) => {
    agreesWithZod(z.clone(schema as z.ZodMiniType), 100)
  })

  it.each([
    ['a whole number ≥ 0', z.number().check(z.int(), z.minimum(0))],
    ['a positive number ≤ 10', z.number().check(z.positive(), z.maximum(10))],
    ['z.int() as the schema', z.int()],
    ['an enum', z.enum(['a', 'b'])],
    ['a nullish string of 2 to 3 code points', z.nullish(z.string().check(z.minLength(2), z.maxLength(3)))],
    ['a strip object', z.object({ a: z.string(), b: z.optional(z.number()) })],
    ['a required unknown', z.strictObject({ a: z.unknown() })],
    ['a declared __proto__', z.strictObject({ ['__proto__']: z.optional(z.string()), a: z.string() })],
    ['a record of numbers', z.record(z.string(), z.number())],
    ['a union of objects', z.union([z.strictObject({ a: z.string() }), z.looseObject({ b: z.boolean() })])],
    ['a custom check', z.custom<string>((value) => typeof value === 'string' && value.startsWith('x'))],
    ['a default, left to zod', z.strictObject({ a: z._default(z.string(), 'd') })],
    [
      'a transform, left to zod',
      z.pipe(
        z.string(),
        z.transform((value: string) => value.length),
      ),
    ],
    ['a regex refused as an email format, left to zod', z.email()],
  ] as [string, core.$ZodType][])('%s', (_name, schema) => {
    agreesWithZod(schema, 500)
  })
})

describe('conforms decides without zod where the schema allows', () => {
  it('a valid trigger and its results are checked without a parse', () => {
    const parses: unknown[] = []
    const counting = (schema: core.$ZodType) => {
      const run = schema._zod.run
      schema._zod.run = (payload, context) => {
        parses.push(payload.value)
        return run(payload, context)
      }
      return () => {
        schema._zod.run = run
      }
    }
    const restore = [schemas.TriggerEventRequestSchema, schemas.TriggerResultSchema].map(counting)
    try {
      expect(
        conforms(schemas.TriggerEventRequestSchema, {
          name: 'welcome',
          to: [{ subscriberId: 'u1', email: 'a@b.c' }, 'u2', { type: 'Topic', topicKey: 't' }],
          payload: { a: 1 },
        }),
      ).toBe(true)
      expect(
        conforms(schemas.TriggerResultSchema, { acknowledged: true, status: 'processed', extra: 1 }),
      ).toBe(true)
      expect(parses).toEqual([])
      // A refused value is refused without a parse too; the caller parses it for the issues.
      expect(conforms(schemas.TriggerEventRequestSchema, { name: '', to: 'u1' })).toBe(false)
      expect(parses).toEqual([])
    } finally {
      for (const undo of restore) undo()
    }
  })
})
