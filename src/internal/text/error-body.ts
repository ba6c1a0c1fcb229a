// What a server's error body says, read leniently: its message, the problems it lists and the id
// it asks to quote. The service's exception filter writes its context twice, flattened at the top
// and nested under `ctx`; older servers wrote it once, at the top. Either is read, the top first.

/** One problem the server named in an error body; the public `ApiIssue` has this shape. */
export interface BodyIssue {
  /** Where, from the request body: `['payload', 'orderId']`; empty when the server named no field. */
  path: (string | number)[]
  message: string
  /** The value the server refused, when it said. */
  value?: unknown
  /** For a payload checked against the workflow's schema: the schema rule that failed (`#/required`). */
  schemaPath?: string
}

/**
 * What a DTO refusal puts under `errors.general.value`: no value at all. Left out of the issue,
 * which would otherwise claim the request sent that text.
 */
const NO_VALUE_RECORDED = 'No Value Recorded'

/** The object an error body's context is read from: the body, or its `ctx` where the top lacks it. */
function field(body: unknown, name: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const top = (body as Record<string, unknown>)[name]
  if (top !== undefined) return top
  const ctx = (body as { ctx?: unknown }).ctx
  return ctx !== null && typeof ctx === 'object' ? (ctx as Record<string, unknown>)[name] : undefined
}

/**
 * Every problem an error body lists, in the order the server wrote them:
 * - `errors` keyed by field, each `{ messages, value }`: a command's check
 *   (`errors.payload.messages`), or a DTO's (`errors.general.messages`, no field: the field is in
 *   the message);
 * - `errors` as a list: a payload against the workflow's schema (`{ field: 'root.orderId', message,
 *   value, schemaPath }`, `root` standing for the payload), or a schema's (`{ path, message }`);
 * - `message` as a list of texts (the framework's default refusal, older servers).
 */
export function issuesOfBody(body: unknown): BodyIssue[] {
  const errors = field(body, 'errors')
  if (Array.isArray(errors)) return errors.flatMap(listedIssue)
  if (errors !== null && typeof errors === 'object') {
    const issues: BodyIssue[] = []
    for (const [name, constraint] of Object.entries(errors)) issues.push(...fieldIssues(name, constraint))
    return issues
  }
  const message = field(body, 'message')
  if (Array.isArray(message)) return message.filter((item) => typeof item === 'string').map(atTop)
  return []
}

function atTop(message: string): BodyIssue {
  return { path: [], message }
}

/** `errors.<field>`: its messages, each an issue at the field (`general` is no field). */
function fieldIssues(name: string, constraint: unknown): BodyIssue[] {
  if (constraint === null || typeof constraint !== 'object') {
    return typeof constraint === 'string' ? [{ path: fieldPath(name), message: constraint }] : []
  }
  const { messages, message, value } = constraint as {
    messages?: unknown
    message?: unknown
    value?: unknown
  }
  const texts = Array.isArray(messages) ? messages : [message]
  const general = name === 'general'
  const path = general ? [] : fieldPath(name)
  const hasValue = Object.hasOwn(constraint, 'value') && !(general && value === NO_VALUE_RECORDED)
  return texts
    .filter((text): text is string => typeof text === 'string')
    .map((text) => (hasValue ? { path, message: text, value } : { path, message: text }))
}

/** One item of an `errors` list: a payload-schema error, a schema issue, or a bare text. */
function listedIssue(item: unknown): BodyIssue[] {
  if (typeof item === 'string') return [atTop(item)]
  if (item === null || typeof item !== 'object') return []
  const { field: name, path, message, value, schemaPath } = item as Record<string, unknown>
  if (typeof message !== 'string') return []
  const issue: BodyIssue = {
    path: typeof name === 'string' ? payloadPath(name) : Array.isArray(path) ? path.filter(isKey) : [],
    message,
  }
  if (Object.hasOwn(item, 'value')) issue.value = value
  if (typeof schemaPath === 'string') issue.schemaPath = schemaPath
  return [issue]
}

function isKey(part: unknown): part is string | number {
  return typeof part === 'string' || typeof part === 'number'
}

/** `subscriber.email` → `['subscriber', 'email']`; `to.0` → `['to', 0]`. */
function fieldPath(name: string): (string | number)[] {
  return name.split('.').map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part))
}

/**
 * A payload-schema field names the payload `root` (`root.orderId`, or `root` itself) or starts at
 * one of its fields (`address.city`): either way the path from the request body is under `payload`.
 */
function payloadPath(name: string): (string | number)[] {
  const parts = name === '' ? [] : fieldPath(name)
  return ['payload', ...(parts[0] === 'root' ? parts.slice(1) : parts)]
}

/** The id the service's 500 answer asks to quote to support, when it sent one. */
export function errorIdOfBody(body: unknown): string | undefined {
  const errorId = field(body, 'errorId')
  return typeof errorId === 'string' && errorId !== '' ? errorId : undefined
}
