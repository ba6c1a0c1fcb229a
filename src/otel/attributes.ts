import type { Attributes } from '@opentelemetry/api'
import type { CallInfo } from '../core/hooks.js'

// Names from the stable HTTP client semantic conventions, written out rather than imported: the
// semantic-conventions package would be a second dependency for a dozen strings.
export const HTTP_REQUEST_METHOD = 'http.request.method'
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code'
export const SERVER_ADDRESS = 'server.address'
export const SERVER_PORT = 'server.port'
export const URL_TEMPLATE = 'url.template'
export const ERROR_TYPE = 'error.type'

export const OPERATION = 'notifykit.operation'
export const ATTEMPTS = 'notifykit.attempts'
export const IDEMPOTENCY_KEY = 'notifykit.idempotency_key'
export const RETRY_REASON = 'notifykit.retry.reason'
export const RETRY_DELAY_MS = 'notifykit.retry.delay_ms'
export const RETRY_ATTEMPT = 'notifykit.retry.attempt'

/** What every span and measurement of a call says about where it went; never a header or a body. */
export function callAttributes(call: CallInfo): Attributes {
  return {
    [HTTP_REQUEST_METHOD]: call.method,
    [SERVER_ADDRESS]: call.serverAddress,
    [SERVER_PORT]: call.serverPort,
    [URL_TEMPLATE]: call.urlTemplate,
    [OPERATION]: call.operation,
  }
}

/** The outcome, as the conventions put it: the status that came back, the kind of error. */
export function outcomeAttributes(
  attributes: Attributes,
  status: number | undefined,
  error: { code: string } | undefined,
): Attributes {
  const outcome = { ...attributes }
  if (status !== undefined) outcome[HTTP_RESPONSE_STATUS_CODE] = status
  // The error class's stable code (`NOTIFYKIT_TIMEOUT`), never its message: an API error's message
  // quotes the response body.
  if (error !== undefined) outcome[ERROR_TYPE] = error.code
  return outcome
}

/** `outcomeAttributes`, kept per route and outcome: a measurement per attempt allocates nothing. */
export class OutcomeAttributes {
  readonly #cache = new WeakMap<Attributes, Map<string, Attributes>>()

  of(route: Attributes, status: number | undefined, error: { code: string } | undefined): Attributes {
    let outcomes = this.#cache.get(route)
    if (outcomes === undefined) {
      outcomes = new Map()
      this.#cache.set(route, outcomes)
    }
    const key = `${status} ${error?.code}`
    let attributes = outcomes.get(key)
    if (attributes === undefined) {
      attributes = outcomeAttributes(route, status, error)
      outcomes.set(key, attributes)
    }
    return attributes
  }
}
