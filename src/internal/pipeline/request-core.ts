import { ApiPromise, type WithResponse } from '../../core/api-promise.js'
import {
  ApiError,
  type CallContext,
  ClientClosedError,
  causedBy,
  IdempotencyReplayError,
  NotifyKitError,
  namingWorkflow,
  RequestValidationError,
  replayOf,
  TimeoutError,
  withCallContext,
} from '../../core/errors.js'
import type { RequestOptions, ResponseValidation } from '../../core/options.js'
import { checkIdempotencyKey, normalizeHeaders } from '../http/headers.js'
import { buildPath } from '../http/path.js'
import { encodeQuery } from '../http/query.js'
import { requestIdOf } from '../http/response-headers.js'
import type { LevelLogger } from '../text/level-logger.js'
import { callerAbortError } from '../transport/attempt.js'
import type { Transport, WireRequest, WireResponse } from '../transport/types.js'
import { checkExtraFields, type ExtraFieldsTarget, withExtraFields } from '../validation/extra-fields.js'
import { checkCallOptions } from '../validation/option-schemas.js'
import { failureOf, issuesOf } from '../validation/parse.js'
import type { Observe, Sender } from './call-observer.js'
import { type Operation, sendsIdempotencyKey } from './operation.js'
import type { Pacer } from './rate-limiter.js'
import { apiErrorOf, ResponseReader, requestIdInText, requestIdOfResult } from './response-reader.js'
import type { RetryBudget } from './retry-budget.js'
import { decideRetry, failsLikeAnOutage } from './retry-policy.js'
import { deadlineError, sleep } from './waits.js'

/** Everything the core needs from the client, resolved once at construction. @internal */
interface RequestCoreConfig {
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
  /** The pacer and retry budget a call starts with: the client's current ones (a fake's reset renews them). */
  shared: () => SharedState
  /** Absent when the client has no hooks: then no call pays for them. */
  hooks: Observe | undefined
}

/** What a client shares with the clients `withOptions` derives from it, per API key and origin. @internal */
export interface SharedState {
  /** Paces the requests that draw from the server's `trigger` bucket; absent with `rateLimit: 'off'`. */
  rateLimiter: Pacer | undefined
  /** Bounds retries while the service fails. */
  retryBudget: RetryBudget
}

/** What a batch of requests (bulk) needs of the core: `execute`, its requests reported as parts of it. */
export interface Executor {
  execute: RequestCore['execute']
  /**
   * Whether requests of `cost` units are too coarse for the client's pacer to share the bucket with:
   * undefined before the first answer, false when no answer describes a bucket or the client does not
   * pace by it.
   */
  coarse(cost: number): boolean | undefined
}

/**
 * The call-specific inputs of an operation. The body is `unknown` on purpose: whatever the static
 * types said, it is parsed with the operation's strict schema before anything is sent.
 */
interface CallInput {
  pathParams?: Readonly<Record<string, unknown>>
  body?: unknown
  /** The query parameters, checked like a body; absent means none. */
  query?: unknown
}

const NO_OPTIONS: RequestOptions = {}

/**
 * The one pipeline every operation runs through: check the options, build the request, attempt it
 * with retries, classify each outcome, read the result. Resources describe operations; they never
 * touch HTTP.
 * @internal
 */
export class RequestCore {
  readonly #config: RequestCoreConfig
  readonly #baseHeaders: Record<string, string>
  /**
   * The base headers with `content-type` and/or an `idempotency-key` slot already in place: a copy
   * of one is a single clone of a known shape, where adding the keys to a copy changes its shape on
   * every call, which V8 makes slow (profiled in bench/).
   */
  readonly #headerTemplates: readonly Record<string, string>[]
  /** The headers the SDK owns: neither defaultHeaders nor a call's headers replace them. */
  readonly #ownHeaders: Record<string, string>
  readonly #reader: ResponseReader
  readonly #debug: boolean
  /** The statuses already warned about, so that a new one is logged once, not on every call. */
  readonly #warnedStatuses = new Set<string>()

  constructor(config: RequestCoreConfig) {
    this.#config = config
    this.#reader = new ResponseReader(config.responseValidation, config.logger)
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

  /**
   * The pipeline itself, for callers that combine several requests into one result (bulk); `batch`
   * is the call, as the hooks see it, that this request is part of.
   */
  execute<Body, Result>(
    operation: Operation<Body, Result>,
    input: CallInput,
    options: RequestOptions = NO_OPTIONS,
    batch?: Sender,
  ): Promise<WithResponse<Result>> {
    const { hooks, transport } = this.#config
    return hooks
      ? hooks(operation, transport, (observed) => this.#execute(operation, input, options, observed), batch)
      : this.#execute(operation, input, options, transport)
  }

  /**
   * Runs a call made of several requests (bulk) as one call for the hooks: each request `run` makes
   * through the executor it is given is reported as a part of it.
   */
  batch<Result>(
    operation: Operation<unknown, unknown>,
    run: (executor: Executor) => Promise<WithResponse<Result>>,
  ): Promise<WithResponse<Result>> {
    const { hooks, transport } = this.#config
    return hooks
      ? hooks(
          operation,
          transport,
          (batch) =>
            run({
              execute: (op, input, options) => this.execute(op, input, options, batch),
              coarse: (cost) => this.coarse(cost),
            }),
          undefined,
          true,
        )
      : run(this)
  }

  coarse(cost: number): boolean | undefined {
    const { rateLimiter } = this.#config.shared()
    return rateLimiter ? rateLimiter.coarse(cost) : false
  }

  /** `sender` is the transport, or the call as the hooks see it (which sends through the transport). */
  async #execute<Body, Result>(
    operation: Operation<Body, Result>,
    input: CallInput,
    options: RequestOptions,
    sender: Sender,
  ): Promise<WithResponse<Result>> {
    // Steps 1 and 2: everything that can be wrong with the call fails here, before the network.
    let wire: WireRequest
    try {
      if (options !== NO_OPTIONS) checkCallOptions(options)
      wire = this.#build(operation, input, options)
    } catch (error) {
      // Nothing was sent: the route as documented, and no idempotency key.
      const route = { method: operation.method, path: this.#config.basePath + operation.path.template }
      throw callError(error, operation, route)
    }
    const idempotencyKey = wire.headers['idempotency-key']
    // Read now, so that the body is not held while the request is in flight: a bulk chunk's events
    // are garbage once serialized.
    const workflowName = (input.body as { name?: unknown } | undefined)?.name
    const call: CallContext & { attempts: number } = {
      method: operation.method,
      path: wire.path,
      idempotencyKey,
      attempts: 0,
    }
    try {
      const response = await this.#attempt(wire, options, call, sender, operation.rateLimitCost)
      const attempts = call.attempts
      // Step 5: the result, unwrapped and checked as `responseValidation` says.
      const data = this.#reader.read(operation, response)
      // The service names the request only inside a trigger's answer; a proxy's header is the fallback.
      const requestId = requestIdOfResult(data) ?? requestIdOf(response.headers)
      if (requestId !== undefined) call.requestId = requestId
      const verdict = operation.verdict?.(data)
      if (verdict?.unknownStatus !== undefined) this.#warnUnknownStatus(operation.name, verdict.unknownStatus)
      // Past the attempt loop: an answer that says nothing was sent is final, never retried.
      if (verdict?.notSent) throw verdict.notSent
      return {
        data,
        response: { status: response.status, headers: response.headers, requestId, idempotencyKey, attempts },
      }
    } catch (error) {
      throw callError(namingWorkflow(error, workflowName), operation, call)
    }
  }

  // Step 2: the request as it goes on the wire, body checked against the operation's schema.
  #build<Body>(operation: Operation<Body, unknown>, input: CallInput, options: RequestOptions) {
    let path = this.#config.basePath + buildPath(operation.path, input.pathParams ?? {})
    if (operation.query) path += queryOf(operation, operation.query, input.query ?? {}, options.extraFields)
    let body: string | undefined
    if (operation.body) {
      const failure = failureOf(operation.body, input.body)
      if (failure)
        throw new RequestValidationError(
          issuesOf(failure, [], operation.body),
          `Invalid ${operation.name} request`,
        )
      // What the caller passed is what is sent: the schemas only check (they hold no transforms), and
      // zod's copy would drop keys such as `__proto__` that a payload may legitimately carry.
      body = toJson(
        options.extraFields === undefined
          ? input.body
          : extendedBody(operation, input.body, options.extraFields),
        operation.name,
      )
    } else if (options.extraFields !== undefined && !operation.query) {
      checkExtraFields(options.extraFields, undefined)
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

  // Steps 3 and 4: the attempt loop, classifying each outcome as the result or a failure. The retry
  // policy decides what a failure leads to; this loop owns the clock and the logs.
  async #attempt(
    wire: WireRequest,
    options: RequestOptions,
    call: { attempts: number },
    sender: Sender,
    cost: number,
  ) {
    const config = this.#config
    const { rateLimiter, retryBudget } = config.shared()
    const limiter = cost > 0 ? rateLimiter : undefined
    const maxRetries = options.maxRetries ?? config.maxRetries
    const timeoutMs = options.timeoutMs ?? config.timeoutMs
    const deadline = options.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs
    const { signal } = options
    // An error reports only the attempts that were sent.
    if (signal?.aborted) throw callerAbortError(signal)
    let staleSocketRetryUsed = false
    // What the server may have recorded for the key: the first failure, which a replay stands for.
    let firstFailure: NotifyKitError | undefined
    let previousFailure: NotifyKitError | undefined
    for (let attempts = 1; ; attempts++) {
      if (config.connection.closed) throw new ClientClosedError()
      const turn = limiter?.acquire(cost, options, deadline)
      const mark = typeof turn === 'object' ? await turn : (turn ?? 0)
      const remaining = deadline === undefined ? timeoutMs : deadline - Date.now()
      if (remaining <= 0) {
        limiter?.settle(cost, mark)
        throw deadlineError(options.deadlineMs)
      }
      call.attempts = attempts
      const attemptTimeout = Math.min(timeoutMs, remaining)
      // Only the debug log line reads the clock.
      const started = this.#debug ? performance.now() : 0
      let failure: NotifyKitError | undefined
      try {
        const response = await sender.send(wire, attemptTimeout, signal)
        limiter?.settle(cost, mark, response)
        this.#logAttempt(wire, response, attempts, started)
        sender.attempted?.(response.status)
        const ok = response.status >= 200 && response.status < 300
        if (ok) {
          retryBudget.succeeded()
          return response
        }
        failure = apiErrorOf(response)
      } catch (error) {
        limiter?.settle(cost, mark)
        if (!(error instanceof NotifyKitError)) throw error
        this.#logAttempt(wire, error, attempts, started)
        sender.attempted?.(undefined, error)
        if (error instanceof TimeoutError && attemptTimeout < timeoutMs)
          throw deadlineError(options.deadlineMs, { cause: error })
        failure = error
      }
      if (failure instanceof IdempotencyReplayError) throw replayOf(failure, firstFailure)
      // An answer's error has no cause of its own: the attempt before it is one, so the error the
      // call ends with leads to every failure of the call.
      if (previousFailure !== undefined && failure instanceof ApiError && failure.cause === undefined)
        causedBy(failure, previousFailure)
      previousFailure = failure
      const decision = decideRetry(failure, { attempts, maxRetries, staleSocketRetryUsed })
      // A stale pooled socket failed before the request left: the server recorded nothing of it.
      if (!(decision.retry && decision.staleSocket)) firstFailure ??= failure
      // The free retry of a stale pooled socket is no sign of an outage.
      const outage = !(decision.retry && decision.staleSocket) && failsLikeAnOutage(failure)
      if (outage) retryBudget.failed()
      if (!decision.retry) throw failure
      if (outage && !retryBudget.allowsRetry) throw this.#budgetSpent(wire, failure)
      if (decision.staleSocket) staleSocketRetryUsed = true
      if (deadline !== undefined && Date.now() + decision.delayMs >= deadline) {
        throw deadlineError(options.deadlineMs, { cause: failure })
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
      sender.retrying?.(decision.reason, decision.delayMs)
      // Closed while this attempt was on the wire: no retry, and no wait for one.
      if (config.connection.closed) throw new ClientClosedError()
      if (decision.delayMs > 0) await sleep(decision.delayMs, signal, () => callerAbortError(signal))
    }
  }

  /** Once per operation and status: a server that sends a new status sends it on many answers. */
  #warnUnknownStatus(operationName: string, status: string): void {
    const seen = `${operationName} ${status}`
    if (this.#warnedStatuses.has(seen)) return
    this.#warnedStatuses.add(seen)
    this.#config.logger.warn(
      `${operationName}: the server answered status ${JSON.stringify(status)}, which this version of notifykit does not know; the call resolves as sent: check result.status, and upgrade notifykit`,
      { operation: operationName, status },
    )
  }

  /** The failure, marked and said to be not retried for the budget, and logged once at `warn`. */
  #budgetSpent(wire: WireRequest, failure: NotifyKitError): NotifyKitError {
    const { method, path } = wire
    failure.message += `; not retried: the retry budget is spent (the service has been failing; it refills as calls succeed)`
    this.#config.logger.warn(`${method} ${path}: ${failure.message}`, { method, path, error: failure.name })
    return withCallContext(failure, { retryBudgetSpent: true })
  }

  /**
   * One debug line per attempt, with everything in the message too: loggers that drop the fields
   * (pino with a string first) still get the whole line.
   */
  #logAttempt(wire: WireRequest, outcome: WireResponse | NotifyKitError, attempt: number, started: number) {
    const logger = this.#config.logger
    if (!logger.enabled('debug')) return
    const durationMs = Math.round(performance.now() - started)
    const { method, path } = wire
    if (outcome instanceof NotifyKitError) {
      const line = `${method} ${path} failed in ${durationMs} ms (attempt ${attempt}): ${outcome.message}`
      logger.debug(line, { method, path, error: outcome.name, durationMs, attempt })
      return
    }
    const { status } = outcome
    const requestId = requestIdInText(outcome.body) ?? requestIdOf(outcome.headers)
    const line = `${method} ${path} ${status} in ${durationMs} ms (attempt ${attempt}, request ${requestId ?? 'none'})`
    logger.debug(line, {
      method,
      path,
      status,
      durationMs,
      attempt,
      requestId,
      ...(this.#config.logBodies ? { requestBody: wire.body, responseBody: outcome.body } : {}),
    })
  }
}

/** Every failure of a call is a NotifyKitError that says which call it was. */
function callError(
  error: unknown,
  operation: Operation<unknown, unknown>,
  context: CallContext,
): NotifyKitError {
  return withCallContext(
    error instanceof NotifyKitError
      ? error
      : new NotifyKitError(`Unexpected failure in ${operation.name}`, { cause: error }),
    context,
  )
}

/** The body with the call's `extraFields`, which may add fields but never replace a checked one. */
function extendedBody(operation: Operation<unknown, unknown>, body: unknown, extraFields: unknown): unknown {
  checkExtraFields(extraFields, operation.extraFields)
  return withExtraFields(
    body,
    extraFields as Record<string, unknown>,
    operation.extraFields as ExtraFieldsTarget,
  )
}

/** The query string of a read: its parameters checked with the operation's strict schema, then encoded. */
function queryOf(
  operation: Operation<unknown, unknown>,
  schema: NonNullable<Operation<unknown, unknown>['query']>,
  query: unknown,
  extraFields: unknown,
): string {
  const failure = failureOf(schema, query)
  if (failure)
    throw new RequestValidationError(issuesOf(failure, [], schema), `Invalid ${operation.name} request`)
  const sent = extraFields === undefined ? query : extendedBody(operation, query, extraFields)
  return encodeQuery(sent as Record<string, unknown>)
}

/** A payload JSON cannot carry (a BigInt, a cycle) is the caller's to fix, like any other bad field. */
function toJson(body: unknown, operationName: string): string {
  try {
    return JSON.stringify(body)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new RequestValidationError(
      [{ path: [], message: `cannot be sent as JSON: ${reason}` }],
      `Invalid ${operationName} request`,
    )
  }
}
