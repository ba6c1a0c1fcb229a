import type { ResponseHeaders } from '../http/response-headers.js'

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

/** What every transport of one client is built with. */
export interface TransportSettings {
  /** `https://host:port`: each request's path is sent to it. */
  origin: string
  maxResponseBytes: number
  /** Only to scrub it from what comes back (errors, echoed responses): the header is built elsewhere. */
  apiKey: string
}

/**
 * How a client reaches the network, shared by the clients `withOptions` derives from it: undici's
 * connection pool, or a `fetch` function. Each client builds its own transport on it, with its own
 * origin and key.
 */
export interface Connector {
  transport(settings: TransportSettings): Transport
  /** Releases what the SDK created (the keep-alive Agent); never a dispatcher or fetch the user passed. */
  close(): Promise<void>
}
