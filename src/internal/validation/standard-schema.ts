import { type Parsable, safeParse } from './parse.js'
/**
 * The part of Standard Schema v1 (https://standardschema.dev) that notifykit reads: the interface
 * zod 3.24+, zod 4 (classic and mini), valibot, arktype and others implement, so a `workflows` map
 * may hold schemas of any of them. Declared here rather than imported from `@standard-schema/spec`,
 * as the spec invites, so that the package's types need no dependency: any schema that implements
 * the spec fits this subset of it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    /** May return a Promise (async refinements): such a schema is refused, see `validateSync`. */
    readonly validate: (value: unknown) => StandardResult | Promise<StandardResult>
    /** Types only: never present at runtime. */
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
  }
}

/** The input type of a schema: what notifykit sends, since a payload is checked, never transformed. */
export type InferInput<Schema> = Schema extends StandardSchemaV1<infer Input> ? Input : never

interface StandardResult {
  /** Absent, or `undefined`, when the value is valid. */
  readonly issues?: readonly StandardIssue[] | undefined
}

interface StandardIssue {
  readonly message: string
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined
}

/** Whether a value carries the Standard Schema v1 properties (arktype's types are functions). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null | undefined)?.[
    '~standard'
  ]
  return props?.version === 1 && typeof props.validate === 'function'
}

/** A problem a schema found: where (symbol keys dropped: they never reach JSON) and what. */
export interface SchemaIssue {
  path: (string | number)[]
  message: string
}

/**
 * Runs a schema synchronously. A payload is checked before anything is sent, in the same step as the
 * rest of the request, so a schema that answers with a Promise (an async refinement) is refused
 * rather than awaited; so is a schema that throws. Either way the answer is an issue, never a crash.
 */
export function validateSync(schema: StandardSchemaV1, value: unknown): SchemaIssue[] {
  let result: StandardResult | Promise<StandardResult>
  try {
    result = schema['~standard'].validate(value)
  } catch (error) {
    return [{ path: [], message: `the schema could not check it: ${(error as Error)?.message ?? error}` }]
  }
  if (typeof (result as Partial<Promise<unknown>>).then === 'function') {
    // Its outcome is never used: a rejection must not surface as an unhandled one.
    ;(result as Promise<unknown>).then(undefined, () => {})
    return [{ path: [], message: 'the schema is asynchronous; payload schemas must check synchronously' }]
  }
  let issues = (result as StandardResult).issues
  // zod 4's own `validate` passes no parse parameters, so with zod/mini and no locale loaded its
  // messages read "Invalid input"; its `safeParse` takes them, and the SDK's messages stay English.
  // zod 3's `safeParse` ignores them: its messages are English already.
  if (issues && schema['~standard'].vendor === 'zod' && isParsable(schema)) {
    const parsed = safeParse(schema, value) as { error?: { issues: readonly StandardIssue[] } }
    issues = parsed.error?.issues ?? issues
  }
  return (issues ?? []).map((issue) => ({
    path: (issue.path ?? [])
      .map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment))
      .filter((key): key is string | number => typeof key !== 'symbol'),
    message: issue.message,
  }))
}

function isParsable(schema: object): schema is StandardSchemaV1 & Parsable {
  return typeof (schema as Partial<Parsable>).safeParse === 'function'
}
