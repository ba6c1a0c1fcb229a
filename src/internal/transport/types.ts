import type { ResponseHeaders } from '../../core/errors.js'

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

/**
 * One attempt of one request, whatever carries it (undici on Node, `fetch` elsewhere). A transport
 * knows nothing of retries, schemas or envelopes: it turns every failure into `ConnectionError`,
 * `TimeoutError` or `AbortError` (or `ResponseTooLargeError`), with the cause kept and the key
 * scrubbed, and hands back the whole body as text.
 */
export interface Transport {
  send(request: WireRequest, timeoutMs: number, signal: AbortSignal | undefined): Promise<WireResponse>
}
