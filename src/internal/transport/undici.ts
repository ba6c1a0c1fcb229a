import { Agent, type Dispatcher, util } from 'undici'
import { type NotifyKitError, ResponseTooLargeError, TimeoutError } from '../../core/errors.js'
import type { ResponseHeaders } from '../http/response-headers.js'
import { redactErrorSecret } from '../text/redact.js'
import { Attempt, callerAbortError, connectionError, type ResponseGuard, responseGuard } from './attempt.js'
import type { Connector, Transport, TransportSettings, WireRequest, WireResponse } from './types.js'

/**
 * undici's connection pool as a connector: the keep-alive Agent the client made (closed with it), or
 * the user's dispatcher (ProxyAgent, MockAgent, the test kit's; never closed by the SDK).
 * @internal
 */
export function undiciConnector(dispatcher: Dispatcher, owned: boolean): Connector {
  return {
    transport: (settings) => new UndiciTransport(dispatcher, settings),
    close: async () => {
      if (owned) await dispatcher.close()
    },
  }
}

/** The keep-alive Agent a client makes for itself when given neither `dispatcher` nor `fetch`. */
export function createAgent(timeoutMs: number): Agent {
  return new Agent({
    connect: { timeout: timeoutMs },
    // The request core bounds each attempt itself; undici's own timers sit just past it.
    headersTimeout: timeoutMs + 1_000,
    bodyTimeout: timeoutMs + 1_000,
  })
}

/**
 * Sends one attempt through an undici Dispatcher and reads the whole response. It knows nothing of
 * retries, schemas or envelopes: it turns every failure into `ConnectionError`, `TimeoutError` or
 * `AbortError` with the undici error as `cause`.
 * @internal
 */
export class UndiciTransport implements Transport {
  readonly #dispatcher: Dispatcher
  readonly #origin: string
  readonly #guard: ResponseGuard

  constructor(dispatcher: Dispatcher, settings: TransportSettings) {
    this.#dispatcher = dispatcher
    this.#origin = settings.origin
    this.#guard = responseGuard(settings)
  }

  send(request: WireRequest, timeoutMs: number, signal: AbortSignal | undefined): Promise<WireResponse> {
    if (signal?.aborted) return Promise.reject(callerAbortError(signal))
    return new Promise((resolve, reject) => {
      const attempt = new UndiciAttempt(this.#guard, timeoutMs, signal, resolve, reject)
      try {
        this.#dispatcher.dispatch(
          {
            origin: this.#origin,
            path: request.path,
            method: request.method,
            headers: request.headers,
            body: request.body,
            // The attempt's own timer bounds connect, headers and body together; undici's header
            // and body timers are set just past it so that they never cut in first.
            headersTimeout: timeoutMs + 1_000,
            bodyTimeout: timeoutMs + 1_000,
          },
          attempt,
        )
      } catch (error) {
        // A dispatcher that throws instead of calling onError (a user's own, say).
        attempt.onError(error instanceof Error ? error : new Error(String(error)))
      }
    })
  }
}

/**
 * One attempt as an undici dispatch handler that collects the whole response as text. undici's
 * `request()` would wrap the body in a Readable stream (and the handler in an AsyncResource) only
 * for the SDK to read it whole at once; collecting the chunks here skips both. It uses the handler
 * callbacks `request()` itself uses, which every undici 7 dispatcher calls.
 *
 * The attempt ends exactly once: with the response, or with the first failure among the timer, the
 * caller's signal, the size limit and the connection. A failure the SDK decides on (timeout, abort,
 * too large) is reported at once; undici is told to abort, or, before the request reached a socket,
 * hears of it in `onConnect` and never sends it.
 */
class UndiciAttempt extends Attempt implements Dispatcher.DispatchHandler {
  readonly #guard: ResponseGuard
  readonly #timeoutMs: number
  readonly #resolve: (response: WireResponse) => void
  readonly #reject: (error: NotifyKitError) => void
  #abort: ((reason: Error) => void) | undefined
  #status = 0
  #headers: ResponseHeaders | undefined
  readonly #chunks: Buffer[] = []
  #size = 0

  constructor(
    guard: ResponseGuard,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    resolve: (response: WireResponse) => void,
    reject: (error: NotifyKitError) => void,
  ) {
    super(timeoutMs, signal)
    this.#guard = guard
    this.#timeoutMs = timeoutMs
    this.#resolve = resolve
    this.#reject = reject
  }

  onConnect(abort: (reason?: Error) => void): void {
    // Given up before undici reached a socket: the request is never sent.
    if (this.failure) abort(this.failure)
    else this.#abort = abort
  }

  onHeaders(status: number, rawHeaders: Buffer[], _resume: () => void, _statusText: string): boolean {
    // 1xx: informational, the response is still to come.
    if (status < 200) return true
    this.#status = status
    this.#headers = joinRepeated(util.parseHeaders(rawHeaders))
    const declared = Number(this.#headers['content-length'])
    if (declared > this.#guard.maxResponseBytes) {
      this.fail(new ResponseTooLargeError(this.#guard.maxResponseBytes))
      return false
    }
    return true
  }

  onData(chunk: Buffer): boolean {
    this.#size += chunk.length
    if (this.#size > this.#guard.maxResponseBytes) {
      this.fail(new ResponseTooLargeError(this.#guard.maxResponseBytes))
      return false
    }
    this.#chunks.push(chunk)
    return true
  }

  onComplete(): void {
    if (!this.end()) return
    const text = utf8Text(this.#chunks, this.#size)
    const { scrubber } = this.#guard
    // A server that echoes the key back must not put it into errors, logs or results.
    this.#resolve({
      status: this.#status,
      headers: scrubber.headers(this.#headers ?? {}),
      body: scrubber.text(text),
    })
  }

  onError(error: Error): void {
    if (!this.end()) return
    if (isUndiciTimeout(error)) {
      // The error becomes our `cause`: it must not carry the key.
      redactErrorSecret(error, this.#guard.apiKey)
      this.#reject(new TimeoutError(`Attempt timed out after ${this.#timeoutMs} ms`, { cause: error }))
      return
    }
    this.#reject(connectionError(error, this.#guard, this.#headers !== undefined))
  }

  protected abandoned(failure: NotifyKitError): void {
    this.#reject(failure)
    this.#abort?.(failure)
  }
}

/** The body as text, as undici's `body.text()` reads it: UTF-8, a leading byte order mark dropped. */
function utf8Text(chunks: Buffer[], size: number): string {
  if (size === 0) return ''
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  return bytes.toString('utf8', start)
}

function isUndiciTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
}

/**
 * undici gives a repeated header as an array; fetch joins it with `, `. Both transports hand back the
 * joined form, so `withResponse().response.headers` has one shape whatever carried the call.
 */
function joinRepeated(headers: Record<string, string | string[] | undefined>): ResponseHeaders {
  for (const name in headers) {
    const value = headers[name]
    if (Array.isArray(value)) headers[name] = value.join(', ')
  }
  return headers as ResponseHeaders
}
