import { Agent, type Dispatcher } from 'undici'
import type { z } from 'zod'
import { NotifyKitError } from './core/errors.js'
import type { LogLevel } from './core/logger.js'
import type { ClientOptions } from './core/options.js'
import { parseBaseUrl } from './internal/base-url.js'
import { checkApiKey, normalizeHeaders } from './internal/headers.js'
import { LevelLogger } from './internal/logger.js'
import { checkClientOptions } from './internal/option-schemas.js'
import { RequestCore } from './internal/request.js'
import { UndiciTransport } from './internal/transport/undici.js'
import { Events } from './resources/events/index.js'
import type { WorkflowPayloads, WorkflowSchemas } from './resources/events/workflows.js'
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
  workflows?: WorkflowSchemas<W>
}

/** The connection pool, shared by a client and every client derived from it by `withOptions`. */
interface Pool {
  dispatcher: Dispatcher
  owned: boolean
  closed: boolean
}

/**
 * The notification service client.
 *
 * @example
 * ```ts
 * import { NotificationClient } from 'notifykit'
 *
 * const client = new NotificationClient({ apiKey: process.env.NOTIFY_KEY, baseUrl: 'https://api.example.com' })
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
  readonly #pool: Pool
  readonly #ownsPool: boolean

  /**
   * @param options Everything optional: `apiKey` and `baseUrl` fall back to `NOTIFYKIT_API_KEY` and
   * `NOTIFYKIT_BASE_URL`; a missing one is a `NotifyKitError` here, not at the first call.
   */
  constructor(options: NotificationClientOptions<W> = {}) {
    this.#options = { ...options }
    const settings = resolveSettings(options, process.env)
    const derivedFrom = derivedPools.get(options)
    this.#ownsPool = !options.dispatcher && !derivedFrom
    this.#pool = options.dispatcher
      ? { dispatcher: options.dispatcher, owned: false, closed: false }
      : (derivedFrom ?? { dispatcher: createAgent(settings.timeoutMs), owned: true, closed: false })
    const core = new RequestCore({
      transport: new UndiciTransport(
        this.#pool.dispatcher,
        settings.origin,
        settings.maxResponseBytes,
        settings.apiKey,
      ),
      basePath: settings.basePath,
      authorization: `ApiKey ${settings.apiKey}`,
      userAgent: `notifykit/${VERSION} node/${process.version}`,
      defaultHeaders: settings.defaultHeaders,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      responseValidation: settings.responseValidation,
      logger: new LevelLogger(options.logger ?? console, settings.logLevel, settings.apiKey),
      logBodies: options.logBodies ?? false,
    })
    this.subscribers = new Subscribers(core)
    this.events = new Events<W>(core, options.workflows as Readonly<Record<string, z.ZodType>> | undefined)
    this.notifications = new Notifications(core)
  }

  /**
   * A client with some options changed that shares this client's connection pool: another API key
   * per tenant, another timeout. Closing this client closes the pool; closing the derived one does not.
   *
   * @example
   * ```ts
   * const tenantClient = client.withOptions({ apiKey: tenant.apiKey, timeoutMs: 5_000 })
   * ```
   */
  withOptions(overrides: Partial<NotificationClientOptions<W>>): NotificationClient<W> {
    const options: NotificationClientOptions<W> = { ...this.#options, ...overrides }
    if (!overrides.dispatcher) derivedPools.set(options, this.#pool)
    return new NotificationClient<W>(options)
  }

  /**
   * Closes the connection pool the client created (never a `dispatcher` you passed in). Calls in
   * flight finish first.
   *
   * @example
   * ```ts
   * try { await client.events.trigger(event) } finally { await client.close() }
   * ```
   */
  async close(): Promise<void> {
    if (!this.#ownsPool || !this.#pool.owned || this.#pool.closed) return
    // Closing twice (a `finally` after an explicit close) is not an error.
    this.#pool.closed = true
    await this.#pool.dispatcher.close()
  }

  /** Never shows the key or the settings: clients end up in logs through `console.log(obj)`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'NotificationClient {}'
  }

  toJSON(): Record<string, never> {
    return {}
  }
}

// Passes the pool from `withOptions` to the new client's constructor without making it an option.
const derivedPools = new WeakMap<object, Pool>()

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

function resolveSettings(options: ClientOptions, env: NodeJS.ProcessEnv): Settings {
  const apiKey = options.apiKey ?? env.NOTIFYKIT_API_KEY
  const baseUrl = options.baseUrl ?? env.NOTIFYKIT_BASE_URL
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
    ...checkClientOptions(options, env.NOTIFYKIT_LOG),
    defaultHeaders: normalizeHeaders(options.defaultHeaders, 'defaultHeaders'),
  }
}

function createAgent(timeoutMs: number): Agent {
  return new Agent({
    connect: { timeout: timeoutMs },
    // The request core bounds each attempt itself; undici's own timers sit just past it.
    headersTimeout: timeoutMs + 1_000,
    bodyTimeout: timeoutMs + 1_000,
  })
}
