import { type NotifyKitError, ResponseTooLargeError } from '../../core/errors.js'
import type { FetchFunction, FetchRequestInit, FetchResponse } from '../../core/options.js'
import type { ResponseHeaders } from '../http/response-headers.js'
import {
  Attempt,
  callerAbortError,
  connectionError,
  describeError,
  type ResponseGuard,
  responseGuard,
} from './attempt.js'
import type { Connector, Transport, TransportSettings, WireRequest, WireResponse } from './types.js'

/** The runtime's fetch as it is now: interceptors (msw) and instrumentation replace it at any time. */
export function globalFetch(): FetchFunction | undefined {
  return (globalThis as { fetch?: FetchFunction }).fetch
}

/**
 * The global fetch, looked up at each call and called on `globalThis` (workerd throws "Illegal
 * invocation" for a fetch detached from it).
 */
export const callGlobalFetch: FetchFunction = (url, init) =>
  (globalFetch() as FetchFunction).call(globalThis, url, init)

/**
 * A `fetch` function as a connector: the runtime's own where there are no Node sockets (workerd,
 * edge, Bun, Deno), or the user's on any runtime. There is no pool of the SDK's to close.
 * @internal
 */
export function fetchConnector(fetch: FetchFunction): Connector {
  return { transport: (settings) => new FetchTransport(fetch, settings), close: async () => {} }
}

/**
 * One attempt over any WHATWG `fetch`, with the undici transport's contract: the whole body as text
 * under `maxResponseBytes`, redirects returned (never followed), every failure a `ConnectionError`,
 * `TimeoutError` or `AbortError` with the cause kept and the key scrubbed.
 *
 * `responseStarted` means what it means for undici: the status and headers had arrived (`fetch`
 * resolved) before the failure. A rejection of `fetch` itself is "before the response started", and
 * counts as a stale keep-alive socket (one free retry) only where the runtime says so with a reset
 * code in the error's causes, as Node's and Deno's fetch do; a bare "Network connection lost." from
 * workerd is an ordinary connection error, retried within `maxRetries`.
 * @internal
 */
export class FetchTransport implements Transport {
  readonly #fetch: FetchFunction
  readonly #origin: string
  readonly #guard: ResponseGuard

  constructor(fetch: FetchFunction, settings: TransportSettings) {
    this.#fetch = fetch
    this.#origin = settings.origin
    this.#guard = responseGuard(settings)
  }

  async send(
    request: WireRequest,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<WireResponse> {
    if (signal?.aborted) throw callerAbortError(signal)
    const attempt = new FetchAttempt(timeoutMs, signal)
    try {
      let response: FetchResponse
      try {
        // Guarded: the attempt ends on time even with a fetch that ignores its signal (a test double).
        const init: FetchRequestInit = {
          method: request.method,
          headers: fetchHeaders(request.headers),
          signal: attempt.signal,
          // A 3xx comes back as it is and its target is never requested ('error' is refused by workerd).
          redirect: 'manual',
        }
        if (request.body !== undefined) init.body = request.body
        response = await attempt.guard(this.#fetch(this.#origin + request.path, init))
      } catch (error) {
        throw attempt.failure ?? this.#connectionError(error, false)
      }
      const headers = readHeaders(response.headers)
      const body = await this.#readBody(response, headers, attempt)
      return {
        status: response.status,
        headers: this.#guard.scrubber.headers(headers),
        body: this.#guard.scrubber.text(body),
      }
    } finally {
      attempt.end()
    }
  }

  async #readBody(response: FetchResponse, headers: ResponseHeaders, attempt: FetchAttempt): Promise<string> {
    const limit = this.#guard.maxResponseBytes
    const stream = response.body
    if (!stream) return ''
    const declared = Number(headers['content-length'])
    // A body declared within the cap, that the runtime does not decompress, cannot outgrow it: read it
    // whole, the runtime's fastest way (UTF-8, a byte order mark dropped). Any other is counted as it comes.
    if (declared <= limit && headers['content-encoding'] === undefined && response.text) {
      try {
        return await attempt.guard(response.text())
      } catch (error) {
        throw attempt.failure ?? this.#connectionError(error, true)
      }
    }
    const reader = stream.getReader()
    // On a timeout or abort, cancelling ends a pending read at once, whatever the runtime does with
    // the aborted signal.
    attempt.onFailure = () => void reader.cancel().catch(ignore)
    if (declared > limit) attempt.fail(new ResponseTooLargeError(limit))
    // UTF-8, a leading byte order mark dropped: what undici's `body.text()` does.
    const decoder = new TextDecoder()
    let text = ''
    let size = 0
    for (;;) {
      let chunk: { done: boolean; value?: Uint8Array | undefined }
      try {
        chunk = await reader.read()
      } catch (error) {
        throw attempt.failure ?? this.#connectionError(error, true)
      }
      if (attempt.failure) throw attempt.failure
      if (chunk.done || !chunk.value) break
      size += chunk.value.byteLength
      if (size > limit) {
        attempt.fail(new ResponseTooLargeError(limit))
        throw attempt.failure
      }
      text += decoder.decode(chunk.value, { stream: true })
    }
    return text + decoder.decode()
  }

  #connectionError(error: unknown, responseStarted: boolean) {
    return connectionError(error, this.#guard, responseStarted, describeCauses)
  }
}

/**
 * The attempt's own AbortController, aborted when the attempt is given up (its timer, the caller's
 * signal, a body too large): combined by hand, since `AbortSignal.any` is missing in edge-runtime.
 */
class FetchAttempt extends Attempt {
  readonly #controller = new AbortController()
  #rejectGuarded: ((failure: NotifyKitError) => void) | undefined
  /** Runs when the attempt is given up: cancels a body being read. */
  onFailure: (() => void) | undefined

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** `work`'s outcome, or the attempt's failure if that comes first. */
  guard<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.failure) reject(this.failure)
      this.#rejectGuarded = reject
      work.then(resolve, reject)
    })
  }

  protected abandoned(failure: NotifyKitError): void {
    this.#rejectGuarded?.(failure)
    this.#controller.abort(failure)
    this.onFailure?.()
  }
}

/**
 * The request's headers as fetch takes them: the record itself, which fetch reads fastest, unless it
 * holds a header named `__proto__`, which fetch's copy by assignment would drop: then as pairs.
 */
function fetchHeaders(headers: Record<string, string>): FetchRequestInit['headers'] {
  return Object.hasOwn(headers, '__proto__') ? Object.entries(headers) : headers
}

/**
 * Lower-case names, a repeated header joined by `, `: the shape fetch's `Headers` iterates in, except
 * `set-cookie`, which it yields once per cookie and which is joined here the same way. Own properties
 * only: a header named `__proto__` or `constructor` is a header.
 */
function readHeaders(headers: FetchResponse['headers']): ResponseHeaders {
  const result: ResponseHeaders = {}
  headers.forEach((value, name) => {
    const joined = Object.hasOwn(result, name) ? `${result[name]}, ${value}` : value
    // Assigned, the fast way, except the one name an assignment would turn into a prototype change.
    if (name === '__proto__') {
      Object.defineProperty(result, name, {
        value: joined,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    } else {
      result[name] = joined
    }
  })
  return result
}

/** `fetch failed: connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED)`: Node's fetch hides the reason in `cause`. */
function describeCauses(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    parts.push(describeError(current))
    if (!(current instanceof Error)) break
    current = current.cause
  }
  return parts.join(': ')
}

function ignore(): void {}
