import { EventEmitter } from 'node:events'
import type { Dispatcher } from 'undici'
import { ResponseSecretScrubber, redactErrorSecret } from '../internal/redact.js'
import { AbortError, ConnectionError, NotifyKitError, type ResponseHeaders, TimeoutError } from './errors.js'

/** One HTTP exchange, ready for the wire: everything validated and encoded already. */
export interface WireRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Path and query, base path included, percent-encoded. */
  path: string
  headers: Record<string, string>
  body: string | undefined
}

/** A complete response: status, headers and the whole body as text. */
export interface WireResponse {
  status: number
  headers: ResponseHeaders
  body: string
}

/** The response body ran past `maxResponseBytes`; the rest was not read and the socket was released. */
export class ResponseTooLargeError extends NotifyKitError {
  override name = 'ResponseTooLargeError'
  override readonly code = 'NOTIFYKIT_RESPONSE_TOO_LARGE'
  readonly limitBytes: number

  constructor(limitBytes: number) {
    super(`Response body exceeds maxResponseBytes (${limitBytes} bytes); the rest was not read`)
    this.limitBytes = limitBytes
  }
}

// Why an attempt's own signal fired: our timer, or the caller's signal.
const TIMED_OUT = Symbol('timed out')
const CALLER_ABORTED = Symbol('caller aborted')

/**
 * The `signal` undici gets for one attempt. undici takes an EventEmitter as well as an AbortSignal
 * and rejects with its `reason` the same way; an AbortController costs about 10 µs per attempt once
 * undici has added and removed its listener (profiled in bench/), this well under 1 µs.
 */
class AttemptSignal extends EventEmitter {
  aborted = false
  reason: symbol | undefined = undefined

  abort(reason: symbol): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.emit('abort')
  }
}

/**
 * Sends one attempt through an undici Dispatcher and reads the whole response. It knows nothing of
 * retries, schemas or envelopes: it turns every failure into `ConnectionError`, `TimeoutError` or
 * `AbortError` with the undici error as `cause`.
 * @internal
 */
export class Transport {
  readonly #dispatcher: Dispatcher
  readonly #origin: string
  readonly #maxResponseBytes: number
  /** The API key, only to keep it out of what comes back: errors from undici and echoing servers. */
  readonly #apiKey: string
  readonly #scrubber: ResponseSecretScrubber

  constructor(dispatcher: Dispatcher, origin: string, maxResponseBytes: number, apiKey: string) {
    this.#dispatcher = dispatcher
    this.#origin = origin
    this.#maxResponseBytes = maxResponseBytes
    this.#apiKey = apiKey
    this.#scrubber = new ResponseSecretScrubber(apiKey)
  }

  async send(
    request: WireRequest,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<WireResponse> {
    if (signal?.aborted) throw abortError(signal)
    // One signal bounds the whole attempt (connect, headers, body); undici's own header and body
    // timers are set just past it so that they never cut in first with a different error.
    const attemptSignal = new AttemptSignal()
    const timer = setTimeout(() => attemptSignal.abort(TIMED_OUT), timeoutMs)
    // Most calls pass no signal: no listener, no closure.
    const onCallerAbort = signal ? () => attemptSignal.abort(CALLER_ABORTED) : undefined
    if (signal && onCallerAbort) signal.addEventListener('abort', onCallerAbort, { once: true })
    let response: Dispatcher.ResponseData | undefined
    try {
      response = await this.#dispatcher.request({
        origin: this.#origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: attemptSignal,
        headersTimeout: timeoutMs + 1_000,
        bodyTimeout: timeoutMs + 1_000,
      })
      const body = await readBody(response, this.#maxResponseBytes)
      // A server that echoes the key back must not put it into errors, logs or results.
      return {
        status: response.statusCode,
        headers: this.#scrubber.headers(response.headers),
        body: this.#scrubber.text(body),
      }
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw error
      // The error becomes our `cause` and its message part of ours: it must not carry the key.
      redactErrorSecret(error, this.#apiKey)
      if (attemptSignal.reason === CALLER_ABORTED && signal) throw abortError(signal)
      if (attemptSignal.reason === TIMED_OUT || isUndiciTimeout(error)) {
        throw new TimeoutError(`Attempt timed out after ${timeoutMs} ms`, { cause: error })
      }
      const failure = new ConnectionError(`Connection failed: ${describeCause(error)}`, { cause: error })
      failure.responseStarted = response !== undefined
      throw failure
    } finally {
      clearTimeout(timer)
      if (signal && onCallerAbort) signal.removeEventListener('abort', onCallerAbort)
    }
  }
}

// Not async: a sized body's text is returned as undici's own promise, one promise fewer per call.
function readBody(response: Dispatcher.ResponseData, limit: number): Promise<string> {
  const declared = Number(response.headers['content-length'])
  if (declared > limit) {
    // Destroying a body nobody reads emits 'error'; unheard, that would crash the process.
    response.body.on('error', () => undefined)
    response.body.destroy()
    return Promise.reject(new ResponseTooLargeError(limit))
  }
  // A declared length within the limit is enforced by undici itself; only unsized bodies need counting.
  if (Number.isFinite(declared)) return response.body.text()
  return readUnsizedBody(response, limit)
}

async function readUnsizedBody(response: Dispatcher.ResponseData, limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += chunk.length
    if (size > limit) {
      response.body.destroy()
      throw new ResponseTooLargeError(limit)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size).toString('utf8')
}

function abortError(signal: AbortSignal): AbortError {
  return new AbortError('The request was aborted by the caller', { cause: signal.reason })
}

function isUndiciTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? `${error.message} (${code})` : error.message
}
