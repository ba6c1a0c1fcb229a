import { announceFakeReset } from '../../internal/platform/fake-resets.js'
import { type InMemoryFetch, inMemoryFetch } from '../in-memory-fetch.js'
import { FetchHandlerDispatcher, serveFetchHandler } from '../platform/node.js'
import type { ServedHandler } from '../serve.js'
import { advance } from './engine.js'
import { RequestPipeline } from './pipeline.js'
import { preferencesView } from './preferences.js'
import { SeedLog } from './seeds.js'
import type { FakeState } from './state.js'
import type {
  FakeFault,
  FakeMessage,
  FakeNotification,
  FakePreferences,
  FakeRequestRecord,
  FakeServiceOptions,
  FakeSubscriber,
  FakeSubscriberRecord,
  FakeTenant,
  FakeTopic,
  FakeWorkflow,
} from './types.js'

/**
 * Creates an in-memory fake of the notification service that behaves like the real server: the nine
 * operations with their state, the `{ data }` envelope and error bodies, API key checks, idempotency
 * keys, optional rate limiting, and fault injection for resilience tests.
 *
 * @example
 * ```ts
 * import { NotificationClient } from 'notifykit'
 * import { createFakeService } from 'notifykit/testing'
 *
 * const fake = createFakeService({
 *   apiKey: 'test-key',
 *   workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] }],
 * })
 * const client = new NotificationClient({ apiKey: 'test-key', baseUrl: 'https://fake.test', dispatcher: fake.dispatcher })
 * await client.events.trigger({ name: 'welcome', to: { subscriberId: 'u1', email: 'a@b.c' } })
 * expect(fake.notifications).toHaveLength(1)
 * ```
 */
export function createFakeService(options: FakeServiceOptions = {}): FakeService {
  return new FakeService(options)
}

/** The fake service; create it with {@link createFakeService}. */
export class FakeService {
  readonly #options: FakeServiceOptions
  readonly #seeds: SeedLog
  #state: FakeState
  readonly #pipeline: RequestPipeline
  #dispatcher: FetchHandlerDispatcher | undefined

  constructor(options: FakeServiceOptions = {}) {
    // The clock is a function, which structuredClone refuses; the rest is copied so later edits by
    // the test do not change what reset() restores.
    const { now, ...data } = options
    this.#options = { ...structuredClone(data), ...(now === undefined ? {} : { now }) }
    this.#seeds = new SeedLog(this.#options)
    this.#state = this.#seeds.fresh()
    this.#pipeline = new RequestPipeline(this.#options, () => this.#state)
  }

  /**
   * Answers one Fetch `Request` like the real server, whatever its origin. Bound, so it can be passed
   * around on its own (to msw, a dispatcher, a server).
   *
   * @example
   * ```ts
   * const response = await fake.handle(
   *   new Request('https://fake.test/v1/notifications/abc', { headers: { authorization: 'ApiKey k' } }),
   * )
   * response.status // 404
   * ```
   */
  readonly handle = (request: Request): Promise<Response> => this.#pipeline.handle(request)

  /**
   * A WHATWG `fetch` answering from {@link FakeService.handle} in memory, no socket: the way to reach
   * the fake on every runtime (Node, Bun, Deno, workerd, edge, browsers), from the client or from any
   * code that takes a fetch. An aborted signal rejects with its reason, even during `fake.delay()`; a
   * dropped-connection fault rejects as a reset connection does. Bound, like `handle`.
   *
   * @example
   * ```ts
   * const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch })
   * ```
   */
  readonly fetch: InMemoryFetch = inMemoryFetch(this.handle)

  /**
   * An undici `Dispatcher` answering from {@link FakeService.handle} in memory, no socket. Node only;
   * {@link FakeService.fetch} works everywhere.
   *
   * @example
   * ```ts
   * const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', dispatcher: fake.dispatcher })
   * ```
   */
  get dispatcher(): FetchHandlerDispatcher {
    this.#dispatcher ??= new FetchHandlerDispatcher(this.handle)
    return this.#dispatcher
  }

  /**
   * Serves the fake over HTTP on 127.0.0.1 (an ephemeral port unless `port` is given), for code
   * that must go through a real socket.
   *
   * @example
   * ```ts
   * const server = await fake.listen()
   * const client = new NotificationClient({ apiKey: 'k', baseUrl: server.baseUrl })
   * // ...
   * await server.close()
   * ```
   */
  listen(options: { port?: number } = {}): Promise<ServedHandler> {
    return serveFetchHandler(this.handle, { port: options.port ?? 0 })
  }

  /**
   * Adds a workflow (or replaces the one with the same identifier, keeping its `_id`). A seed, like
   * the options: `reset()` keeps it.
   *
   * @example
   * ```ts
   * fake.addWorkflow({ identifier: 'digest-demo', steps: [{ type: 'digest', amount: 10 }, { type: 'email' }] })
   * ```
   */
  addWorkflow(workflow: FakeWorkflow): void {
    this.#seeds.add(this.#state, { kind: 'workflow', value: workflow })
  }

  /**
   * Adds a subscriber, or updates the fields given of an existing one. A seed: `reset()` keeps it.
   *
   * @example
   * ```ts
   * fake.addSubscriber({ subscriberId: 'u1', email: 'u1@example.com' })
   * ```
   */
  addSubscriber(subscriber: FakeSubscriber): void {
    this.#seeds.add(this.#state, { kind: 'subscriber', value: subscriber })
  }

  /**
   * Adds a topic, or adds subscribers to an existing one. Unknown subscribers are created. A seed:
   * `reset()` keeps it.
   *
   * @example
   * ```ts
   * fake.addTopic({ topicKey: 'team', subscribers: ['u1', 'u2'] })
   * ```
   */
  addTopic(topic: FakeTopic): void {
    this.#seeds.add(this.#state, { kind: 'topic', value: topic })
  }

  /**
   * Adds a tenant (or replaces the one with the same identifier). A seed: `reset()` keeps it.
   *
   * @example
   * ```ts
   * fake.addTenant({ identifier: 'acme', name: 'Acme Inc.' })
   * ```
   */
  addTenant(tenant: FakeTenant): void {
    this.#seeds.add(this.#state, { kind: 'tenant', value: tenant })
  }

  /**
   * Makes the next request(s) fail: with an HTTP status (nothing applied), or with a dropped
   * connection, optionally after applying the request (`afterApply`), as when a response is lost on
   * the way back. `method`, `path`, `idempotencyKey` and `when` aim the fault at the requests it is
   * for; without them it takes the next requests, whatever they are. Faults wait in the order armed,
   * and each request takes the first one that targets it. Unknown keys are refused.
   *
   * A single dropped connection is retried at once by notifykit, free, as a stale keep-alive socket
   * (even with `maxRetries: 0`): your code never sees it. Arm `times: maxRetries + 1` drops (at
   * least 2) for the call to fail with `ConnectionError`.
   *
   * @example
   * ```ts
   * fake.failNext({ status: 503, times: 2 })
   * fake.failNext({ dropConnection: true, afterApply: true })
   * // The third chunk of a bulk trigger, whichever order the chunks arrive in:
   * fake.failNext({ path: '/v1/events/trigger/bulk', idempotencyKey: /:2$/, status: 503, times: 3 })
   * ```
   */
  failNext(fault: FakeFault): void {
    this.#pipeline.faults.push(fault)
  }

  /**
   * Delays every later answer by `ms` (0 turns it off). A request holding an idempotency key keeps
   * it "in flight" for that time, so a concurrent request with the same key gets 409. Uses
   * `setTimeout`, so vitest's fake timers drive it.
   *
   * @example
   * ```ts
   * fake.delay(200)
   * const pending = client.events.trigger(params)
   * await vi.advanceTimersByTimeAsync(200)
   * ```
   */
  delay(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('delay: ms must be a non-negative number')
    this.#pipeline.delayMs = ms
  }

  /**
   * Every request received, in order, faults and refusals included.
   *
   * @example
   * ```ts
   * expect(fake.requests.map((r) => r.headers['idempotency-key'])).toEqual([key, key])
   * ```
   */
  get requests(): FakeRequestRecord[] {
    return structuredClone(this.#pipeline.requests)
  }

  /**
   * Stored notifications (one per trigger and recipient), oldest first. A copy: later changes do not
   * show in it.
   *
   * @example
   * ```ts
   * expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['u1', 'u2'])
   * ```
   */
  get notifications(): FakeNotification[] {
    advance(this.#state)
    return structuredClone(this.#state.notifications)
  }

  /**
   * A subscriber's in-app messages, oldest first.
   *
   * @example
   * ```ts
   * expect(fake.messages('u1').filter((m) => !m.read)).toHaveLength(0)
   * ```
   */
  messages(subscriberId: string): FakeMessage[] {
    advance(this.#state)
    return structuredClone(this.#state.messages.filter((m) => m.subscriberId === subscriberId))
  }

  /**
   * A subscriber's preferences in the v2 shape the update returns, or `undefined` for an unknown
   * subscriber.
   *
   * @example
   * ```ts
   * expect(fake.preferences('u1')?.global.channels.email).toBe(false)
   * ```
   */
  preferences(subscriberId: string): FakePreferences | undefined {
    if (!this.#state.subscribers.has(subscriberId)) return undefined
    return preferencesView(this.#state, subscriberId)
  }

  /**
   * Every subscriber, seeded or created by the app's triggers, in the order they appeared. A copy:
   * later changes do not show in it.
   *
   * @example
   * ```ts
   * expect(fake.subscribers.map((s) => s.subscriberId)).toEqual(['u1', 'u2'])
   * ```
   */
  get subscribers(): readonly FakeSubscriberRecord[] {
    return structuredClone([...this.#state.subscribers.values()])
  }

  /**
   * One subscriber as the fake holds it (a copy), or `undefined` if there is none with that id.
   *
   * @example
   * ```ts
   * expect(fake.subscriber('u1')).toMatchObject({ email: 'u1@example.com', firstName: 'Ada' })
   * ```
   */
  subscriber(subscriberId: string): FakeSubscriberRecord | undefined {
    const subscriber = this.#state.subscribers.get(subscriberId)
    return subscriber && structuredClone(subscriber)
  }

  /**
   * Forgets everything the requests did (state they changed, notifications, messages, preferences),
   * the requests themselves, idempotency records, the rate-limit window, faults and delay. What the
   * test seeded stays: the options of `createFakeService` and every `addWorkflow()`,
   * `addSubscriber()` and `addTopic()` call, applied again in order (new `_id`s), whether made in
   * `beforeAll`, `beforeEach` or a test. `reset({ keepAdded: false })` forgets the `add*()` calls
   * too, back to the state right after `createFakeService`. The notifykit clients of the process
   * start afresh too (retry budget, pacing), so that one client shared by a file's tests carries
   * nothing from one test to the next.
   *
   * @example
   * ```ts
   * beforeAll(() => fake.addWorkflow({ identifier: 'welcome', steps: [{ type: 'email' }] }))
   * afterEach(() => fake.reset()) // 'welcome' is there for every test
   * ```
   */
  reset(options: { keepAdded?: boolean } = {}): void {
    if (options.keepAdded === false) this.#seeds.forgetAdded()
    this.#state = this.#seeds.fresh()
    this.#pipeline.reset()
    // The clients' own state of the last test goes too: a retry budget its outage spent, a 429's pause.
    announceFakeReset()
  }
}
