import type { core } from 'zod/mini'
import { ApiError, NotFoundError, ResponseValidationError } from '../../core/errors.js'
import type { ResponseValidation } from '../../core/options.js'
import type { LevelLogger } from '../text/level-logger.js'
import { excerpt, formatIssues } from '../text/messages.js'
import type { WireResponse } from '../transport/types.js'
import { failureOf, issuesOf } from '../validation/parse.js'
import type { Operation, ResultKind } from './operation.js'

/**
 * Lenient mode checks the full schema of the first `FULLY_CHECKED_FIRST` responses of each operation
 * (per client), then of every `FULLY_CHECKED_EVERY`th; every response is still checked for its kind
 * of value. Lenient mode never changes what is returned: it only warns, once per operation, that the
 * server drifted from the documented shape. A server that drifts does so on every response, so
 * sampling finds it within `FULLY_CHECKED_EVERY` calls, while the full check of a large
 * notification costs about as much CPU as parsing its JSON. Strict mode checks every response; off
 * checks none.
 */
const FULLY_CHECKED_FIRST = 16
const FULLY_CHECKED_EVERY = 64

/**
 * Turns a 2xx response into the operation's result: parse, unwrap the `{data}` envelope, check as
 * `responseValidation` says. One per client: it holds lenient mode's sampling counts and the
 * operations already warned about.
 * @internal
 */
export class ResponseReader {
  readonly #mode: ResponseValidation
  readonly #logger: LevelLogger
  /** Responses read per operation name, for lenient mode's sampling. */
  readonly #responsesRead = new Map<string, number>()
  readonly #warnedDrift = new Set<string>()

  constructor(mode: ResponseValidation, logger: LevelLogger) {
    this.#mode = mode
    this.#logger = logger
  }

  read<Result>(operation: Operation<unknown, Result>, response: WireResponse): Result {
    const mode = this.#mode
    let json: unknown
    try {
      json = response.body === '' ? undefined : JSON.parse(response.body)
    } catch (error) {
      throw new ResponseValidationError(
        `${operation.name}: the ${response.status} response is not JSON (${excerpt(response.body)})`,
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
    if (mode === 'lenient' && !this.#fullCheckDue(operation.name) && sameKind(operation.resultKind, data))
      return data as Result
    return this.#check(operation, response, data, mode)
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

  #check<Result>(
    operation: Operation<unknown, Result>,
    response: WireResponse,
    data: unknown,
    mode: 'lenient' | 'strict',
  ): Result {
    let failure: core.$ZodError | undefined
    try {
      failure = failureOf(operation.result, data)
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
    if (!failure) return data as Result
    const issues = issuesOf(failure)
    // Lenient mode returns drift as received. A read whose answer is not even the right kind of
    // value (an array for a notification) is unusable and fails; a send never does, because it
    // happened: throwing would invite the caller to send again.
    const unusableRead = operation.method === 'GET' && !sameKind(operation.resultKind, data)
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
      this.#logger.warn(
        `${operation.name}: the response differs from the documented shape (${formatIssues(issues.slice(0, 3))}); returning it as received`,
        { issues: issues.slice(0, 10) },
      )
    }
    return data as Result
  }
}

/**
 * The request id the service put in a trigger's answer: the `selectedLogId` of its
 * `activityFeedLink` (`…/activity/requests?selectedLogId=req_…`), or of the first event's that has
 * one in a bulk (one request, one id). The link's origin is the service's dashboard setting, so only the
 * parameter is read, not the URL.
 */
export function requestIdOfResult(data: unknown): string | undefined {
  if (!Array.isArray(data)) return requestIdOfLink(data)
  // An event refused in a bulk may have no link; the next one has the same request's.
  for (const result of data) {
    const found = requestIdOfLink(result)
    if (found !== undefined) return found
  }
  return undefined
}

function requestIdOfLink(result: unknown): string | undefined {
  if (result === null || typeof result !== 'object') return undefined
  const link = (result as { activityFeedLink?: unknown }).activityFeedLink
  if (typeof link !== 'string') return undefined
  const found = SELECTED_LOG_ID.exec(link)?.[1]
  if (!found) return undefined
  try {
    return decodeURIComponent(found)
  } catch {
    return found
  }
}

const SELECTED_LOG_ID = /[?&]selectedLogId=([^&#]+)/

/**
 * The request id in a response's text, for the debug line written before the body is read: the
 * first `selectedLogId` of a link in it, as `requestIdOfResult` finds it.
 */
export function requestIdInText(text: string): string | undefined {
  const found = SELECTED_LOG_ID_IN_JSON.exec(text)?.[1]
  return found === undefined ? undefined : requestIdOfLink({ activityFeedLink: `?selectedLogId=${found}` })
}

const SELECTED_LOG_ID_IN_JSON = /"activityFeedLink"\s*:\s*"[^"]*?[?&]selectedLogId=([^&#"\\]+)/

/** The error for a non-2xx response, of the class its status names. */
export function apiErrorOf(response: WireResponse): ApiError {
  return ApiError.fromResponse(response.status, parseErrorBody(response.body), response.headers)
}

/** A JSON object whose only key is `data` is an envelope; anything else is the payload itself. */
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
function sameKind(kind: ResultKind, data: unknown): boolean {
  if (kind === 'object') return data !== null && typeof data === 'object' && !Array.isArray(data)
  if (kind === 'array') return Array.isArray(data)
  return typeof data === kind
}
