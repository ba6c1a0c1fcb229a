import { Readable } from 'node:stream'
import { Dispatcher, errors } from 'undici'
import type { FetchHandler } from './fetch-handler.js'

/**
 * An undici `Dispatcher` that answers every request from a Fetch-style handler, in memory, with no
 * socket. It is how msw handlers and the fake service reach the SDK's real request pipeline:
 * msw cannot intercept undici's own `Dispatcher.request()`, so tests pass this as `dispatcher`. The
 * handler's `Request` carries a signal that aborts when the client gives the request up (its
 * timeout, the caller's signal).
 *
 * @example
 * ```ts
 * const dispatcher = new FetchHandlerDispatcher((request) => Response.json({ data: true }))
 * const client = new NotificationClient({ apiKey: 'test', baseUrl: 'https://api.test', dispatcher })
 * ```
 */
export class FetchHandlerDispatcher extends Dispatcher {
  readonly #handle: FetchHandler
  #closed = false

  constructor(handle: FetchHandler) {
    super()
    this.#handle = handle
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.#closed) throw new errors.ClientClosedError()
    void answer(this.#handle, options, toControlledHandler(handler))
    return true
  }

  override close(): Promise<void>
  override close(callback: () => void): void
  override close(callback?: () => void): Promise<void> | undefined {
    this.#closed = true
    if (callback) {
      queueMicrotask(callback)
      return undefined
    }
    return Promise.resolve()
  }

  override destroy(): Promise<void>
  override destroy(error: Error | null): Promise<void>
  override destroy(callback: () => void): void
  override destroy(error: Error | null, callback: () => void): void
  override destroy(
    errorOrCallback?: Error | null | (() => void),
    callback?: () => void,
  ): Promise<void> | undefined {
    this.#closed = true
    const done = typeof errorOrCallback === 'function' ? errorOrCallback : callback
    if (done) {
      queueMicrotask(done)
      return undefined
    }
    return Promise.resolve()
  }
}

/** The subset of undici's new-style handler this bridge drives, whatever style the caller passed. */
interface ControlledHandler {
  start(controller: Controller): void
  headers(
    controller: Controller,
    status: number,
    headers: Record<string, string | string[]>,
    text: string,
  ): void
  data(controller: Controller, chunk: Buffer): void
  end(controller: Controller): void
  error(controller: Controller, error: Error): void
}

class Controller implements Dispatcher.DispatchController {
  paused = false
  // Also the signal of the Request the handler gets: a handler that sends it on (msw's pass-through)
  // stops when the client gives up.
  readonly #aborter = new AbortController()
  #onResume: (() => void) | undefined

  get aborted(): boolean {
    return this.#aborter.signal.aborted
  }

  get reason(): Error | null {
    return this.aborted ? (this.#aborter.signal.reason as Error) : null
  }

  get signal(): AbortSignal {
    return this.#aborter.signal
  }

  abort(reason: Error): void {
    if (this.aborted) return
    this.#aborter.abort(reason)
    this.resume()
  }

  /** Resolves when the request is aborted: a handler that never answers must not hang a timed-out request. */
  whenAborted(): Promise<void> {
    if (this.aborted) return Promise.resolve()
    return new Promise((resolve) => this.signal.addEventListener('abort', () => resolve(), { once: true }))
  }

  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    const onResume = this.#onResume
    this.#onResume = undefined
    onResume?.()
  }

  /** Resolves once the consumer is ready for more data (it is not paused). */
  ready(): Promise<void> {
    if (!this.paused) return Promise.resolve()
    return new Promise((resolve) => {
      this.#onResume = resolve
    })
  }
}

async function answer(handle: FetchHandler, options: Dispatcher.DispatchOptions, handler: ControlledHandler) {
  const controller = new Controller()
  try {
    handler.start(controller)
    if (controller.aborted) throw controller.reason
    const request = await toFetchRequest(options, controller.signal)
    const response = await Promise.race([handle(request), controller.whenAborted()])
    if (controller.aborted) throw controller.reason
    if (!response) {
      throw new errors.UndiciError(`No handler answered ${request.method} ${request.url}`)
    }
    if (response.type === 'error') {
      throw new errors.SocketError('other side closed')
    }
    handler.headers(controller, response.status, headersOf(response), response.statusText)
    if (response.body) {
      for await (const chunk of response.body) {
        await controller.ready()
        if (controller.aborted) throw controller.reason
        handler.data(controller, Buffer.from(chunk))
      }
    }
    if (controller.aborted) throw controller.reason
    handler.end(controller)
  } catch (error) {
    handler.error(controller, error instanceof Error ? error : new Error(String(error)))
  }
}

async function toFetchRequest(options: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<Request> {
  const url = new URL(options.path, options.origin ?? undefined)
  const method = options.method.toUpperCase()
  const body = method === 'GET' || method === 'HEAD' ? undefined : await bodyBytes(options.body)
  return new Request(url, { method, headers: headerPairs(options.headers), body, signal })
}

async function bodyBytes(body: Dispatcher.DispatchOptions['body']): Promise<Uint8Array | undefined> {
  if (body == null) return undefined
  if (typeof body === 'string') return Buffer.from(body)
  if (body instanceof Uint8Array) return body
  if (body instanceof Readable || Symbol.asyncIterator in Object(body)) {
    const chunks: Buffer[] = []
    for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(Buffer.from(chunk))
    return Buffer.concat(chunks)
  }
  throw new errors.InvalidArgumentError('FetchHandlerDispatcher supports string, bytes and stream bodies')
}

function headerPairs(headers: Dispatcher.DispatchOptions['headers']): [string, string][] {
  const pairs: [string, string][] = []
  if (headers == null) return pairs
  const add = (name: unknown, value: unknown) => {
    if (value === undefined || value === null) return
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([String(name), String(one)])
  }
  if (Array.isArray(headers)) {
    const flat = headers.flat() as unknown[]
    for (let i = 0; i + 1 < flat.length; i += 2) add(flat[i], flat[i + 1])
  } else if (Symbol.iterator in Object(headers) && !isPlainRecord(headers)) {
    for (const [name, value] of headers as Iterable<[string, string | string[] | undefined]>) add(name, value)
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) add(name, value)
  }
  return pairs
}

function isPlainRecord(value: unknown): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function headersOf(response: Response): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = Object.create(null)
  response.headers.forEach((value, name) => {
    result[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) result['set-cookie'] = cookies
  return result
}

/** Drives either handler style of undici 7: the new controller-based one or the legacy callbacks. */
function toControlledHandler(handler: Dispatcher.DispatchHandler): ControlledHandler {
  if (handler.onRequestStart) {
    return {
      start: (c) => handler.onRequestStart?.(c, {}),
      headers: (c, status, headers, text) => handler.onResponseStart?.(c, status, headers, text),
      data: (c, chunk) => handler.onResponseData?.(c, chunk),
      end: (c) => handler.onResponseEnd?.(c, {}),
      error: (c, error) => handler.onResponseError?.(c, error),
    }
  }
  return {
    start: (c) => handler.onConnect?.((reason) => c.abort(reason ?? new errors.RequestAbortedError())),
    headers: (c, status, headers, text) => {
      const raw: Buffer[] = []
      for (const [name, value] of Object.entries(headers)) {
        for (const one of Array.isArray(value) ? value : [value])
          raw.push(Buffer.from(name), Buffer.from(one))
      }
      if (handler.onHeaders?.(status, raw, () => c.resume(), text) === false) c.pause()
    },
    data: (c, chunk) => {
      if (handler.onData?.(chunk) === false) c.pause()
    },
    end: () => handler.onComplete?.([]),
    error: (_c, error) => handler.onError?.(error),
  }
}
