import { type BodyIssue, errorIdOfBody } from './error-body.js'

// How the SDK quotes what it did not write (a server's error body, a schema's issues) in its own
// error messages: cut to a line, never the whole of it.

/**
 * How much of a server's text an error message quotes: enough for the server's own words, while a
 * whole HTML error page stays out of the message (the error's `body` keeps all of it).
 */
const MAX_EXCERPT_CHARS = 300

/** The text as an error message quotes it: cut with a note of how much was left out. */
export function excerpt(text: string): string {
  return text.length <= MAX_EXCERPT_CHARS
    ? text
    : `${text.slice(0, MAX_EXCERPT_CHARS)}… (${text.length - MAX_EXCERPT_CHARS} more characters)`
}

/**
 * What to check after a 401, since the server says only "API Key not found". It names where the key
 * came from, never the key.
 */
const AUTHENTICATION_HINT =
  'check the API key: the client sends the apiKey option, or NOTIFYKIT_API_KEY when the option is left out; ' +
  'a key works only in its own environment (a development key is refused by production, and a production key by development) ' +
  'and on its own server (check the base URL)'

/**
 * "422 workflow_not_found", "502 Bad Gateway: <html>…" — the server's words first, cut to a line;
 * then the problems it listed when its words do not already name them (`422 Validation Error: to
 * should not be null or undefined`), the id a 500 asks to quote, and for a 401 what to check.
 */
export function describeStatus(status: number, body: unknown, issues: readonly BodyIssue[] = []): string {
  const detail = messageFromBody(body)
  let described = detail ? `${status} ${excerpt(detail)}` : `${status} status code (no body)`
  const first = issues[0]
  // A command's check and a payload's schema write the problems into the message already.
  if (first && !detail?.includes(first.message)) described += `: ${excerpt(formatIssues(issues))}`
  const errorId = errorIdOfBody(body)
  if (errorId) described += ` (errorId ${errorId})`
  return status === 401 ? `${described}; ${AUTHENTICATION_HINT}` : described
}

function messageFromBody(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined
  if (body === null || typeof body !== 'object') return body === undefined ? undefined : JSON.stringify(body)
  const { message, error } = body as { message?: unknown; error?: unknown }
  if (typeof message === 'string') return message
  if (Array.isArray(message))
    return message.map((item) => (typeof item === 'string' ? item : jsonText(item))).join('; ')
  if (message && typeof message === 'object') return jsonText(message)
  if (typeof error === 'string') return error
  return jsonText(body)
}

// The body is whatever the server sent: `{"toString": 1}` breaks String(), deep nesting breaks
// JSON.stringify; neither may cost the caller the status's error class.
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return '(error body too deeply nested to show)'
  }
}

/**
 * A problem and where it is: the shape of the public `ValidationIssue`, spelled out here because the
 * error classes format their issues with this module and it must not import from theirs.
 */
export interface Issue {
  path: (string | number)[]
  message: string
}

/** `schedule.weeklySchedule.monday: Must be …; to: Required`: each at its path, or alone at the top level. */
export function formatIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ')
}
