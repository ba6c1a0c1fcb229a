import type { FetchHandler } from './fetch-handler.js'

/**
 * WHATWG `fetch`'s signature, in the global `Request`, `Response` and `RequestInit` types that every
 * runtime declares (Node's types, Deno's, workers'), so that it compiles without the DOM library.
 */
export type InMemoryFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/**
 * A `fetch` answered by a handler in memory, with no socket: it runs wherever `Request` and
 * `Response` exist. Where a caller can tell, it fails as fetch fails: an aborted signal rejects with
 * the signal's reason, before or while the handler answers (even one that never does), and a
 * dropped connection (`Response.error()`) rejects with Node's `TypeError: fetch failed` over a
 * `ECONNRESET` cause, so a client retries it as the reset it stands for.
 */
export function inMemoryFetch(handle: FetchHandler): InMemoryFetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const signal = init?.signal ?? request.signal
    signal.throwIfAborted()
    const response = await untilAborted(answer(handle, request), signal)
    if (!response) throw networkError(new Error(`No handler answered ${request.method} ${request.url}`))
    if (response.type === 'error') throw networkError(connectionReset())
    return response
  }
}

async function answer(handle: FetchHandler, request: Request): Promise<Response | undefined> {
  try {
    return await handle(request)
  } catch (error) {
    throw networkError(error)
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** What Node's fetch rejects with for anything below HTTP: the reason is in `cause`. */
function networkError(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause })
}

function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' })
}
