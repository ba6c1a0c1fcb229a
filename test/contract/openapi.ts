import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'

/**
 * The service's published OpenAPI document (the nine operations notifykit implements and every
 * component they use), vendored unchanged in `./reference/`, compiled with ajv. The contract tests
 * read only this copy.
 */

export const DOCUMENT_FILE = new URL('./reference/novu-openapi-3.18.1-nine-operations.json', import.meta.url)

const documentBytes = readFileSync(DOCUMENT_FILE)

/** The vendored file's SHA-256, to check it stays byte-identical to the published one. */
export const DOCUMENT_SHA256 = createHash('sha256').update(documentBytes).digest('hex')

/** A parameter of an operation, as the document declares it. */
export interface OpenApiParameter {
  name: string
  in: 'query' | 'path' | 'header' | 'cookie'
  required?: boolean
  schema?: SchemaObject
}

export interface OpenApiOperation {
  operationId: string
  parameters?: OpenApiParameter[]
  requestBody?: { content?: Record<string, { schema?: SchemaObject }> }
  responses: Record<string, { content?: Record<string, { schema?: SchemaObject }> }>
}

export interface OpenApiDocument {
  openapi: string
  info: { version: string; license?: { name: string; url?: string }; [key: string]: unknown }
  paths: Record<string, Record<string, OpenApiOperation>>
  components: { schemas: Record<string, SchemaObject>; [key: string]: unknown }
}

export const openApiDocument = JSON.parse(documentBytes.toString('utf8')) as OpenApiDocument

/** The document's operationId of each SDK method, the nine operations notifykit implements. */
export const OPERATION_IDS = {
  'subscribers.preferences.update': 'SubscribersController_updateSubscriberPreferences',
  'subscribers.messages.markAll': 'SubscribersV1Controller_markAllUnreadAsRead',
  'events.trigger': 'EventsController_trigger',
  'events.cancel': 'EventsController_cancel',
  'notifications.get': 'NotificationsController_getNotification',
  'events.triggerBulk': 'EventsController_triggerBulk',
  'events.broadcast': 'EventsController_broadcastEventToAll',
  'notifications.list': 'NotificationsController_listNotifications',
  'subscribers.preferences.get': 'SubscribersController_getSubscriberPreferences',
} as const

export type SdkOperation = keyof typeof OPERATION_IDS
export type OperationId = (typeof OPERATION_IDS)[SdkOperation]

export interface OperationLocation {
  operationId: string
  /** Upper case. */
  method: string
  /** The path template, e.g. `/v1/events/trigger/{transactionId}`. */
  path: string
  operation: OpenApiOperation
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

const operations: OperationLocation[] = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.has(method))
    .map(([method, operation]) => ({
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path,
      operation,
    })),
)

/** The operation with that operationId; throws when the document has none. */
export function operationOf(operationId: string): OperationLocation {
  const found = operations.find((candidate) => candidate.operationId === operationId)
  if (!found) throw new Error(`The OpenAPI document has no operation ${operationId}`)
  return found
}

/** Every operation of the document. */
export function allOperations(): readonly OperationLocation[] {
  return operations
}

/**
 * The operation a request is for: its method and its URL path (percent-encoded, as sent) matched
 * against the document's path templates; a literal segment wins over a parameter, as servers route.
 */
export function operationForRequest(method: string, pathname: string): OperationLocation | undefined {
  const segments = pathname.split('/')
  const matches = operations.filter((candidate) => {
    if (candidate.method !== method.toUpperCase()) return false
    const parts = candidate.path.split('/')
    return (
      parts.length === segments.length &&
      parts.every((part, i) => (isParameter(part) ? (segments[i] ?? '') !== '' : part === segments[i]))
    )
  })
  const literalSegments = (candidate: OperationLocation) =>
    candidate.path.split('/').filter((part) => !isParameter(part)).length
  return matches.sort((a, b) => literalSegments(b) - literalSegments(a))[0]
}

function isParameter(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}')
}

// --- ajv ---------------------------------------------------------------------------------------

const DOCUMENT_ID = 'openapi.json'

/**
 * The keywords ajv must take as annotations (they validate nothing): those OpenAPI 3.0 schemas carry
 * and JSON Schema does not know, `example` and the vendor extensions (`x-…`) found in the document,
 * and the document's own top-level fields (`openapi`, `info`, `paths`, `components`), since ajv
 * compiles the root of a registered schema when a reference into it is first resolved. Declared one by
 * one so ajv stays strict about every other unknown keyword: a typo such as `requred` fails the compile.
 */
function annotationKeywords(document: OpenApiDocument): string[] {
  const found = new Set<string>(['example', ...Object.keys(document)])
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk)
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (key.startsWith('x-')) found.add(key)
        walk(child)
      }
    }
  }
  walk(document.components)
  walk(document.paths)
  return [...found]
}

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv

function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    // Type strictness asks for a `type` beside every type-specific keyword, which is style, not
    // meaning: the document has `additionalProperties` without `type: object` (the `overrides` of
    // TriggerEventToAllRequestDto), and ajv validates it the same either way.
    strictTypes: false,
    keywords: annotationKeywords(openApiDocument),
  })
  addFormats(ajv)
  // Registered whole, so `#/components/schemas/X` inside any schema resolves against the document.
  ajv.addSchema(openApiDocument as unknown as SchemaObject, DOCUMENT_ID)
  return ajv
}

const ajv = createAjv()

/** One problem ajv found: where (a JSON pointer into the value, `''` for the root) and what. */
export interface SchemaProblem {
  instancePath: string
  message: string
}

/** A compiled schema of the document, with readable errors. */
export interface SchemaValidator {
  /** JSON pointer of the schema inside the document, e.g. `#/paths/~1v1~1events~1trigger/post/…`. */
  readonly pointer: string
  /** The schema as the document writes it. */
  readonly schema: SchemaObject
  /** The problems of `value`, `[]` when it conforms. */
  problemsOf(value: unknown): SchemaProblem[]
  /** The problems as lines `"<instancePath> <message>"` (`/` for the root), `[]` when it conforms. */
  errorsOf(value: unknown): string[]
}

const compiled = new Map<string, ValidateFunction>()

function validatorAt(pointer: string, schema: SchemaObject): SchemaValidator {
  let validate = compiled.get(pointer)
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` })
    compiled.set(pointer, validate)
  }
  const run = validate
  const problemsOf = (value: unknown): SchemaProblem[] =>
    run(value)
      ? []
      : (run.errors ?? []).map((error) => ({ instancePath: error.instancePath, message: describe(error) }))
  return {
    pointer,
    schema,
    problemsOf,
    errorsOf: (value) => problemsOf(value).map(formatProblem),
  }
}

/** `"<instancePath> <message>"`, `/` standing for the root. */
export function formatProblem(problem: SchemaProblem): string {
  return `${problem.instancePath || '/'} ${problem.message}`
}

/** ajv's message, with the parameter that makes it actionable where the message leaves it out. */
function describe(error: ErrorObject): string {
  const message = error.message ?? error.keyword
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'enum') return `${message}: ${JSON.stringify(params.allowedValues)}`
  if (error.keyword === 'additionalProperties')
    return `${message}: ${JSON.stringify(params.additionalProperty)}`
  if (error.keyword === 'oneOf' && params.passingSchemas != null) {
    return `${message} (matches branches ${JSON.stringify(params.passingSchemas)})`
  }
  return message
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1')
}

function operationPointer(location: OperationLocation): string {
  return `#/paths/${escapePointer(location.path)}/${location.method.toLowerCase()}`
}

const JSON_MEDIA_TYPE = 'application/json'

/** Whether the operation declares a request body at all. */
export function hasRequestBody(operationId: string): boolean {
  return operationOf(operationId).operation.requestBody !== undefined
}

/** The validator of the operation's `application/json` request body; throws when it declares none. */
export function requestSchemaOf(operationId: string): SchemaValidator {
  const location = operationOf(operationId)
  const schema = location.operation.requestBody?.content?.[JSON_MEDIA_TYPE]?.schema
  if (!schema) throw new Error(`${operationId} declares no ${JSON_MEDIA_TYPE} request body`)
  return validatorAt(
    `${operationPointer(location)}/requestBody/content/${escapePointer(JSON_MEDIA_TYPE)}/schema`,
    schema,
  )
}

/** The statuses the operation documents. */
export function documentedStatuses(operationId: string): number[] {
  return Object.keys(operationOf(operationId).operation.responses).map(Number)
}

/**
 * The validator of the operation's `application/json` response body for `status` (the body as the
 * document writes it: without the server's `{ data }` envelope); throws when that status is not
 * documented.
 */
export function responseSchemaOf(operationId: string, status: number): SchemaValidator {
  const location = operationOf(operationId)
  const response = location.operation.responses[String(status)]
  if (!response) {
    throw new Error(
      `${operationId} documents no ${status} response (documented: ${documentedStatuses(operationId).join(', ')})`,
    )
  }
  const schema = response.content?.[JSON_MEDIA_TYPE]?.schema
  if (!schema) throw new Error(`${operationId} ${status} declares no ${JSON_MEDIA_TYPE} body`)
  return validatorAt(
    `${operationPointer(location)}/responses/${status}/content/${escapePointer(JSON_MEDIA_TYPE)}/schema`,
    schema,
  )
}

/**
 * The problems of a query string (`?a=1&b=x&b=y`, as sent) against the operation's query parameters:
 * a key the operation does not declare, and each value against its parameter's schema, read as the
 * server's query parser reads it: a key repeated or declared as an array is a list, a number
 * parameter is the number its text spells. Instance paths are `/<name>` (`/<name>/<i>` in a list).
 */
export function queryProblems(operationId: string, search: string): SchemaProblem[] {
  const location = operationOf(operationId)
  const declared = (location.operation.parameters ?? []).map((parameter, index) => ({ parameter, index }))
  const params = new URLSearchParams(search)
  const problems: SchemaProblem[] = []
  for (const name of new Set(params.keys())) {
    const found = declared.find(({ parameter }) => parameter.in === 'query' && parameter.name === name)
    if (!found?.parameter.schema) {
      problems.push({
        instancePath: `/${escapePointer(name)}`,
        message: 'is not a query parameter of the operation',
      })
      continue
    }
    const { parameter, index } = found
    const schema = parameter.schema as SchemaObject
    const texts = params.getAll(name)
    const value =
      schema.type === 'array' || texts.length > 1
        ? texts
        : schema.type === 'number' || schema.type === 'integer'
          ? Number(texts[0])
          : texts[0]
    const validator = validatorAt(`${operationPointer(location)}/parameters/${index}/schema`, schema)
    for (const problem of validator.problemsOf(value)) {
      problems.push({
        instancePath: `/${escapePointer(name)}${problem.instancePath}`,
        message: problem.message,
      })
    }
  }
  return problems
}

/** The success statuses (2xx) the operation documents. */
export function successStatusesOf(operationId: string): number[] {
  return documentedStatuses(operationId).filter((status) => status >= 200 && status < 300)
}

/** A component schema by name, e.g. `componentSchema('SubscriberPayloadDto')`. */
export function componentSchema(name: string): SchemaObject {
  const schema = openApiDocument.components.schemas[name]
  if (!schema) throw new Error(`The OpenAPI document has no component schema ${name}`)
  return schema
}

/** The component a local `$ref` (`#/components/schemas/X`) points to. */
export function resolveRef(ref: string): { name: string; schema: SchemaObject } {
  const prefix = '#/components/schemas/'
  if (!ref.startsWith(prefix)) throw new Error(`Only ${prefix}… references are supported, got ${ref}`)
  const name = ref.slice(prefix.length)
  return { name, schema: componentSchema(name) }
}

/** The `{ data }` envelope the server wraps every successful JSON body in, removed. */
export function unwrapData(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('data' in body)) {
    throw new Error(`Expected a { data } envelope, got ${JSON.stringify(body)}`)
  }
  return (body as { data: unknown }).data
}
