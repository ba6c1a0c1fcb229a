import { NotifyKitError } from './core/errors.js'
import type { LogLevel } from './core/logger.js'
import type { ClientOptions } from './core/options.js'
import { parseBaseUrl } from './internal/http/base-url.js'
import { checkApiKey, normalizeHeaders } from './internal/http/headers.js'
import { observer } from './internal/pipeline/call-observer.js'
import { externalPacer } from './internal/pipeline/external-pacer.js'
import { createRateLimiter, type Pacer } from './internal/pipeline/rate-limiter.js'
import { RequestCore, type SharedState } from './internal/pipeline/request-core.js'
import { RetryBudget } from './internal/pipeline/retry-budget.js'
import { fakeResets } from './internal/platform/fake-resets.js'
// The portable build resolves this import to ./internal/platform/fetch.js (tsup.config.ts).
import { platform } from './internal/platform/node.js'
import { readEnv, runtimeName } from './internal/platform/runtime.js'
import { LevelLogger } from './internal/text/level-logger.js'
import { callGlobalFetch, fetchConnector, globalFetch } from './internal/transport/fetch.js'
import { InFlight } from './internal/transport/in-flight.js'
import type { Connector } from './internal/transport/types.js'
import { checkClientOptionKeys, checkClientOptions } from './internal/validation/option-schemas.js'
import type { InferInput } from './internal/validation/standard-schema.js'
import { Events } from './resources/events/events.js'
import type { WorkflowSchemaMap } from './resources/events/operations.js'
import type {
  BroadcastEventParams,
  TriggerEventParams,
  WorkflowName,
  WorkflowPayloads,
  WorkflowSchemas,
} from './resources/events/workflows.js'
import { Notifications } from './resources/notifications.js'
import { Subscribers } from './resources/subscribers.js'
import { VERSION } from './version.js'

/** Client options, plus the workflows' payload schemas when you want them checked at runtime. */
export interface NotificationClientOptions<W extends object = WorkflowPayloads> extends ClientOptions {
  /**
   * Payload schemas by workflow name: payloads are checked before sending, and the client's types
   * are inferred from them.
   * @example
   * ```ts
   * new NotificationClient({ workflows: { welcome: z.object({ firstName: z.string() }) } })
   * ```
   */
  workflows?: WorkflowSchemas<W> | undefined
}

/** How the client reaches the network, shared by a client and every client `withOptions` derives from it. */
interface Connection {
  connector: Connector
  closed: boolean
  /** The attempts on the wire, of this client and of those derived from it: `close()` waits for them. */
  inFlight: InFlight
  closing?: Promise<void>
}

/**
 * The notification service client.
 *
 * @example
 * ```ts
 * import { NotificationClient } from 'notifykit'
 *
 * const client = new NotificationClient({
 *   apiKey: process.env.NOTIFYKIT_API_KEY, // the default when apiKey is left out
 *   baseUrl: 'https://api.example.com', // or NOTIFYKIT_BASE_URL
 * })
 * await client.events.trigger({ name: 'welcome', to: 'user-1', payload: { firstName: 'Ada' } })
 * await client.close()
 * ```
 */
export class NotificationClient<W extends object = WorkflowPayloads> {
  /** Preferences and in-app messages of a subscriber. */
  readonly subscribers: Subscribers
  /** Triggering, bulk triggering, broadcasting and cancelling events. */
  readonly events: Events<W>
  /** Reading notifications. */
  readonly notifications: Notifications

  readonly #options: NotificationClientOptions<W>
  readonly #connection: Connection
  /** By bucket; shared with the clients `withOptions` derives, whatever connection they use. */
  readonly #buckets: Map<string, BucketState>
  /** Every key of the family, scrubbed from the logs of each of its clients. */
  readonly #apiKeys: Set<string>
  /** False for a client made by `withOptions`: closing it leaves its parent's connection open. */
  readonly #ownsConnection: boolean

  /**
   * @param options Everything optional: `apiKey` and `baseUrl` fall back to `NOTIFYKIT_API_KEY` and
   * `NOTIFYKIT_BASE_URL`; a missing one is a `NotifyKitError` here, not at the first call.
   */
  constructor(options: NotificationClientOptions<W> = {}) {
    this.#options = { ...options }
    platform.checkRuntime(options.dangerouslyAllowBrowser === true)
    const settings = resolveSettings(options, readEnv)
    const parent = fromParent.get(options)
    const apiKeys = parent?.apiKeys ?? new Set<string>()
    apiKeys.add(settings.apiKey)
    const logger = new LevelLogger(options.logger ?? console, settings.logLevel, apiKeys)
    // Checked before the connection exists: a bad hook must not leave a pool open behind it.
    const hooks = observer(options.hooks, settings, logger)
    const shared = parent?.connection
    this.#ownsConnection = !shared
    this.#connection = shared ?? {
      connector: connect(options, settings),
      closed: false,
      inFlight: new InFlight(),
    }
    const buckets: Map<string, BucketState> = parent?.buckets ?? new Map()
    this.#buckets = buckets
    this.#apiKeys = apiKeys
    // One pacer and one retry budget per bucket (the server keeps one per API key, and another origin
    // is another server), for this client and those `withOptions` derives from it. Not per process:
    // that would be state shared by every test of a file, in a table keyed by the API key.
    const bucketKey = `${settings.origin} ${settings.apiKey}`
    const { rateLimit } = options
    const ownPacer = typeof rateLimit === 'object' ? externalPacer(rateLimit) : undefined
    // Made again only when the bucket is (after a fake's reset), not on every call.
    let current: { bucket: BucketState; state: SharedState } | undefined
    const sharedState = (): SharedState => {
      const bucket = bucketOf(buckets, bucketKey)
      if (current?.bucket !== bucket) {
        const rateLimiter = rateLimit === 'off' ? undefined : (ownPacer ?? bucket.pacer)
        current = { bucket, state: { rateLimiter, retryBudget: bucket.retryBudget } }
      }
      return current.state
    }
    const core = new RequestCore({
      transport: this.#connection.inFlight.track(
        this.#connection.connector.transport({
          origin: settings.origin,
          maxResponseBytes: settings.maxResponseBytes,
          apiKey: settings.apiKey,
        }),
      ),
      connection: this.#connection,
      basePath: settings.basePath,
      authorization: `ApiKey ${settings.apiKey}`,
      userAgent: `notifykit/${VERSION} ${RUNTIME}`,
      defaultHeaders: settings.defaultHeaders,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      responseValidation: settings.responseValidation,
      logger,
      logBodies: options.logBodies ?? false,
      shared: sharedState,
      hooks,
    })
    this.subscribers = new Subscribers(core)
    this.events = new Events<W>(core, options.workflows as WorkflowSchemaMap | undefined)
    this.notifications = new Notifications(core)
  }

  /**
   * A client with some options changed that shares this client's connection pool (or `fetch`):
   * another API key per tenant, another timeout. Closing this client closes the pool, and calls on
   * the derived clients then fail with `ClientClosedError`; closing a derived one closes nothing.
   *
   * @example
   * ```ts
   * const tenantClient = client.withOptions({ apiKey: tenant.apiKey, timeoutMs: 5_000 })
   * ```
   */
  withOptions(overrides: Partial<NotificationClientOptions<W>>): NotificationClient<W> {
    const options: NotificationClientOptions<W> = { ...this.#options, ...overrides }
    const sameNetwork = overrides.dispatcher === undefined && overrides.fetch === undefined
    if (!sameNetwork) {
      // A new way to the network replaces the parent's, whichever kind it was.
      if (overrides.dispatcher === undefined) delete options.dispatcher
      if (overrides.fetch === undefined) delete options.fetch
    }
    fromParent.set(options, {
      connection: sameNetwork ? this.#connection : undefined,
      buckets: this.#buckets,
      apiKeys: this.#apiKeys,
    })
    return new NotificationClient<W>(options)
  }

  /**
   * Stops sending and releases the connection pool the client created (never a `dispatcher` or
   * `fetch` you passed in). It is a graceful close, the same over undici and over `fetch`: the
   * promise resolves once every request already on the wire (of this client and of the clients
   * `withOptions` derived from it) has its response or its error, and the calls they belong to
   * resolve or reject with that outcome; none of them is aborted, and none is retried after the
   * close: a call that would retry fails with `ClientClosedError` instead (one waiting between two
   * attempts, when its wait ends). A call made after `close()` fails with `ClientClosedError`,
   * nothing sent. To cut calls short instead, pass a `signal` to them and abort it. Closing a client made by
   * `withOptions` closes nothing.
   *
   * @example
   * ```ts
   * try { await client.events.trigger(event) } finally { await client.close() }
   * ```
   */
  close(): Promise<void> {
    if (!this.#ownsConnection) return Promise.resolve()
    const connection = this.#connection
    // Closing twice (a `finally` after an explicit close) is not an error, and waits the same.
    if (!connection.closing) {
      connection.closed = true
      connection.closing = connection.inFlight.settled().then(() => connection.connector.close())
    }
    return connection.closing
  }

  /** Never shows the key or the settings: clients end up in logs through `console.log(obj)`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'NotificationClient {}'
  }

  toJSON(): Record<string, never> {
    return {}
  }
}

/**
 * The payload map of a typed client (`WorkflowPayloadsOf<typeof client>`) or of a `workflows`
 * schema map (`WorkflowPayloadsOf<typeof workflows>`): each workflow's payload is its schema's input type.
 * @example
 * ```ts
 * const workflows = { welcome: z.object({ firstName: z.string() }) }
 * type Workflows = WorkflowPayloadsOf<typeof workflows> // { welcome: { firstName: string } }
 * ```
 */
export type WorkflowPayloadsOf<T> =
  T extends NotificationClient<infer W extends object> ? W : { [Name in keyof T]: InferInput<T[Name]> }

/**
 * One event of a typed client, to name events built apart from the call:
 * `TriggerEventOf<typeof client, 'weekly-digest'>` for one workflow, `TriggerEventOf<typeof client>`
 * for any of them. `T` may also be a `workflows` schema map.
 * @example
 * ```ts
 * const events: TriggerEventOf<typeof client, 'weekly-digest'>[] = users.map((user) => ({
 *   name: 'weekly-digest',
 *   to: user.id,
 *   payload: { week: '2026-W47' },
 * }))
 * ```
 */
export type TriggerEventOf<
  T,
  Name extends WorkflowName<WorkflowPayloadsOf<T>> = WorkflowName<WorkflowPayloadsOf<T>>,
> = TriggerEventParams<WorkflowPayloadsOf<T>, Name>

/** A broadcast of a typed client (or of a `workflows` schema map), as `TriggerEventOf` for triggers. */
export type BroadcastEventOf<
  T,
  Name extends WorkflowName<WorkflowPayloadsOf<T>> = WorkflowName<WorkflowPayloadsOf<T>>,
> = BroadcastEventParams<WorkflowPayloadsOf<T>, Name>

/** The runtime part of the user-agent: `node/v20.18.1`, `bun/1.4.4`, `workerd`, … */
const RUNTIME = runtimeName()

/** What a client family (a client and those `withOptions` derives) keeps per API key and origin. */
interface BucketState {
  pacer: Pacer
  retryBudget: RetryBudget
  /** `fakeResets()` when it was made: a test's spent budget or 429 pause must not reach the next test. */
  resets: number
}

/** The family's state for a bucket, made afresh after a fake's reset (in tests; never otherwise). */
function bucketOf(buckets: Map<string, BucketState>, key: string): BucketState {
  const resets = fakeResets()
  let bucket = buckets.get(key)
  if (bucket?.resets !== resets) {
    bucket = { pacer: createRateLimiter(), retryBudget: new RetryBudget(), resets }
    buckets.set(key, bucket)
  }
  return bucket
}

// Passes the connection (unless replaced) and the buckets' state from `withOptions` to the new
// client's constructor without making them options.
const fromParent = new WeakMap<
  object,
  { connection: Connection | undefined; buckets: Map<string, BucketState>; apiKeys: Set<string> }
>()

interface Settings {
  apiKey: string
  origin: string
  basePath: string
  timeoutMs: number
  maxRetries: number
  maxResponseBytes: number
  logLevel: LogLevel
  responseValidation: 'lenient' | 'strict' | 'off'
  defaultHeaders: Record<string, string>
}

function resolveSettings(options: ClientOptions, env: (name: string) => string | undefined): Settings {
  checkClientOptionKeys(options)
  const apiKey = options.apiKey ?? env('NOTIFYKIT_API_KEY')
  const baseUrl = options.baseUrl ?? env('NOTIFYKIT_BASE_URL')
  const missing = [
    apiKey ? undefined : 'an API key (apiKey option or NOTIFYKIT_API_KEY)',
    baseUrl ? undefined : 'a base URL (baseUrl option or NOTIFYKIT_BASE_URL)',
  ].filter(Boolean)
  if (!apiKey || !baseUrl) throw new NotifyKitError(`NotificationClient needs ${missing.join(' and ')}`)
  checkApiKey(apiKey)
  const { origin, basePath } = parseBaseUrl(baseUrl, options.allowInsecureHttp ?? false)
  return {
    apiKey,
    origin,
    basePath,
    ...checkClientOptions(options, env('NOTIFYKIT_LOG')),
    defaultHeaders: normalizeHeaders(options.defaultHeaders, 'defaultHeaders'),
  }
}

/** The user's `fetch` or `dispatcher`, else the build's own: undici on Node, the runtime's fetch elsewhere. */
function connect(options: ClientOptions, settings: Settings): Connector {
  if (options.dispatcher !== undefined && options.fetch !== undefined) {
    throw new NotifyKitError('Pass either dispatcher (undici) or fetch, not both')
  }
  const userFetch = options.fetch
  if (userFetch !== undefined) {
    // The global fetch is looked up at each call, as code calling `fetch(…)` does: msw's setupServer
    // and other interceptors replace it after the client may have been built.
    return fetchConnector(userFetch === globalFetch() ? callGlobalFetch : userFetch)
  }
  if (options.dispatcher !== undefined) return platform.dispatcherConnector(options.dispatcher)
  return platform.defaultConnector(settings.timeoutMs)
}
