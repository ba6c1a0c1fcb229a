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

let loaded: { nodeOf: WeakMap<object, number>; part: (index: number) => core.$ZodType } | undefined

/** The generated check of one of the package's schemas, in the shape of a zod schema's `_zod`. */
export function generatedCheckOf(schema: object): core.$ZodType | undefined {
  loaded ??= load(GENERATED_CHECKS)
  const index = loaded.nodeOf.get(schema)
  return index === undefined ? undefined : loaded.part(index)
}

/** The fields of a definition that hold one part (the generator writes them as indexes). */
export const REFERENCES = ['catchall', 'element', 'keyType', 'valueType', 'innerType'] as const

/** Parts are made when a check first needs them: a fresh instance's first call reads a few dozen. */
function load(generated: GeneratedChecks) {
  const parts: core.$ZodType[] = []
  const part = (index: number): core.$ZodType => parts[index] ?? make(index)
  const make = (index: number): core.$ZodType => {
    const node = generated.nodes[index] as GeneratedNode
    const { traits, optin, optout, shape, options, checks, rule, ...plain } = node
    const def: Record<string, unknown> = { ...plain }
    const made = { _zod: { def, traits: new Set(traits), optin, optout } } as unknown as core.$ZodType
    // Stored before its parts are made: a recursive schema's parts lead back to it.
    parts[index] = made
    for (const reference of REFERENCES) {
      const target = node[reference]
      if (target !== undefined) def[reference] = part(target)
    }
    if (shape)
      def.shape = Object.fromEntries(Object.entries(shape).map(([key, target]) => [key, part(target)]))
    if (options) def.options = options.map(part)
    if (checks) def.checks = checks.map((check) => ({ _zod: { def: check } }))
    if (rule !== undefined) def.fn = VALUE_RULES[rule]
    return made
  }
  return { nodeOf: new WeakMap(generated.roots()), part }
}
