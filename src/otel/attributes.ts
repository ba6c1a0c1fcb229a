import { type Attributes, SpanKind, type SpanOptions } from '@opentelemetry/api'
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
export const RETRY_BUDGET_SPENT = 'notifykit.retry.budget_spent'

/**
 * One operation on one service, and the attribute sets its spans and measurements use, each made
 * once: the SDK is handed the same objects call after call, and nothing is built per call.
 */
export class Route {
  /** Where the call went; never a header or a body. */
  readonly attributes: Attributes
  /** `notifykit.operation` alone: the counters' attributes. */
  readonly operation: Attributes
  /** The options of its spans: a request's (CLIENT), a batch's (INTERNAL); never mutated by the SDK. */
  readonly requestOptions: SpanOptions
  readonly batchOptions: SpanOptions
  readonly #byStatus = new Map<number, Attributes>()
  readonly #byError = new Map<string, Attributes>()
  readonly #retries = new Map<string, Attributes>()

  constructor(call: CallInfo) {
    const url = new URL(call.origin)
    this.operation = { [OPERATION]: call.operation }
    this.attributes = {
      [HTTP_REQUEST_METHOD]: call.method,
      [SERVER_ADDRESS]: url.hostname,
      [SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      [URL_TEMPLATE]: call.urlTemplate,
      ...this.operation,
    }
    this.requestOptions = { kind: SpanKind.CLIENT, attributes: this.attributes }
    this.batchOptions = { kind: SpanKind.INTERNAL, attributes: this.attributes }
  }

  /**
   * The route's attributes with the outcome of an attempt, as the convention puts it: the status that
   * came back, and for a failure, `error.type`: the status as a string, or the error class's stable
   * code (`NOTIFYKIT_TIMEOUT`) when no response came back; never a message (an API error's quotes the body).
   */
  outcome(status: number | undefined, error: { code: string } | undefined): Attributes {
    const outcomes = status === undefined ? this.#byError : this.#byStatus
    const key = status ?? error?.code ?? ''
    let attributes = (outcomes as Map<unknown, Attributes>).get(key)
    if (attributes === undefined) {
      attributes = { ...this.attributes }
      if (status !== undefined) attributes[HTTP_RESPONSE_STATUS_CODE] = status
      const errorType = status === undefined ? error?.code : status >= 400 ? String(status) : undefined
      if (errorType !== undefined) attributes[ERROR_TYPE] = errorType
      ;(outcomes as Map<unknown, Attributes>).set(key, attributes)
    }
    return attributes
  }

  /** `notifykit.operation` and `notifykit.retry.reason`: the retries counter's attributes. */
  retry(reason: string): Attributes {
    let attributes = this.#retries.get(reason)
    if (attributes === undefined) {
      attributes = { ...this.operation, [RETRY_REASON]: reason }
      this.#retries.set(reason, attributes)
    }
    return attributes
  }
}

/** The routes seen so far, by service, route and operation: nothing allocated per call to find one. */
export class Routes {
  readonly #routes = new Map<string, Map<string, Map<string, Route>>>()

  of(call: CallInfo): Route {
    const route = this.#routes.get(call.origin)?.get(call.urlTemplate)?.get(call.operation)
    return route ?? this.#add(call)
  }

  #add(call: CallInfo): Route {
    const route = new Route(call)
    const byTemplate = this.#routes.get(call.origin) ?? new Map<string, Map<string, Route>>()
    const byOperation = byTemplate.get(call.urlTemplate) ?? new Map<string, Route>()
    byOperation.set(call.operation, route)
    byTemplate.set(call.urlTemplate, byOperation)
    this.#routes.set(call.origin, byTemplate)
    return route
  }
}
