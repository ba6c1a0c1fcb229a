import { FaultQueue, randomFault } from './faults.js'
import { errorReply, fromHttpError, HttpError, type Reply, type ServerException, toResponse } from './http.js'
import {
  fingerprint,
  IDEMPOTENCY_DOCS_LINK,
  IdempotencyStore,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from './idempotency.js'
import { prefixedId } from './ids.js'
import { createLimiter, type FakeLimiter } from './rate-limit.js'
import { reasonPhrase } from './reason-phrases.js'
import { matchRoute, type Route } from './routes.js'
import type { FakeState } from './state.js'
import type { FakeRequestRecord, FakeServiceOptions, FakeStatusFault } from './types.js'

/** The server's JSON limit for `/v1/events` and everything under it (26 MiB), as its body parser counts. */
const EVENTS_BODY_BYTES = 26 * 1024 * 1024
/** The body parser's default limit (100 KiB), for every other route. */
const DEFAULT_BODY_BYTES = 100 * 1024

type ParsedBody = { ok: true; value: unknown } | { ok: false; message: string }

/** A NestJS exception named after its status, holding `message` (`new BadRequestException(message)`). */
function named(status: number, message: string): ServerException {
  return { kind: 'http', status, response: { message, error: reasonPhrase(status), statusCode: status } }
}

/** A NestJS exception made without a message: its response holds only the reason phrase and status. */
function bare(status: number): ServerException {
  return { kind: 'http', status, response: { message: reasonPhrase(status), statusCode: status } }
}

interface Incoming {
  method: string
  path: string
  /** The path with its query, as the server's error bodies name it. */
  url: string
  /** A status fault armed `fromHandler`: the route's answer, after the guards and interceptors. */
  handlerFault: FakeStatusFault | undefined
  /** The URL's query parameters, for the reads. */
  query: URLSearchParams
  headers: Record<string, string>
  bytes: number
  body: ParsedBody
  /** Resolves when the answer may be given (see `FakeService.delay`). */
  settled: () => Promise<void>
}

/**
 * Everything between a Fetch `Request` and its `Response` that is not an operation's own logic:
 * recording, faults, delay, auth, rate limit, idempotency, and the error bodies around the routes.
 */
export class RequestPipeline {
  readonly #options: FakeServiceOptions
  readonly #state: () => FakeState
  readonly faults = new FaultQueue()
  readonly #idempotency = new IdempotencyStore()
  readonly #rateLimiter: FakeLimiter | undefined
  requests: FakeRequestRecord[] = []
  delayMs = 0

  constructor(options: FakeServiceOptions, state: () => FakeState) {
    this.#options = options
    this.#state = state
    this.#rateLimiter = options.rateLimit ? createLimiter(options.rateLimit) : undefined
  }

  reset(): void {
    this.requests = []
    this.faults.clear()
    this.#idempotency.clear()
    this.#rateLimiter?.reset()
    this.delayMs = 0
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const method = request.method.toUpperCase()
    // Bytes first: the size limit counts bytes, and `Buffer` is not there to count them outside Node.
    const bytes =
      method === 'GET' || method === 'HEAD' ? new Uint8Array() : new Uint8Array(await request.arrayBuffer())
    const text = new TextDecoder().decode(bytes)
    const body = parseJson(text)
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      headers[name] = value
    })
    const record = { method, path: url.pathname, headers, body: body.ok ? body.value : undefined }
    this.requests.push(record)

    // One timer per request, started on arrival: early answers wait for it before leaving, and
    // applied requests wait for it after taking their idempotency key, so they are "in flight" meanwhile.
    const delayMs = this.delayMs
    const timer = delayMs > 0 ? new Promise<void>((resolve) => setTimeout(resolve, delayMs)) : undefined
    const settled = async () => {
      if (timer) await timer
    }

    const fault = this.faults.take(record) ?? randomFault(this.#options.faults)
    const handlerFault = fault && 'status' in fault && fault.fromHandler ? fault : undefined
    if (fault && 'status' in fault && !handlerFault) {
      await settled()
      return this.#respond(faultReply(fault, url.pathname + url.search))
    }
    if (fault && 'dropConnection' in fault && !fault.afterApply) {
      await settled()
      return Response.error()
    }
    const reply = await this.#process({
      method,
      path: url.pathname,
      url: url.pathname + url.search,
      handlerFault,
      query: url.searchParams,
      headers,
      bytes: bytes.byteLength,
      body,
      settled,
    })
    await settled()
    return fault && 'dropConnection' in fault ? Response.error() : this.#respond(reply)
  }

  /**
   * In the server's order: its body parser (413, 400 for JSON it cannot read), the router (404),
   * the auth guard (401), the rate limiter (429, its headers on every answer it counts), the
   * idempotency interceptor, then the route. Only what the route answers is remembered under a key.
   */
  async #process(incoming: Incoming): Promise<Reply> {
    const { method, path, query, headers, body } = incoming
    const url = incoming.url
    const limit = /^\/v1\/events(\/|$)/.test(path) ? EVENTS_BODY_BYTES : DEFAULT_BODY_BYTES
    if (incoming.bytes > limit) return errorReply(url, bare(413))
    if (!body.ok) return errorReply(url, named(400, body.message))
    const match = matchRoute(method, path)
    if (!match) return errorReply(url, named(404, `Cannot ${method} ${path}`))
    const authError = this.#authenticate(headers.authorization)
    if (authError) return errorReply(url, authError)

    let rateHeaders: Record<string, string> = {}
    const outcome = this.#rateLimiter?.take(`${match.route.method} ${match.route.pattern}`)
    if (outcome) {
      rateHeaders = outcome.headers
      if (!outcome.allowed) return errorReply(url, { kind: 'throttled' }, rateHeaders)
    }
    const withRate = (reply: Reply): Reply => ({ ...reply, headers: { ...reply.headers, ...rateHeaders } })
    const route = () => this.#apply(match, body.value, query, url, incoming.handlerFault)

    const key = method === 'POST' || method === 'PATCH' ? headers['idempotency-key'] : undefined
    if (!key) {
      await incoming.settled()
      return withRate(route())
    }
    if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      const message = `idempotencyKey "${key}" has exceeded the maximum allowed length of ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`
      return withRate(errorReply(url, named(400, message)))
    }
    const print = fingerprint(body.value)
    const decision = this.#idempotency.begin(key, print)
    const keyHeader = { 'idempotency-key': key }
    switch (decision.kind) {
      case 'in-flight': {
        const message = `Request with key "${key}" is currently being processed. Please retry after 1 second`
        const headers = { ...keyHeader, 'retry-after': '1', link: IDEMPOTENCY_DOCS_LINK }
        return withRate(errorReply(url, named(409, message), headers))
      }
      case 'mismatch': {
        const message = `Request with key "${key}" is being reused for a different body`
        return withRate(errorReply(url, named(422, message), { ...keyHeader, link: IDEMPOTENCY_DOCS_LINK }))
      }
      case 'replay': {
        const replayHeaders = { ...keyHeader, 'idempotency-replay': 'true' }
        // The server keeps an error as a plain object and throws it again on a replay, which its
        // interceptor does not recognise and answers with a bare 503, whatever the first error was.
        if (decision.failed) return withRate(errorReply(url, bare(503), replayHeaders))
        return withRate({ ...decision.reply, headers: { ...decision.reply.headers, ...replayHeaders } })
      }
      case 'proceed':
        break
    }
    try {
      await incoming.settled()
      const reply = route()
      this.#idempotency.complete(key, print, reply, reply.status >= 400)
      return withRate({ ...reply, headers: { ...reply.headers, ...keyHeader } })
    } catch (error) {
      this.#idempotency.abandon(key)
      throw error
    }
  }

  /**
   * Runs the route. The body is copied at once so a later change to the state (another request
   * between here and serialisation) cannot leak into this answer. A fault armed `fromHandler`
   * answers here, in place of the route, so the idempotency interceptor sees it as the handler's.
   */
  #apply(
    match: { route: Route; params: Map<string, string> },
    body: unknown,
    query: URLSearchParams,
    url: string,
    handlerFault: FakeStatusFault | undefined,
  ): Reply {
    if (handlerFault) return faultReply(handlerFault, url)
    try {
      const reply = match.route.handle({
        state: this.#state(),
        params: match.params,
        query,
        body,
        missingNotification: this.#options.missingNotification ?? '404',
        requestId: prefixedId('req_', this.#state().now()),
      })
      return { ...reply, body: structuredClone(reply.body) }
    } catch (error) {
      if (error instanceof HttpError) return fromHttpError(error, url)
      // A bug in the fake (or an input the server also fails on): the server's 500, cause in the message.
      const message = error instanceof Error ? error.message : String(error)
      return errorReply(url, {
        kind: 'internal',
        errorId: globalThis.crypto.randomUUID(),
        message: `Internal fake service error: ${message}`,
      })
    }
  }

  /**
   * The server's auth guard: the scheme is the header's first word; `ApiKey` then needs a key, and
   * the fake's key when one was set; `Bearer` is a dashboard session, which the fake has none of.
   */
  #authenticate(header: string | undefined): ServerException | undefined {
    const scheme = header?.split(' ')[0] ?? ''
    if (scheme === '') return named(401, 'Missing authorization header')
    if (scheme === 'Bearer') return bare(401)
    if (scheme !== 'ApiKey') return named(401, `Invalid authentication scheme: "${scheme}"`)
    const key = (header ?? '').slice('ApiKey '.length).trim()
    if (key === '') return bare(401)
    if (this.#options.apiKey !== undefined && key !== this.#options.apiKey)
      return named(401, 'API Key not found')
    return undefined
  }

  /** The server sends no request id header: its id is only in a trigger's `activityFeedLink`. */
  #respond(reply: Reply): Response {
    return toResponse(reply)
  }
}

/**
 * The body as the server's JSON parser reads it: nothing is `undefined` (the route sees `{}`); the
 * parser takes only an object or an array, and refuses anything else, or JSON it cannot read, with
 * the runtime's own parse message.
 */
function parseJson(text: string): ParsedBody {
  const trimmed = text.trim()
  if (trimmed === '') return { ok: true, value: undefined }
  const first = trimmed[0] ?? ''
  if (first !== '{' && first !== '[') {
    // As the parser words it: the message of parsing the text with its first character replaced.
    const index = text.indexOf(first)
    const message = parseMessage(`${text.slice(0, index)}#${'#'.repeat(text.length - index - 1)}`)
    return { ok: false, message: message.replace(/#+/g, (run) => text.slice(index, index + run.length)) }
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}

function parseMessage(text: string): string {
  try {
    JSON.parse(text)
    return 'strict violation'
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/**
 * A status fault's answer: the body given, or the server's body for the status: its 500 (with an
 * `errorId`), or the bare form a NestJS exception made without a message gives.
 */
function faultReply(fault: FakeStatusFault, url: string): Reply {
  const exception: ServerException =
    fault.status === 500 ? { kind: 'internal', errorId: globalThis.crypto.randomUUID() } : bare(fault.status)
  const reply: Reply =
    fault.body === undefined
      ? errorReply(url, exception)
      : { status: fault.status, body: fault.body, headers: {} }
  return { ...reply, headers: { ...reply.headers, ...fault.headers } }
}
