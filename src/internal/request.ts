import type { z } from 'zod'
import { ApiPromise, type WithResponse } from '../core/api-promise.js'
import {
  AbortError,
  ApiError,
  ClientClosedError,
  formatIssue,
  issuesOf,
  NotFoundError,
  NotifyKitError,
  RequestValidationError,
  ResponseValidationError,
  requestIdOf,
  TimeoutError,
  truncate,
} from '../core/errors.js'
import type { RequestOptions, ResponseValidation } from '../core/options.js'
import { checkIdempotencyKey, normalizeHeaders } from './headers.js'
import type { LevelLogger } from './logger.js'
import { type Operation, sendsIdempotencyKey } from './operation.js'
import { buildPath } from './path.js'
import { checkCallLimits, decideRetry } from './retry.js'
import { sleep } from './sleep.js'
import type { Transport, WireRequest, WireResponse } from './transport/types.js'

/** Everything the core needs from the client, resolved once at construction. @internal */
export interface RequestCoreConfig {
  transport: Transport
  /** Closed by the client's `close()`: no attempt is sent after it, whatever the transport. */
  connection: { readonly closed: boolean }
  basePath: string
  /** `ApiKey <key>`: held here only, never logged, never copied into an error. */
  authorization: string
  userAgent: string
  defaultHeaders: Record<string, string>
  timeoutMs: number
  maxRetries: number
  responseValidation: ResponseValidation
  logger: LevelLogger
  logBodies: boolean
}

/**
 * The call-specific inputs of an operation. The body is `unknown` on purpose: whatever the static
 * types said, it is parsed with the operation's strict schema before anything is sent.
 */
export interface CallInput {
  pathParams?: Readonly<Record<string, unknown>>
  body?: unknown
}

const NO_OPTIONS: RequestOptions = {}
const ERROR_TEXT_IN_MESSAGE = 200

/**
 * Lenient mode checks the full schema of the first `FULLY_CHECKED_FIRST` responses of each operation
 * (per client), then of every `FULLY_CHECKED_EVERY`th; every response is still checked for its kind
 * of value. Lenient mode never changes what is returned: it only warns, once per operation, that the
 * server drifted from the documented shape. A server that drifts does so on every response, so
 * sampling finds it within 64 calls, while full validation of a 20 KB notification costs as much
 * CPU as `JSON.parse` of it. Strict mode checks every response; off checks none.
 */
const FULLY_CHECKED_FIRST = 16
const FULLY_CHECKED_EVERY = 64

/**
 * The one pipeline every operation runs through: validate, build, attempt with retries, classify,
 * unwrap, check the result. Resources describe operations; they never touch HTTP.
 * @internal
 */
export class RequestCore {
  readonly #config: RequestCoreConfig
  readonly #baseHeaders: Record<string, string>
  /**
   * The base headers with `content-type` and/or an `idempotency-key` slot already in place: a copy
   * of one is a single clone of a known shape, where adding the keys to a copy changed its shape per
   * call (about 4 µs of a trigger's CPU, profiled in bench/).
   */
  readonly #headerTemplates: readonly Record<string, string>[]
  /** The headers the SDK owns: neither defaultHeaders nor a call's headers replace them. */
  readonly #ownHeaders: Record<string, string>
  readonly #warnedDrift = new Set<string>()
  readonly #debug: boolean
  /** Responses read per operation name, for lenient mode's sampling. */
  readonly #responsesRead = new Map<string, number>()

  constructor(config: RequestCoreConfig) {
    this.#config = config
    this.#debug = config.logger.enabled('debug')
    this.#ownHeaders = {
      accept: 'application/json',
      'user-agent': config.userAgent,
      authorization: config.authorization,
    }
    this.#baseHeaders = { ...config.defaultHeaders, ...this.#ownHeaders }
    const json = { 'content-type': 'application/json' }
    const keyed = { 'idempotency-key': '' }
    this.#headerTemplates = [
      this.#baseHeaders,
      { ...this.#baseHeaders, ...json },
      { ...this.#baseHeaders, ...keyed },
      { ...this.#baseHeaders, ...json, ...keyed },
    ]
  }

  request<Body, Result>(
    operation: Operation<Body, Result>,
    input: CallInput,
    options: RequestOptions = NO_OPTIONS,
  ): ApiPromise<Result> {
    return new ApiPromise(this.execute(operation, input, options))
  }

  /** The pipeline itself, for callers that combine several requests into one result (bulk). */
  async execute<Body, Result>(
    operation: Operation<Body, Result>,
    input: CallInput,
    options: RequestOptions = NO_OPTIONS,
  ): Promise<WithResponse<Result>> {
    const wire = this.#buildRequest(operation, input, options)
    const idempotencyKey = wire.headers['idempotency-key']
    const call = { method: operation.method, path: wire.path, idempotencyKey, attempts: 0 }
    try {
      const response = await this.#attempt(wire, options, call)
      const attempts = call.attempts
      const data = this.#readResult(operation, response)
      const requestId = requestIdOf(response.headers)
      return {
        data,
        response: { status: response.status, headers: response.headers, requestId, idempotencyKey, attempts },
      }
    } catch (error) {
      throw error instanceof NotifyKitError
        ? error.withContext(call)
        : new NotifyKitError(`Unexpected failure in ${operation.name}`, { cause: error }).withContext(call)
    }
  }

  // Step 1 and 2: everything that can be wrong with the request fails here, before the network.
  #buildRequest<Body>(operation: Operation<Body, unknown>, input: CallInput, options: RequestOptions) {
    const path = this.#config.basePath + buildPath(operation.path, input.pathParams ?? {})
    let body: string | undefined
    if (operation.body) {
      const parsed = operation.body.safeParse(input.body)
      if (!parsed.success) throw RequestValidationError.fromZod(parsed.error, `${operation.name} request`)
      // What the caller passed is what is sent: the schemas only check (they hold no transforms), and
      // zod's copy would drop keys such as `__proto__` that a payload may legitimately carry.
      body = JSON.stringify(input.body)
    }
    const keyed = sendsIdempotencyKey(operation.method)
    let headers: Record<string, string>
    if (options.headers) {
      headers = { ...this.#baseHeaders, ...normalizeHeaders(options.headers, 'headers'), ...this.#ownHeaders }
      if (body !== undefined) headers['content-type'] = 'application/json'
    } else {
      headers = { ...this.#headerTemplates[(body === undefined ? 0 : 1) + (keyed ? 2 : 0)] }
    }
    if (keyed) {
      headers['idempotency-key'] =
        options.idempotencyKey === undefined
          ? globalThis.crypto.randomUUID()
          : checkIdempotencyKey(options.idempotencyKey)
    }
    const wire: WireRequest = { method: operation.method, path, headers, body }
    return wire
  }

  // Step 3: the attempt loop. The retry policy decides; this loop owns the clock and the logs.
  async #attempt(wire: WireRequest, options: RequestOptions, call: { attempts: number }) {
    if (options !== NO_OPTIONS) checkCallLimits(options)
    const config = this.#config
    const maxRetries = options.maxRetries ?? config.maxRetries
    const timeoutMs = options.timeoutMs ?? config.timeoutMs
    const deadline = options.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs
    const { signal } = options
    // An error reports only the attempts that were sent.
    if (signal?.aborted) throw callerAbort(signal)
    let staleSocketRetryUsed = false
    for (let attempts = 1; ; attempts++) {
      const remaining = deadline === undefined ? timeoutMs : deadline - Date.now()
      if (remaining <= 0) throw deadlineError(options.deadlineMs)
      if (config.connection.closed) throw new ClientClosedError()
      call.attempts = attempts
      const attemptTimeout = Math.min(timeoutMs, remaining)
      // Only the debug log line reads the clock.
      const started = this.#debug ? performance.now() : 0
      let failure: NotifyKitError
      try {
        const response = await config.transport.send(wire, attemptTimeout, signal)
        this.#logAttempt(wire, response, attempts, started)
        if (response.status >= 200 && response.status < 300) return response
        failure = ApiError.fromResponse(response.status, parseErrorBody(response.body), response.headers)
      } catch (error) {
        if (!(error instanceof NotifyKitError)) throw error
        this.#logFailedAttempt(wire, error, attempts, started)
        if (error instanceof TimeoutError && attemptTimeout < timeoutMs)
          throw deadlineError(options.deadlineMs, error)
        failure = error
      }
      const decision = decideRetry(failure, { attempts, maxRetries, staleSocketRetryUsed })
      if (!decision.retry) throw failure
      if (decision.staleSocket) staleSocketRetryUsed = true
      if (deadline !== undefined && Date.now() + decision.delayMs >= deadline) {
        throw deadlineError(options.deadlineMs, failure)
      }
      config.logger.info(
        `retrying ${wire.method} ${wire.path} in ${decision.delayMs} ms: ${decision.reason}`,
        {
          attempt: attempts + 1,
          // The stale-socket retry may go one past `maxRetries`.
          maxAttempts: Math.max(maxRetries + 1, attempts + 1),
          delayMs: decision.delayMs,
          reason: decision.reason,
        },
      )
      if (decision.delayMs > 0) await sleep(decision.delayMs, signal, () => callerAbort(signal))
    }
  }

  // Steps 4 and 5: unwrap the envelope and check the result as `responseValidation` says.
  #readResult<Result>(operation: Operation<unknown, Result>, response: WireResponse): Result {
    const mode = this.#config.responseValidation
    let json: unknown
    try {
      json = response.body === '' ? undefined : JSON.parse(response.body)
    } catch (error) {
      throw new ResponseValidationError(
        `${operation.name}: the ${response.status} response is not JSON (${truncate(response.body, ERROR_TEXT_IN_MESSAGE)})`,
        response.status,
        response.body,
        [],
        { cause: error },
      )
    }
    const data = unwrapEnvelope(json)
    if (data === null && operation.nullIsNotFound) {
      throw new NotFoundError(
        response.status,
        json,
        response.headers,
        `${operation.name}: not found (data: null)`,
      )
    }
    if (mode === 'off') return data as Result
    // A value of the wrong kind is checked in full whatever the sampling says: a read of it fails.
    if (mode === 'lenient' && !this.#fullCheckDue(operation.name) && sameKind(operation.result, data))
      return data as Result
    return this.#checkResult(operation, response, data, mode)
  }

  #fullCheckDue(operationName: string): boolean {
    // 1-based: this response's number for its operation. Past the first responses only its
    // remainder matters, so the count is wound back instead of growing without end.
    const read = (this.#responsesRead.get(operationName) ?? 0) + 1
    this.#responsesRead.set(
      operationName,
      read > FULLY_CHECKED_FIRST + FULLY_CHECKED_EVERY ? read - FULLY_CHECKED_EVERY : read,
    )
    return read <= FULLY_CHECKED_FIRST || (read - FULLY_CHECKED_FIRST) % FULLY_CHECKED_EVERY === 0
  }

  #checkResult<Result>(
    operation: Operation<unknown, Result>,
    response: WireResponse,
    data: unknown,
    mode: 'lenient' | 'strict',
  ): Result {
    let parsed: ReturnType<z.ZodType<Result>['safeParse']>
    try {
      parsed = operation.result.safeParse(data)
    } catch (error) {
      // A response deep enough to exhaust the stack is not data anyone can use.
      throw new ResponseValidationError(
        `${operation.name}: the response could not be checked`,
        response.status,
        response.body,
        [],
        { cause: error },
      )
    }
    // The data is returned exactly as received, never the parsed copy: every field the server sent
    // stays, under its own name.
    if (parsed.success) return data as Result
    const issues = issuesOf(parsed.error)
    // Lenient mode returns drift as received. A read whose answer is not even the right kind of
    // value (an array for a notification) is unusable and fails; a send never does, because it
    // happened: throwing would invite the caller to send again.
    const unusableRead = operation.method === 'GET' && !sameKind(operation.result, data)
    if (mode === 'strict' || unusableRead) {
      throw new ResponseValidationError(
        `${operation.name}: the ${response.status} response does not match its schema`,
        response.status,
        response.body,
        issues,
      )
    }
    if (!this.#warnedDrift.has(operation.name)) {
      this.#warnedDrift.add(operation.name)
      const summary = issues.slice(0, 3).map(formatIssue).join('; ')
      this.#config.logger.warn(
        `${operation.name}: the response differs from the documented shape (${summary}); returning it as received`,
        { issues: issues.slice(0, 10) },
      )
    }
    return data as Result
  }

  #logAttempt(wire: WireRequest, response: WireResponse, attempt: number, started: number) {
    const logger = this.#config.logger
    if (!logger.enabled('debug')) return
    const durationMs = Math.round(performance.now() - started)
    const requestId = requestIdOf(response.headers)
    // Everything is in the message too: loggers that drop the details object (pino with a string
    // first) still get the whole line.
    const summary = `${wire.method} ${wire.path} ${response.status} in ${durationMs} ms`
    logger.debug(`${summary} (attempt ${attempt}, request ${requestId ?? 'none'})`, {
      method: wire.method,
      path: wire.path,
      status: response.status,
      durationMs,
      attempt,
      requestId,
      ...(this.#config.logBodies ? { requestBody: wire.body, responseBody: response.body } : {}),
    })
  }

  #logFailedAttempt(wire: WireRequest, error: NotifyKitError, attempt: number, started: number) {
    const logger = this.#config.logger
    if (!logger.enabled('debug')) return
    const durationMs = Math.round(performance.now() - started)
    logger.debug(
      `${wire.method} ${wire.path} failed in ${durationMs} ms (attempt ${attempt}): ${error.message}`,
      {
        method: wire.method,
        path: wire.path,
        error: error.name,
        durationMs,
        attempt,
      },
    )
  }
}

/** server-notes.md: a JSON object whose only key is `data` is an envelope; anything else is the payload. */
function unwrapEnvelope(json: unknown): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !Object.hasOwn(json, 'data'))
    return json
  for (const key in json) if (key !== 'data') return json
  return (json as { data: unknown }).data
}

/** Error bodies: JSON when they parse, whatever the content-type claims; the text otherwise. */
function parseErrorBody(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Lenient mode tolerates drift inside the expected kind of value, not an array for an object. */
function sameKind(schema: z.ZodType, data: unknown): boolean {
  const expected = schema.def.type
  if (expected === 'object') return data !== null && typeof data === 'object' && !Array.isArray(data)
  if (expected === 'array') return Array.isArray(data)
  if (expected === 'number' || expected === 'boolean' || expected === 'string')
    return typeof data === expected
  return true
}

function deadlineError(deadlineMs: number | undefined, cause?: unknown): TimeoutError {
  return new TimeoutError(`The call ran past its deadline of ${deadlineMs} ms`, { cause })
}

function callerAbort(signal: AbortSignal | undefined): AbortError {
  return new AbortError('The request was aborted by the caller', { cause: signal?.reason })
}
