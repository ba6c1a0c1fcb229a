import { FaultQueue, randomFault } from './faults.js'
import { errorReply, fromHttpError, HttpError, type Reply, toResponse } from './http.js'
import {
  fingerprint,
  IDEMPOTENCY_DOCS_LINK,
  IdempotencyStore,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from './idempotency.js'
import { createLimiter, type FakeLimiter } from './rate-limit.js'
import { reasonPhrase } from './reason-phrases.js'
import { matchRoute, type Route } from './routes.js'
import type { FakeState } from './state.js'
import type { FakeRequestRecord, FakeServiceOptions } from './types.js'

/** The server refuses `/v1/events` bodies over 20 MB (413); the fake applies it to every route. */
const MAX_BODY_BYTES = 20 * 1024 * 1024

type ParsedBody = { ok: true; value: unknown } | { ok: false }

interface Incoming {
  method: string
  path: string
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
    if (fault && 'status' in fault) {
      await settled()
      return this.#respond(faultReply(fault, url.pathname))
    }
    if (fault && !fault.afterApply) {
      await settled()
      return Response.error()
    }
    const reply = await this.#process({
      method,
      path: url.pathname,
      query: url.searchParams,
      headers,
      bytes: bytes.byteLength,
      body,
      settled,
    })
    await settled()
    return fault ? Response.error() : this.#respond(reply)
  }

  /** Auth, rate limit, idempotency, then the route, in the order the server's guards run. */
  async #process(incoming: Incoming): Promise<Reply> {
    const { method, path, query, headers, body } = incoming
    const match = matchRoute(method, path)
    if (!match) return errorReply(404, path, `Cannot ${method} ${path}`)
    if (incoming.bytes > MAX_BODY_BYTES) return errorReply(413, path, 'request entity too large')
    const authError = this.#authenticate(headers.authorization)
    if (authError) return errorReply(401, path, authError)

    let rateHeaders: Record<string, string> = {}
    const outcome = this.#rateLimiter?.take(`${match.route.method} ${match.route.pattern}`)
    if (outcome) {
      rateHeaders = outcome.headers
      if (!outcome.allowed) return errorReply(429, path, 'API rate limit exceeded', {}, rateHeaders)
    }
    const withRate = (reply: Reply): Reply => ({ ...reply, headers: { ...reply.headers, ...rateHeaders } })

    if (!body.ok) return withRate(errorReply(400, path, 'Unexpected token in JSON body'))
    const key = method === 'POST' || method === 'PATCH' ? headers['idempotency-key'] : undefined
    if (!key) {
      await incoming.settled()
      return withRate(this.#apply(match, body.value, query, path))
    }
    if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      return withRate(
        errorReply(
          400,
          path,
          `idempotencyKey "${key}" has exceeded the maximum allowed length of ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
        ),
      )
    }
    const print = fingerprint(body.value)
    const decision = this.#idempotency.begin(key, print)
    const keyHeader = { 'idempotency-key': key }
    switch (decision.kind) {
      case 'in-flight':
        return withRate(
          errorReply(
            409,
            path,
            `Request with key "${key}" is currently being processed. Please retry after 1 second`,
            {},
            { ...keyHeader, 'retry-after': '1', link: IDEMPOTENCY_DOCS_LINK },
          ),
        )
      case 'mismatch':
        return withRate(
          errorReply(
            422,
            path,
            `Request with key "${key}" is being reused for a different body`,
            {},
            { ...keyHeader, link: IDEMPOTENCY_DOCS_LINK },
          ),
        )
      case 'replay':
        return withRate({
          ...decision.reply,
          headers: { ...decision.reply.headers, ...keyHeader, 'idempotency-replay': 'true' },
        })
      case 'proceed':
        break
    }
    try {
      await incoming.settled()
      const reply = this.#apply(match, body.value, query, path)
      this.#idempotency.complete(key, print, reply)
      return withRate({ ...reply, headers: { ...reply.headers, ...keyHeader } })
    } catch (error) {
      this.#idempotency.abandon(key)
      throw error
    }
  }

  /**
   * Runs the route. The body is copied at once so a later change to the state (another request
   * between here and serialisation) cannot leak into this answer.
   */
  #apply(
    match: { route: Route; params: Map<string, string> },
    body: unknown,
    query: URLSearchParams,
    path: string,
  ): Reply {
    try {
      const reply = match.route.handle({
        state: this.#state(),
        params: match.params,
        query,
        body,
        missingNotification: this.#options.missingNotification ?? '404',
      })
      return { ...reply, body: structuredClone(reply.body) }
    } catch (error) {
      if (error instanceof HttpError) return fromHttpError(error, path)
      // A bug in the fake, not a scripted failure: answer like the server's 500, with the cause visible.
      const message = error instanceof Error ? error.message : String(error)
      return errorReply(500, path, `Internal fake service error: ${message}`, {
        errorId: globalThis.crypto.randomUUID(),
      })
    }
  }

  /** `Authorization: ApiKey <key>` is the only form the server accepts. */
  #authenticate(header: string | undefined): string | undefined {
    if (header === undefined || header.trim() === '') return 'Missing Authorization header'
    const match = /^ApiKey\s+(\S.*)$/.exec(header.trim())
    const key = match?.[1]?.trim()
    if (!key) return "Authorization header must have the form 'ApiKey <API_KEY>'"
    if (this.#options.apiKey !== undefined && key !== this.#options.apiKey) return 'API Key not found'
    return undefined
  }

  #respond(reply: Reply): Response {
    return toResponse({
      ...reply,
      headers: { ...reply.headers, 'x-request-id': globalThis.crypto.randomUUID() },
    })
  }
}

function parseJson(text: string): ParsedBody {
  if (text.trim() === '') return { ok: true, value: undefined }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

function faultReply(
  fault: { status: number; body?: unknown; headers?: Record<string, string> },
  path: string,
): Reply {
  const reply =
    fault.body === undefined
      ? errorReply(fault.status, path, reasonPhrase(fault.status))
      : { status: fault.status, body: fault.body, headers: {} }
  return { ...reply, headers: { ...reply.headers, ...fault.headers } }
}
