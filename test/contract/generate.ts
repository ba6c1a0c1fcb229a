import type { SchemaObject } from 'ajv'
import { resolveRef } from './openapi.js'

/**
 * Builds a value from an OpenAPI 3.0 schema of the document, to serve as a response body: the
 * schema's `example` where it gives one, otherwise a value of its type (an enum's first value;
 * oneOf/anyOf: the first branch; allOf: the branches merged). Objects get:
 *
 * - `required`: only their required properties, at every depth;
 * - `top-level`: every property of the outermost object, and only required ones below it (so the
 *   nested objects an optional property brings are present, but sparse);
 * - `every`: every property, at every depth, and one entry in each map (`additionalProperties`);
 * - `nulls`: as `every`, with `null` for each `nullable: true` property.
 *
 * Arrays get one item. A reference already being built higher up (a step's `variants` are steps)
 * gives an empty array instead of recursing.
 */
export type GenerateMode = 'required' | 'top-level' | 'every' | 'nulls'

export const GENERATE_MODES: readonly GenerateMode[] = ['required', 'top-level', 'every', 'nulls']

export function generate(schema: SchemaObject, mode: GenerateMode): unknown {
  return build(schema, { mode, depth: 0, refs: [] })
}

interface Context {
  mode: GenerateMode
  /** Depth of objects: 0 for the outermost. */
  depth: number
  /** The component names being built, outermost first. */
  refs: string[]
}

/** `example`, then the value of the first of these keywords the schema has. */
function build(schema: SchemaObject, context: Context): unknown {
  if (schema.$ref !== undefined) {
    const { name, schema: target } = resolveRef(schema.$ref as string)
    return build(target, { ...context, refs: [...context.refs, name] })
  }
  if (schema.example !== undefined) return structuredClone(schema.example)
  if (Array.isArray(schema.allOf)) return buildAllOf(schema, context)
  const firstBranch = (schema.oneOf ?? schema.anyOf) as SchemaObject[] | undefined
  if (firstBranch?.[0]) return build(firstBranch[0], context)
  if (Array.isArray(schema.enum)) return schema.enum[0]
  switch (schema.type) {
    case 'object':
      return buildObject(schema, context)
    case 'array':
      return buildArray(schema, context)
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 1
    case 'boolean':
      return true
    case undefined:
      // No type: the document's `{}`-like schemas (a free object).
      return {}
    default:
      throw new Error(`Cannot generate a value of type ${JSON.stringify(schema.type)}`)
  }
}

/** The branches merged into one object, the schema's own properties last. */
function buildAllOf(schema: SchemaObject, context: Context): unknown {
  const { allOf, ...own } = schema
  const parts = [...(allOf as SchemaObject[]), own].map((part) => build(part, context))
  const objects = parts.filter((part): part is Record<string, unknown> => isPlainObject(part))
  if (objects.length !== parts.length) {
    // An allOf around a single non-object branch: that branch's value.
    return parts[0]
  }
  return Object.assign({}, ...objects)
}

function buildObject(schema: SchemaObject, context: Context): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, SchemaObject>
  const required = new Set((schema.required ?? []) as string[])
  const everyProperty =
    context.mode === 'every' ||
    context.mode === 'nulls' ||
    (context.mode === 'top-level' && context.depth === 0)
  const inner: Context = { ...context, depth: context.depth + 1 }
  const result: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    if (!required.has(name) && !everyProperty) continue
    result[name] = context.mode === 'nulls' && property.nullable === true ? null : build(property, inner)
  }
  const additional = schema.additionalProperties as SchemaObject | boolean | undefined
  if (Object.keys(properties).length === 0 && (context.mode === 'every' || context.mode === 'nulls')) {
    if (additional === true) result.key = 'value'
    else if (isPlainObject(additional)) result.key = build(additional, inner)
  }
  return result
}

function buildArray(schema: SchemaObject, context: Context): unknown[] {
  const items = schema.items as SchemaObject | undefined
  if (!items) return []
  if (typeof items.$ref === 'string' && context.refs.includes(resolveRef(items.$ref).name)) return []
  return [build(items, context)]
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
