/**
 * Public option and record types of the fake service. Records mirror the shapes the real server
 * returns, so a test can assert on them the way it would read the API.
 */

/** A channel that delivers something to the subscriber; preferences switch these on and off. */
export type FakeChannel = 'in_app' | 'email' | 'sms' | 'push' | 'chat'

/** Step types the real server knows; others are accepted and completed like `custom`. */
export type FakeStepType =
  | FakeChannel
  | 'digest'
  | 'delay'
  | 'trigger'
  | 'throttle'
  | 'custom'
  | 'http_request'
  | (string & {})

/** One step of a seeded workflow. Only `type` is required. */
export interface FakeWorkflowStep {
  type: FakeStepType
  /** The step's identifier within the workflow; defaults to `<type>-<index>`. */
  stepId?: string
  name?: string
  /** For `in_app` steps: the feed its messages belong to (`null` on the message when absent). */
  feedIdentifier?: string
  /** Shown on the job; defaults to a plausible provider for the channel. */
  providerId?: string
  /** For `digest` and `delay` steps: how long they wait; 5 by default. */
  amount?: number
  /** For `digest` and `delay` steps; defaults to `seconds`. */
  unit?: string
  /**
   * For `digest` steps: a dotted path into the payload (`post.id`); triggers digest together only
   * with those holding the same value there.
   */
  digestKey?: string
}

/**
 * The subset of JSON Schema the fake checks a trigger payload against: required keys and the
 * primitive type of listed properties. A mismatch is the server's 400 `PAYLOAD_VALIDATION_ERROR`.
 */
export interface FakePayloadSchema {
  required?: string[]
  properties?: Record<
    string,
    { type?: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null' }
  >
}

/** A workflow to seed. The trigger `name` is matched against `identifier`. */
export interface FakeWorkflow {
  identifier: string
  name?: string
  /** Used as `workflow.slug` in preferences and accepted as a preferences `workflowId`; defaults to `identifier`. */
  slug?: string
  steps?: FakeWorkflowStep[]
  /** Critical workflows ignore subscriber preferences and refuse preference updates (400). */
  critical?: boolean
  /** An inactive workflow acknowledges triggers with status `trigger_not_active` and sends nothing. */
  active?: boolean
  severity?: 'high' | 'medium' | 'low' | 'none' | (string & {})
  tags?: string[]
  payloadSchema?: FakePayloadSchema
}

/** A subscriber to seed, or one sent as a recipient. */
export interface FakeSubscriber {
  subscriberId: string
  email?: string | null
  firstName?: string | null
  lastName?: string | null
  phone?: string | null
  avatar?: string | null
  locale?: string | null
  timezone?: string | null
  data?: Record<string, unknown> | null
  channels?: unknown[]
}

/**
 * A subscriber as the fake holds it: seeded, created by a trigger (a `to` naming an unknown
 * subscriber) or updated by one (a subscriber object with fields), with the fields it was given.
 */
export interface FakeSubscriberRecord {
  readonly _id: string
  readonly subscriberId: string
  readonly email?: string | null
  readonly firstName?: string | null
  readonly lastName?: string | null
  readonly phone?: string | null
  readonly avatar?: string | null
  readonly locale?: string | null
  readonly timezone?: string | null
  readonly data?: Readonly<Record<string, unknown>> | null
  readonly channels?: readonly unknown[]
  readonly createdAt: string
  /** Changes when a trigger or `addSubscriber()` sets a field. */
  readonly updatedAt: string
}

/** A topic to seed. Unknown subscriber ids are created, so seeding needs no particular order. */
export interface FakeTopic {
  topicKey: string
  name?: string
  subscribers?: string[]
}

/**
 * A tenant to seed. A trigger naming a tenant (by identifier, or as `{ identifier, ... }`) that was
 * not seeded is acknowledged with status `no_tenant_found` and sends nothing, as on the server, which
 * never creates a tenant from a trigger.
 */
export interface FakeTenant {
  identifier: string
  name?: string
  data?: Record<string, unknown>
}

/** One token bucket: it holds `burst` units (default `perSecond`) and refills `perSecond`. */
export interface FakeBucket {
  perSecond: number
  burst?: number
}

/**
 * The server's token buckets, one per category. The top-level `perSecond` and `burst` are the
 * `trigger` bucket (trigger and cancel cost 1 unit, bulk and broadcast 100); `configuration`
 * (mark-all, preferences) and `global` (get notification) are counted only when given. Every counted
 * answer carries `RateLimit-Remaining`, `RateLimit-Limit` (what one 5-second window refills),
 * `RateLimit-Reset` (seconds until a request of the same cost can pass) and `RateLimit-Policy`
 * (`<limit>;w=5;burst=<burst>;comment="token bucket";category="<category>";cost="single|bulk";serviceLevel="unlimited"`);
 * a request its bucket cannot pay for gets a 429 with `Retry-After` in whole seconds.
 */
export interface FakeTokenBucket extends FakeBucket {
  configuration?: FakeBucket
  global?: FakeBucket
}

/**
 * The fake's earlier limiter, still accepted: a fixed window of `limit` units per `windowMs`,
 * starting at the first request it counts, charging every operation (bulk and broadcast 100, others
 * 1). Prefer {@link FakeTokenBucket}, which behaves like the server.
 */
export interface FakeFixedWindow {
  limit: number
  windowMs: number
}

/** The service's plans, by the name its `RateLimit-Policy` reports as `serviceLevel`. */
export type FakePlan = 'free' | 'pro' | 'business' | 'enterprise'

/**
 * The buckets of one of the service's plans, as the server sizes them: each refills the plan's rate
 * per second and holds five seconds of it plus 10%. Events per second (`trigger`, a bulk request
 * costing 100): free 60 (bucket 330), pro 240 (1,320), business 600 (3,300), enterprise 6,000
 * (33,000); `configuration` free 20, pro 80, business 200, enterprise 2,000; `global` free 30,
 * pro 120, business 300, enterprise 3,000. The policy reports the plan as `serviceLevel`.
 */
export interface FakePlanRateLimit {
  plan: FakePlan
}

export type FakeRateLimit = FakeTokenBucket | FakeFixedWindow | FakePlanRateLimit

/**
 * Faults drawn at random for each request that no `failNext` fault claims, as probabilities from 0
 * to 1. Drawn with `Math.random`.
 */
export interface FakeRandomFaults {
  /** Answer 503 without applying the request. */
  status503?: number
  /** Apply the request, then drop the connection: the answer is lost on the way back. */
  dropAfterApply?: number
}

/** Options of `createFakeService`. Everything is optional; seeded data survives `fake.reset()`. */
export interface FakeServiceOptions {
  /**
   * The only key accepted. Without it, any non-empty `Authorization: ApiKey <key>` is accepted.
   * @example `createFakeService({ apiKey: 'test-key' })`
   */
  apiKey?: string
  /**
   * Workflows that exist from the start.
   * @example `createFakeService({ workflows: [{ identifier: 'welcome', steps: [{ type: 'email' }] }] })`
   */
  workflows?: FakeWorkflow[]
  /**
   * Subscribers that exist from the start.
   * @example `createFakeService({ subscribers: [{ subscriberId: 'u1', email: 'u1@example.com' }] })`
   */
  subscribers?: FakeSubscriber[]
  /**
   * Topics that exist from the start, with their subscribers.
   * @example `createFakeService({ topics: [{ topicKey: 'beta-users', subscribers: ['u1', 'u2'] }] })`
   */
  topics?: FakeTopic[]
  /**
   * Tenants that exist from the start; a trigger naming any other is answered `no_tenant_found`.
   * @example `createFakeService({ tenants: [{ identifier: 'acme', name: 'Acme Inc.' }] })`
   */
  tenants?: FakeTenant[]
  /**
   * The fake's clock, in milliseconds since the epoch; `Date.now` by default. It decides whether a
   * step falls inside the subscriber's schedule, and when a delay or digest is due: a waiting step
   * runs, with the steps after it, on the first request (or read of `fake.notifications`) at or
   * after its time.
   * @example `let time = Date.UTC(2026, 0, 5, 9); createFakeService({ now: () => time })`
   */
  now?: () => number
  /**
   * The token buckets (`trigger`, and `configuration` and `global` when given); off by default.
   * `{ plan }` gives a plan's three buckets as the service sizes them (free 60 events/s, pro 240,
   * business 600, enterprise 6,000; see {@link FakePlanRateLimit}). `{ limit, windowMs }`, the
   * earlier fixed window, is still accepted.
   * @example `createFakeService({ rateLimit: { plan: 'pro' } })`
   */
  rateLimit?: FakeRateLimit
  /**
   * Faults at random, for soak tests: each request is answered 503 or applied and dropped with the
   * given probabilities. Off by default.
   * @example `createFakeService({ faults: { status503: 0.05, dropAfterApply: 0.01 } })`
   */
  faults?: FakeRandomFaults
  /**
   * How a missing notification is answered: `'404'` (default) or `'null'`, the `200 {"data":null}`
   * some server versions send.
   * @example `createFakeService({ missingNotification: 'null' })`
   */
  missingNotification?: '404' | 'null'
}

/**
 * Which requests a `failNext` fault is for. Every field given must match; a fault without any
 * matches every request. A request takes the first armed fault that matches it, so a targeted fault
 * waits, untouched by other traffic, until its request comes.
 */
export interface FakeFaultTarget {
  /**
   * The HTTP method, any case.
   * @example `fake.failNext({ method: 'PATCH', status: 500 })`
   */
  method?: string
  /**
   * The URL path as sent (path parameters percent-encoded, no query), or a RegExp tested against it.
   * @example `fake.failNext({ path: '/v1/events/trigger/bulk', status: 503 })`
   */
  path?: string | RegExp
  /**
   * The `Idempotency-Key` header, or a RegExp tested against it. `triggerBulk` sends chunk `n` with
   * the key `<key>:<n>` (chunks counted from 0), so `/:2$/` is the third chunk whatever the
   * concurrency, and the chunk's retries carry the same key.
   * @example `fake.failNext({ path: '/v1/events/trigger/bulk', idempotencyKey: /:2$/, status: 503 })`
   */
  idempotencyKey?: string | RegExp
  /**
   * Anything else: called with the request as `fake.requests` records it (parsed body included).
   * @example `fake.failNext({ when: (r) => JSON.stringify(r.body).includes('"u250"'), status: 503 })`
   */
  when?: (request: FakeRequestRecord) => boolean
}

/** Make the next answers (to the requests targeted, or any) fail with an HTTP status; nothing is applied. */
export interface FakeStatusFault extends FakeFaultTarget {
  status: number
  /** How many requests fail (of those targeted); default 1. */
  times?: number
  /** JSON value, or a string sent as `text/plain` (like a proxy's HTML page). Default: a server error body. */
  body?: unknown
  headers?: Record<string, string>
  /**
   * Answer as the route's own error (the server's handler failing), after the auth, rate-limit and
   * idempotency checks, instead of in front of the server (a gateway's error). The server remembers
   * a handler's error under the request's idempotency key and answers every later request with that
   * key `503` with `Idempotency-Replay: true`, so a retry with the same key cannot succeed.
   * @example `fake.failNext({ status: 500, fromHandler: true })`
   */
  fromHandler?: boolean
}

/**
 * Make the next answers (to the requests targeted, or any) a dropped connection: the client sees a
 * reset socket. notifykit retries one reset at once, free (even with `maxRetries: 0`), as the stale
 * keep-alive socket it usually is, so a single drop never reaches your code.
 */
export interface FakeDropFault extends FakeFaultTarget {
  dropConnection: true
  times?: number
  /**
   * Apply the request first (state and idempotency record), then drop the connection: the case of
   * a response lost on the way back, which retries must not turn into a second send.
   */
  afterApply?: boolean
}

export type FakeFault = FakeStatusFault | FakeDropFault

/** One request as the fake received it. */
export interface FakeRequestRecord {
  method: string
  /** The URL pathname as sent (path parameters still percent-encoded). */
  path: string
  /** Lowercase header names. */
  headers: Record<string, string>
  /** The parsed JSON body, or `undefined` when there was none or it was not JSON. */
  body: unknown
}

/** One execution detail of a job. */
export interface FakeExecutionDetail {
  _id: string
  createdAt: string
  status: 'Success' | 'Warning' | 'Failed' | 'Pending' | 'Queued' | 'ReadConfirmation'
  detail: string
  isRetry: boolean
  isTest: boolean
  providerId: string
  raw: string
  source: 'Credentials' | 'Internal' | 'Payload' | 'Webhook'
}

export type FakeJobStatus =
  | 'pending'
  | 'queued'
  | 'running'
  | 'completed'
  | 'failed'
  | 'delayed'
  | 'canceled'
  | 'merged'
  | 'skipped'

/** The digest settings of a digest job. */
export interface FakeDigest {
  digestKey?: string
  amount: number
  unit: string
  type: 'regular'
  events: Record<string, unknown>[]
  backoff: boolean
}

/** The step a job runs (the parts the fake can know). */
export interface FakeJobStep {
  _id: string
  stepId: string
  name: string
  active: boolean
  _templateId: string
  filters: unknown[]
  template: Record<string, unknown>
  variants: unknown[]
  metadata: Record<string, unknown>
}

/** One job of a notification: one step run for one subscriber. */
export interface FakeJob {
  _id: string
  type: FakeStepType
  status: FakeJobStatus
  step: FakeJobStep
  digest?: FakeDigest
  executionDetails: FakeExecutionDetail[]
  overrides: { workflowId: string; stepId: string }
  payload: Record<string, unknown>
  providerId: string
  updatedAt: string
  scheduleExtensionsCount: number
  /** On a job `merged` into another trigger's pending digest: that digest job's `_id`. */
  _mergedDigestId?: string
}

/** A notification: the record of one trigger for one subscriber, with its jobs. */
export interface FakeNotification {
  _id: string
  _environmentId: string
  _organizationId: string
  _subscriberId: string
  transactionId: string
  _templateId: string
  createdAt: string
  updatedAt: string
  channels: FakeChannel[]
  subscriber: {
    _id: string
    subscriberId: string
    firstName?: string
    lastName?: string
    email?: string
    phone?: string
  }
  template: {
    _id: string
    name: string
    origin: string
    triggers: {
      type: 'event'
      identifier: string
      variables: { name: string }[]
      subscriberVariables: { name: string }[]
    }[]
  }
  jobs: FakeJob[]
  payload: Record<string, unknown>
  tags: string[]
  controls: Record<string, unknown>
  to: Record<string, unknown>
  topics: { _topicId: string; topicKey: string }[]
  severity: string
  critical: boolean
}

/** An in-app message, created when an `in_app` step completes. */
export interface FakeMessage {
  _id: string
  _notificationId: string
  subscriberId: string
  transactionId: string
  workflowIdentifier: string
  stepId: string
  feedIdentifier: string | null
  read: boolean
  seen: boolean
  payload: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

/** Per-channel switches as returned: only some channels may be present. */
export type FakeChannelPreferences = Partial<Record<FakeChannel, boolean>>

/** One weekday of a schedule. */
export interface FakeDaySchedule {
  isEnabled: boolean
  hours?: { start: string; end: string }[]
}

/** A weekly schedule. */
export interface FakeSchedule {
  isEnabled: boolean
  weeklySchedule?: Partial<
    Record<
      'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday',
      FakeDaySchedule
    >
  >
}

/** A subscriber's preferences, as the v2 preferences route returns them. */
export interface FakePreferences {
  /** `schedule` is there once the subscriber stored one. */
  global: { enabled: boolean; channels: FakeChannelPreferences; schedule?: FakeSchedule }
  /** The active workflows that are not critical. */
  workflows: {
    enabled: boolean
    channels: FakeChannelPreferences
    overrides: { channel: FakeChannel; source: 'subscriber' | 'template' | 'workflowOverride' }[]
    /** When the subscriber last set preferences for this workflow; absent if never. */
    updatedAt?: string
    workflow: { slug: string; identifier: string; name: string; updatedAt: string }
  }[]
}
