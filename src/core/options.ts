import type { Dispatcher } from 'undici'
import type { ResponseHeaders } from './errors.js'
import type { NotifyKitHooks } from './hooks.js'
import type { Logger, LogLevel } from './logger.js'

/**
 * The part of WHATWG `fetch` the client uses: the global `fetch` of every runtime fits (Node's,
 * undici's, Bun's, Workers', Deno's, the one msw intercepts), and so does a wrapper. Written out here
 * so that the types need neither the DOM library nor Node's.
 * @example `new NotificationClient({ fetch: globalThis.fetch })`
 */
export type FetchFunction = (url: string, init: FetchRequestInit) => Promise<FetchResponse>

/**
 * What the client passes to `fetch`. Each field fits every runtime's `RequestInit`, also under
 * `exactOptionalPropertyTypes`: `body` is left out, never `undefined`, when there is none.
 */
export interface FetchRequestInit {
  method: string
  /** Lower-case names: a record, or name and value pairs where a name would not survive as a key. */
  headers: Record<string, string> | [string, string][]
  /** JSON text; absent on a request without a body (GET, DELETE). */
  body?: string
  signal: AbortSignal
  redirect: 'manual'
}

/** What the client reads of a fetch `Response`. */
export interface FetchResponse {
  readonly status: number
  readonly headers: { forEach(callback: (value: string, name: string) => void): void }
  /**
   * Used, where present, for a body whose declared length is within `maxResponseBytes`.
   * @example `const body = await response.text()`
   */
  text?(): Promise<string>
  readonly body: {
    getReader(): {
      read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>
      cancel(reason?: unknown): Promise<void>
    }
  } | null
}

/** How responses are checked against their schemas. */
export type ResponseValidation = 'lenient' | 'strict' | 'off'

/** How the client paces requests against the server's `trigger` rate limit. */
export type RateLimitMode = 'adaptive' | 'off'

/**
 * A rate limiter of your own, shared by clients that coordinate through a store (PostgreSQL, Redis):
 * pass it as `rateLimit` and it replaces the client's own pacing. The client asks it before each
 * attempt that draws from the server's `trigger` bucket and tells it each answer.
 * @example
 * ```ts
 * const shared: RateLimiter = {
 *   acquire: ({ cost }) => store.take('notifications', cost), // resolves when `cost` units are yours
 *   settle: (_, answer) => answer?.status === 429 && store.pause(answer.headers['retry-after']),
 * }
 * const client = new NotificationClient({ rateLimit: shared })
 * ```
 */
export interface RateLimiter {
  /**
   * Before each attempt of a trigger (1 unit), a bulk request or a broadcast (100 units each):
   * resolve (or return) when the attempt may go. A rejection fails the call with that error, and
   * nothing is sent.
   * @example `acquire: ({ cost, signal }) => store.take(cost, { signal })`
   */
  acquire(request: RateLimitRequest): PromiseLike<void> | void
  /**
   * After each attempt `acquire` let through: the answer's status and headers (`ratelimit-*`,
   * `retry-after`), or `undefined` when none came (a timeout, a reset). An exception here is ignored.
   * @example `settle: (request, answer) => answer?.status === 429 && store.refund(request.cost)`
   */
  settle?(request: RateLimitRequest, answer: RateLimitAnswer | undefined): void
}

/** An attempt asking a `RateLimiter` for its turn. */
export interface RateLimitRequest {
  /** Units the attempt takes from the server's `trigger` bucket. */
  readonly cost: number
  /** The call's `signal`: stop waiting when it aborts. */
  readonly signal: AbortSignal | undefined
  /** When the call must be done (epoch milliseconds, from `deadlineMs`); a later turn only delays its failure. */
  readonly deadline: number | undefined
}

/** The server's answer to an attempt, as a `RateLimiter` learns it. */
export interface RateLimitAnswer {
  readonly status: number
  /** Lower-case names. */
  readonly headers: ResponseHeaders
}

/** Options for every call of one client. Each can also come from the environment where noted. */
export interface ClientOptions {
  /**
   * The API key, sent as `Authorization: ApiKey <key>`. Falls back to `NOTIFYKIT_API_KEY`.
   * @example `new NotificationClient({ apiKey: process.env.NOTIFYKIT_API_KEY })`
   */
  apiKey?: string | undefined
  /**
   * The service's base URL, e.g. `https://api.example.com`. Falls back to `NOTIFYKIT_BASE_URL`.
   * Must be `https:`, or `http:` to a loopback address, unless `allowInsecureHttp` is set.
   * @example `new NotificationClient({ baseUrl: 'https://eu.api.example.com' })`
   */
  baseUrl?: string | undefined
  /**
   * Bound on each attempt, connect and body included, in milliseconds. Default 60 000.
   * @example `new NotificationClient({ timeoutMs: 5_000 })`
   */
  timeoutMs?: number | undefined
  /**
   * Retries after the first attempt for transient failures. Default 2 (at most 3 attempts).
   * @example `new NotificationClient({ maxRetries: 5 })`
   */
  maxRetries?: number | undefined
  /**
   * An undici `Dispatcher` to send through (ProxyAgent, MockAgent, the test kit's dispatchers), on
   * Node. The client never closes a dispatcher it did not create. Not with `fetch`.
   * @example `new NotificationClient({ dispatcher: new ProxyAgent('http://proxy:3128') })`
   */
  dispatcher?: Dispatcher | undefined
  /**
   * A WHATWG `fetch` to send through instead of undici, on any runtime: your instrumented fetch, a
   * test's (`fake.fetch`, or the global fetch that msw's `setupServer` intercepts). Runtimes without
   * Node sockets (Cloudflare Workers, Vercel Edge, Bun, Deno) use their own fetch without this option.
   * Not with `dispatcher`.
   * @example `new NotificationClient({ fetch: (url, init) => fetch(url, init) })`
   */
  fetch?: FetchFunction | undefined
  /**
   * Lets the client be constructed in a browser. The API key is a secret that every visitor of the
   * page could read: keep it on a server, and set this only for a page that is itself private.
   * @example `new NotificationClient({ dangerouslyAllowBrowser: true })`
   */
  dangerouslyAllowBrowser?: boolean | undefined
  /**
   * Headers added to every request. `Authorization` cannot be set here; use `apiKey`.
   * @example `new NotificationClient({ defaultHeaders: { 'x-team': 'growth' } })`
   */
  defaultHeaders?: Record<string, string> | undefined
  /**
   * `'lenient'` (default) warns, once per operation, on a response that drifted from its schema and
   * returns it as received; `'strict'` throws `ResponseValidationError` on every such response;
   * `'off'` skips the check. `'lenient'` checks every response for its kind of value (a read answered
   * with an array instead of an object throws in every mode but `'off'`), and the full schema on the
   * first 16 responses of each operation per client, then on every 64th: a server that drifts does so
   * on every response, so the warning still comes within 64 calls, at a fraction of the CPU (the full
   * check of a large notification costs about as much as parsing its JSON). Use `'strict'` to check all.
   * @example `new NotificationClient({ responseValidation: 'strict' })`
   */
  responseValidation?: ResponseValidation | undefined
  /**
   * Where log lines go; anything with `debug`, `info`, `warn` and `error`. Default `console`. Each
   * line is `logger[level](message, fields)`, the facts in one flat object: `console` and winston
   * take it as it is; pino takes the object first, so swap the arguments (see {@link Logger}).
   * @example
   * ```ts
   * const log = pino()
   * new NotificationClient({
   *   logger: {
   *     debug: (message, fields) => log.debug(fields, message),
   *     info: (message, fields) => log.info(fields, message),
   *     warn: (message, fields) => log.warn(fields, message),
   *     error: (message, fields) => log.error(fields, message),
   *   },
   * })
   * ```
   */
  logger?: Logger | undefined
  /**
   * `'off'`, `'error'`, `'warn'` (default), `'info'` (retries) or `'debug'` (every attempt).
   * Falls back to `NOTIFYKIT_LOG`.
   * @example `new NotificationClient({ logLevel: 'debug' })`
   */
  logLevel?: LogLevel | undefined
  /**
   * Log request and response bodies at `debug`. Off by default: bodies hold personal data.
   * @example `new NotificationClient({ logLevel: 'debug', logBodies: true })`
   */
  logBodies?: boolean | undefined
  /**
   * Allow `http:` to a non-loopback host. The key then travels in clear: only for private networks.
   * @example `new NotificationClient({ baseUrl: 'http://notify.internal', allowInsecureHttp: true })`
   */
  allowInsecureHttp?: boolean | undefined
  /**
   * Largest response body read, in bytes; a larger one fails the call. Default 10 MiB.
   * @example `new NotificationClient({ maxResponseBytes: 1024 * 1024 })`
   */
  maxResponseBytes?: number | undefined
  /**
   * `'adaptive'` (default): the client follows the server's `trigger` bucket from its `RateLimit-*`
   * headers and holds back a trigger, bulk or broadcast request that would overdraw it until the
   * bucket has refilled; after a 429 every such request of the client waits out its `Retry-After`
   * together. One pacing per API key and origin, shared with the clients `withOptions` derives.
   * Without those headers nothing ever waits. Beside other clients of the same key (a fleet of
   * serverless instances), each sends at a share of the bucket that it sets once per window (the
   * time the bucket refills eight bulk requests, or two fifths of itself) from the `RateLimit-Remaining`
   * they all see: its part of what the fleet drew, scaled down when the fleet drew too much, plus an
   * equal step, so that clients that never talk converge to equal shares. A new instance sends one
   * bulk request before it knows the bucket. The service's plans allow 60 (free), 240 (pro), 600
   * (business) and 6,000 (enterprise) trigger events a second, with a bucket of 5.5 s of that; on
   * free and pro it holds too few bulk requests to share, so bulk sends go one event at a time.
   * `'off'`: send at once, and let each 429 be retried on its own. A `RateLimiter` object: your own,
   * shared through a store, in place of this pacing.
   * @example `new NotificationClient({ rateLimit: 'off' })`
   */
  rateLimit?: RateLimitMode | RateLimiter | undefined
  /**
   * Callbacks on every call's start, attempts, retries and end, to trace and measure calls: one
   * object, or several in an array (called in order). A hook that throws never fails a call.
   * `otelHooks()` from `notifykit/otel` is OpenTelemetry on these hooks.
   * @example
   * ```ts
   * import { otelHooks } from 'notifykit/otel'
   * new NotificationClient({ hooks: [otelHooks(), { onRetry: ({ reason }) => console.warn(reason) }] })
   * ```
   */
  hooks?: NotifyKitHooks | readonly NotifyKitHooks[] | undefined
}

/** Options for one call. They override the client's for that call only. */
export interface RequestOptions {
  /**
   * Sent as `idempotency-key` on POST and PATCH, unchanged on every retry. Derive it from the
   * business event (`order-${id}-shipped`) so that re-running a job cannot send twice. Default: a
   * random UUID made once per call. At most 255 printable ASCII characters.
   * @example `client.events.trigger(event, { idempotencyKey: \`order-${order.id}-shipped\` })`
   */
  idempotencyKey?: string | undefined
  /**
   * Cancels the call, also between attempts; it then fails with `AbortError`.
   * @example `client.notifications.get(id, { signal: AbortSignal.timeout(2_000) })`
   */
  signal?: AbortSignal | undefined
  /**
   * Bound on each attempt for this call, in milliseconds.
   * @example `client.events.cancel(txId, { timeoutMs: 3_000 })`
   */
  timeoutMs?: number | undefined
  /**
   * Bound on the whole call, every attempt and wait included, in milliseconds.
   * @example `client.events.trigger(event, { deadlineMs: 10_000 })`
   */
  deadlineMs?: number | undefined
  /**
   * Retries for this call.
   * @example `client.events.trigger(event, { maxRetries: 0 })`
   */
  maxRetries?: number | undefined
  /**
   * Extra headers for this call.
   * @example `client.events.trigger(event, { headers: { 'x-trace-id': traceId } })`
   */
  headers?: Record<string, string> | undefined
  /**
   * Fields this version of notifykit does not type yet, added to the request as they are, after the
   * request is checked: to the body, to each event of a bulk call, or to the query of a read
   * (`notifications.list`, `subscribers.preferences.get`). A field notifykit types is refused here
   * (set it in the request, where it is checked), so a typo in the request itself is still caught.
   * Not for calls with neither a body nor a query (`cancel`, `notifications.get`).
   * @example `client.events.trigger(event, { extraFields: { newServerField: 'value' } })`
   */
  extraFields?: Readonly<Record<string, unknown>> | undefined
}

export const DEFAULT_TIMEOUT_MS = 60_000
export const DEFAULT_MAX_RETRIES = 2
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024

/** Progress of a `triggerBulk` call, reported as each request's outcome comes, in order. */
export interface BulkProgress {
  /** Events whose request succeeded so far. */
  sent: number
  /** Events whose request failed after its retries. */
  failed: number
  /** Events in the call. */
  total: number
}

export interface BulkTriggerOptions extends RequestOptions {
  /**
   * Requests in flight at once, counting those done and waiting for the ones before them. Default
   * 2: bulk calls cost 100 rate-limit units each.
   * @example `client.events.triggerBulk(events, { concurrency: 4 })`
   */
  concurrency?: number | undefined
  /**
   * Called after each request of at most 100 events settles, in the order of the requests. An
   * exception thrown here is ignored.
   * @example `client.events.triggerBulk(events, { onProgress: ({ sent, total }) => bar.update(sent / total) })`
   */
  onProgress?: ((progress: BulkProgress) => void) | undefined
}

/** Options of `triggerStream`: those of `triggerBulk` but progress, which the outcomes are. */
export interface TriggerStreamOptions extends Omit<BulkTriggerOptions, 'onProgress'> {
  /**
   * Chunks of the source (100 events each) to read past without sending, to resume a send that
   * stopped: pass the `chunkIndex` after the last outcome you recorded, with the same
   * `idempotencyKey` and the same source. Default 0.
   * @example `client.events.triggerStream(events(), { idempotencyKey: job.id, startAtChunk: saved.chunkIndex + 1 })`
   */
  startAtChunk?: number | undefined
}
