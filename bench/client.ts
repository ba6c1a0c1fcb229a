// The measuring process: one client (raw undici or a notifykit build) per process, measured segment
// by segment as the orchestrator asks (rounds.ts), or once for memory and profiles. harness.ts
// compiles it to plain JavaScript and runs it under plain `node`, importing the built package, so
// no loader or transpiler is in the measured path.

import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { createInterface } from 'node:readline'
import { Agent, type Dispatcher, Pool, request } from 'undici'
// The SDK's own default attempt timeout, for the fetch floor that does what each attempt does: a
// constant only (the module holds no other code), so the raw clients load nothing of the SDK.
import { DEFAULT_TIMEOUT_MS } from '../src/core/options.js'
// The SDK's own schemas, for the floors that check what the SDK checks: the same zod schemas, so that
// the checks cost the floor what they cost the SDK.
import {
  GetSubscriberPreferencesRequestSchema,
  ListNotificationsRequestSchema,
  NotificationSchema,
  NotificationsPageSchema,
  PreferencesSchema,
  TriggerEventRequestSchema,
  TriggerResultSchema,
} from '../src/schemas/index.js'
import {
  API_KEY,
  LIST_TRANSACTION_ID,
  NOTIFICATION,
  NOTIFICATION_ID,
  NOTIFICATIONS_PAGE,
  PREFERENCES,
  PREFERENCES_SUBSCRIBER_ID,
  SDK_USER_AGENT,
  TRIGGER_EVENT,
  TRIGGER_RESULT,
} from './fixtures.js'
import { benchOtelHooks } from './otel.js'
import {
  type ClientSpec,
  clientName,
  type MemoryConfig,
  type MemoryResult,
  type MemorySnapshot,
  type Operation,
  type ProfileConfig,
  type ProfileResult,
  type RawClientSpec,
  type SdkClientSpec,
  type SegmentCommand,
  type SegmentMeasurement,
  type ServeConfig,
  type ServeReady,
  type WorkerConfig,
} from './protocol.js'

type NotifyKit = typeof import('notifykit')

interface BenchClient {
  name: string
  trigger(): Promise<unknown>
  get(): Promise<unknown>
  /** The notifications of one trigger, by its transactionId: one page. */
  list(): Promise<unknown>
  preferences(): Promise<unknown>
  close(): Promise<void>
}

interface TriggerResultShape {
  transactionId?: string
}
interface NotificationShape {
  _id?: string
}
interface PageShape {
  data?: NotificationShape[]
}
interface PreferencesShape {
  workflows?: unknown[]
}

/** The reads' paths, built per call as a read-back builds them from the transactionId it holds. */
function listPath(transactionId: string): string {
  return `/v1/notifications?transactionId=${encodeURIComponent(transactionId)}`
}
function preferencesPath(subscriberId: string): string {
  return `/v2/subscribers/${encodeURIComponent(subscriberId)}/preferences`
}

const gc = (globalThis as { gc?: () => void }).gc

/**
 * What a careful user writes with undici alone: `undici.request(url)` (the floor), or
 * `agent.request({ origin, path })` (undici's lowest-level request call).
 */
function rawUndiciClient(spec: RawClientSpec, port: number): BenchClient {
  if (spec.raw !== 'undici.request' && spec.raw !== 'agent.request')
    throw new Error(`not undici: ${spec.raw}`)
  const agent = new Agent()
  const origin = `http://127.0.0.1:${port}`
  // Positional, so that each call builds its options object as a user's code would, in one literal.
  const send: (
    path: string,
    method: Dispatcher.HttpMethod,
    headers: Record<string, string>,
    body?: string,
  ) => Promise<Dispatcher.ResponseData> =
    spec.raw === 'undici.request'
      ? (path, method, headers, body) => request(origin + path, { method, headers, body, dispatcher: agent })
      : (path, method, headers, body) => agent.request({ origin, path, method, headers, body })
  const headers = { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' }
  const getHeaders = { authorization: `ApiKey ${API_KEY}` }
  const getPath = `/v1/notifications/${encodeURIComponent(NOTIFICATION_ID)}`
  return {
    name: clientName(spec),
    async trigger() {
      const response = await send('/v1/events/trigger', 'POST', headers, JSON.stringify(TRIGGER_EVENT))
      const json = (await response.body.json()) as { data: unknown }
      if (response.statusCode !== 201) throw new Error(`status ${response.statusCode}`)
      return json.data
    },
    async get() {
      const response = await send(getPath, 'GET', getHeaders)
      const json = (await response.body.json()) as { data: unknown }
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`)
      return json.data
    },
    async list() {
      const response = await send(listPath(LIST_TRANSACTION_ID), 'GET', getHeaders)
      const json = (await response.body.json()) as { data: unknown }
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`)
      return json.data
    },
    async preferences() {
      const response = await send(preferencesPath(PREFERENCES_SUBSCRIBER_ID), 'GET', getHeaders)
      const json = (await response.body.json()) as { data: unknown }
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`)
      return json.data
    },
    close: () => agent.close(),
  }
}

/**
 * The checks the SDK makes by default, by hand with the same zod schemas: the request before it is
 * sent, every time; the result in full on the first 16 responses and every 64th after (lenient
 * mode's sample), and for its kind of value on every one.
 */
function resultCheck(schema: { safeParse(value: unknown): { success: boolean } }) {
  let read = 0
  return (data: unknown) => {
    read++
    const sampled = read <= 16 || (read - 16) % 64 === 0
    const usable = sampled ? schema.safeParse(data).success : typeof data === 'object' && data !== null
    if (!usable) throw new Error('the response does not match its schema')
    return data
  }
}

/**
 * The SDK's work done by hand, for the transport in question: every header the SDK sends, a fresh
 * idempotency key per POST, the JSON parsed, and the request and the result checked with the SDK's
 * schemas as its default mode does. Its ratio is the honest price of the SDK.
 */
function sameWireClient(spec: RawClientSpec, port: number): BenchClient {
  const origin = `http://127.0.0.1:${port}`
  const pool = spec.raw === 'pool.request' ? new Pool(origin) : undefined
  const withTimeout = spec.raw === 'fetch+timeout'
  const send = async (
    path: string,
    method: 'GET' | 'POST',
    headers: Record<string, string>,
    body?: string,
  ) => {
    if (pool) {
      const response = await pool.request({ path, method, headers, body })
      return { status: response.statusCode, json: (await response.body.json()) as { data: unknown } }
    }
    if (!withTimeout) {
      const response = await fetch(origin + path, { method, headers, body, redirect: 'manual' })
      return { status: response.status, json: JSON.parse(await response.text()) as { data: unknown } }
    }
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), DEFAULT_TIMEOUT_MS)
    try {
      const { signal } = controller
      const response = await fetch(origin + path, { method, headers, body, redirect: 'manual', signal })
      return { status: response.status, json: JSON.parse(await response.text()) as { data: unknown } }
    } finally {
      clearTimeout(timer)
    }
  }
  const common = {
    accept: 'application/json',
    'user-agent': SDK_USER_AGENT,
    authorization: `ApiKey ${API_KEY}`,
  }
  const getPath = `/v1/notifications/${encodeURIComponent(NOTIFICATION_ID)}`
  const triggerResult = resultCheck(TriggerResultSchema)
  const notification = resultCheck(NotificationSchema)
  const page = resultCheck(NotificationsPageSchema)
  const preferences = resultCheck(PreferencesSchema)
  return {
    name: clientName(spec),
    async trigger() {
      if (!TriggerEventRequestSchema.safeParse(TRIGGER_EVENT).success) throw new Error('invalid event')
      const headers = { ...common, 'content-type': 'application/json', 'idempotency-key': randomUUID() }
      const { status, json } = await send(
        '/v1/events/trigger',
        'POST',
        headers,
        JSON.stringify(TRIGGER_EVENT),
      )
      if (status !== 201) throw new Error(`status ${status}`)
      return triggerResult(json.data)
    },
    async get() {
      const { status, json } = await send(getPath, 'GET', { ...common })
      if (status !== 200) throw new Error(`status ${status}`)
      return notification(json.data)
    },
    // The query checked as the SDK checks it, every call, before it is sent.
    async list() {
      const query = { transactionId: LIST_TRANSACTION_ID }
      if (!ListNotificationsRequestSchema.safeParse(query).success) throw new Error('invalid query')
      const { status, json } = await send(listPath(query.transactionId), 'GET', { ...common })
      if (status !== 200) throw new Error(`status ${status}`)
      return page(json.data)
    },
    async preferences() {
      if (!GetSubscriberPreferencesRequestSchema.safeParse({}).success) throw new Error('invalid query')
      const { status, json } = await send(preferencesPath(PREFERENCES_SUBSCRIBER_ID), 'GET', { ...common })
      if (status !== 200) throw new Error(`status ${status}`)
      return preferences(json.data)
    },
    close: async () => pool?.close(),
  }
}

function clientOf(spec: ClientSpec, port: number): Promise<BenchClient> {
  if (!('raw' in spec)) return notifyKitClient(spec, port)
  const sameWire = spec.raw === 'pool.request' || spec.raw === 'fetch' || spec.raw === 'fetch+timeout'
  return Promise.resolve(sameWire ? sameWireClient(spec, port) : rawUndiciClient(spec, port))
}

async function notifyKitClient(spec: SdkClientSpec, port: number): Promise<BenchClient> {
  const sdk: NotifyKit = await import(spec.packageUrl)
  const client = new sdk.NotificationClient({
    apiKey: API_KEY,
    baseUrl: `http://127.0.0.1:${port}`,
    responseValidation: spec.responseValidation,
    ...(spec.transport === 'fetch' ? { fetch: globalThis.fetch } : {}),
    ...(spec.otel ? { hooks: await benchOtelHooks(spec.packageUrl, spec.otel) } : {}),
  })
  return {
    name: clientName(spec),
    trigger: () => client.events.trigger(TRIGGER_EVENT),
    get: () => client.notifications.get(NOTIFICATION_ID),
    // Awaited to the first page, as a read-back does; the page's body is the answer as received.
    list: async () => (await client.notifications.list({ transactionId: LIST_TRANSACTION_ID })).body,
    preferences: () => client.subscribers.preferences.get(PREFERENCES_SUBSCRIBER_ID),
    close: () => client.close(),
  }
}

/** Every client must return what the server sent, or the comparison means nothing. */
async function checkAnswers(client: BenchClient): Promise<void> {
  const triggered = (await client.trigger()) as TriggerResultShape
  const notification = (await client.get()) as NotificationShape
  const page = (await client.list()) as PageShape
  const preferences = (await client.preferences()) as PreferencesShape
  if (
    triggered.transactionId !== TRIGGER_RESULT.transactionId ||
    notification._id !== NOTIFICATION._id ||
    page.data?.[1]?._id !== NOTIFICATIONS_PAGE.data[1]?._id ||
    preferences.workflows?.length !== PREFERENCES.workflows.length
  ) {
    throw new Error(`${client.name} returned something else than the server sent`)
  }
}

interface Measured {
  calls: number
  elapsedMs: number
  cpuUs: number
  latenciesMs: number[]
}

async function measure(
  call: () => Promise<unknown>,
  concurrency: number,
  durationMs: number,
  recordLatency: boolean,
): Promise<Measured> {
  // No forced gc() here: its concurrent sweeping lands in the measured CPU. Raw undici measured
  // 124 µs per trigger in 250 ms segments that each began with one, 70 µs in 50 ms segments without.
  const latenciesMs: number[] = []
  let calls = 0
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  const end = started + durationMs
  const loop = async () => {
    while (performance.now() < end) {
      if (recordLatency) {
        const callStarted = performance.now()
        await call()
        latenciesMs.push(performance.now() - callStarted)
      } else {
        await call()
      }
      calls++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
  const elapsedMs = performance.now() - started
  const cpu = process.cpuUsage(cpuBefore)
  return { calls, elapsedMs, cpuUs: cpu.user + cpu.system, latenciesMs }
}

function callOf(client: BenchClient, operation: Operation): () => Promise<unknown> {
  switch (operation) {
    case 'trigger':
      return () => client.trigger()
    case 'get':
      return () => client.get()
    case 'list':
      return () => client.list()
    case 'preferences':
      return () => client.preferences()
  }
}

/**
 * Holds one client and measures a segment whenever a command arrives on stdin; the orchestrator
 * interleaves the clients' processes in time. Between segments the process sleeps on stdin.
 */
async function serve(config: ServeConfig): Promise<void> {
  const client = await clientOf(config.client, config.port)
  await checkAnswers(client)
  const ready: ServeReady = { ready: true, client: client.name }
  process.stdout.write(`${JSON.stringify(ready)}\n`)
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line === '') continue
    const command = JSON.parse(line) as SegmentCommand
    const measured = await measure(
      callOf(client, command.operation),
      command.concurrency,
      command.durationMs,
      command.recordLatency,
    )
    const answer: SegmentMeasurement = {
      calls: measured.calls,
      elapsedMs: measured.elapsedMs,
      cpuUs: measured.cpuUs,
      ...(command.recordLatency ? { latenciesMs: measured.latenciesMs } : {}),
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`)
  }
  // stdin ended: the orchestrator is done with this client.
  await client.close()
}

function snapshot(): MemorySnapshot {
  // Twice: the first pass can leave work (weak references, finalizers) for the second.
  gc?.()
  gc?.()
  const usage = process.memoryUsage()
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed }
}

/** `calls` calls at `concurrency`, one get for every four triggers. */
async function callMany(client: BenchClient, calls: number, concurrency: number): Promise<void> {
  let issued = 0
  const loop = async () => {
    while (issued < calls) {
      const index = issued++
      await (index % 5 === 4 ? client.get() : client.trigger())
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
}

async function runMemory(config: MemoryConfig): Promise<MemoryResult> {
  const client = await notifyKitClient(config.client, config.port)
  await checkAnswers(client)
  await callMany(client, config.warmupCalls, config.concurrency)
  const afterWarmup = snapshot()
  await callMany(client, config.calls, config.concurrency)
  const afterCalls = snapshot()
  await client.close()
  return { calls: config.calls, afterWarmup, afterCalls, gcExposed: gc !== undefined }
}

async function runProfile(config: ProfileConfig): Promise<ProfileResult> {
  const client = await clientOf(config.client, config.port)
  await checkAnswers(client)
  const call = callOf(client, config.operation)
  await measure(call, config.concurrency, config.warmupMs, false)
  // The profiler runs around the measured calls only: no module loading, no warm-up in the profile.
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: config.samplingIntervalUs })
  await session.post('Profiler.start')
  const measured = await measure(call, config.concurrency, config.durationMs, false)
  const { profile } = await session.post('Profiler.stop')
  session.disconnect()
  writeFileSync(config.profilePath, JSON.stringify(profile))
  await client.close()
  return { calls: measured.calls, cpuUsPerCall: measured.cpuUs / measured.calls }
}

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig
if (config.mode === 'serve') {
  await serve(config)
} else {
  const result = config.mode === 'memory' ? await runMemory(config) : await runProfile(config)
  process.stdout.write(`${JSON.stringify(result)}\n`)
}
