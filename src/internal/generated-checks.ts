import type { core } from 'zod/mini'
import { GENERATED_CHECKS } from './checks.generated.js'
import { VALUE_RULES } from './value-rules.js'

/**
 * The checks generated from the package's own schemas at build time (scripts/generate-checks.ts):
 * each schema's definition, as conforms.ts reads it, written out as data. conforms.ts compiles a
 * check from them without building the schema, so a call whose values pass needs no zod; only a
 * refusal builds the schema, for zod's issues.
 */
export interface GeneratedChecks {
  /** Every part of every schema, once; parts refer to each other by index. */
  readonly nodes: readonly GeneratedNode[]
  /** Each schema with the index of its node. A function, so that it is read after the schemas load. */
  readonly roots: () => ReadonlyArray<readonly [schema: object, node: number]>
}

/** A part's definition (zod's `_zod.def`), with parts as indexes and a custom rule by its name. */
export interface GeneratedNode {
  readonly type: string
  readonly traits?: readonly string[]
  readonly optin?: 'optional' | 'defaulted'
  readonly optout?: 'optional'
  readonly coerce?: boolean
  readonly checks?: readonly GeneratedCheck[]
  readonly shape?: Readonly<Record<string, number>>
  readonly catchall?: number
  readonly element?: number
  readonly keyType?: number
  readonly valueType?: number
  readonly mode?: string
  readonly innerType?: number
  readonly options?: readonly number[]
  readonly inclusive?: boolean
  readonly discriminator?: string
  readonly values?: readonly unknown[]
  /** A custom schema's function, named in value-rules.ts; absent for one that is not there. */
  readonly rule?: string
}

export interface GeneratedCheck {
  readonly check: string
  readonly minimum?: number
  readonly maximum?: number
  readonly value?: unknown
  readonly inclusive?: boolean
  readonly format?: string
  readonly pattern?: RegExp
}

let generatedBySchema: WeakMap<object, core.$ZodType> | undefined

/** The generated check of one of the package's schemas, in the shape of a zod schema's `_zod`. */
export function generatedCheckOf(schema: object): core.$ZodType | undefined {
  generatedBySchema ??= load(GENERATED_CHECKS)
  return generatedBySchema.get(schema)
}

type Reference = 'catchall' | 'element' | 'keyType' | 'valueType' | 'innerType'
const REFERENCES: readonly Reference[] = ['catchall', 'element', 'keyType', 'valueType', 'innerType']

function load(generated: GeneratedChecks): WeakMap<object, core.$ZodType> {
  // Objects first, definitions second: a recursive schema's parts refer to each other.
  const parts = generated.nodes.map((node) => ({
    _zod: {
      def: {} as Record<string, unknown>,
      traits: new Set(node.traits),
      optin: node.optin,
      optout: node.optout,
    },
  }))
  const part = (index: number) => parts[index] as (typeof parts)[number]
  generated.nodes.forEach((node, index) => {
    const { traits: _, optin: __, optout: ___, shape, options, checks, rule, ...plain } = node
    const def = part(index)._zod.def
    Object.assign(def, plain)
    for (const reference of REFERENCES) {
      const target = node[reference]
      if (target !== undefined) def[reference] = part(target)
    }
    if (shape)
      def.shape = Object.fromEntries(Object.entries(shape).map(([key, target]) => [key, part(target)]))
    if (options) def.options = options.map(part)
    if (checks) def.checks = checks.map((check) => ({ _zod: { def: check } }))
    if (rule !== undefined) def.fn = VALUE_RULES[rule]
  })
  const bySchema = new WeakMap<object, core.$ZodType>()
  for (const [schema, index] of generated.roots())
    bySchema.set(schema, part(index) as unknown as core.$ZodType)
  return bySchema
}
