import { excerpt } from './excerpt.js'

/** "422 workflow_not_found", "502 Bad Gateway: <html>…" — the server's words first, cut to a line. */
export function describeStatus(status: number, body: unknown): string {
  const detail = messageFromBody(body)
  return detail ? `${status} ${excerpt(detail)}` : `${status} status code (no body)`
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
