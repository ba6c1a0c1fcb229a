// Cold start: fresh `node` processes, each script once per round, in a balanced order each round, so
// that every side sees the same machine load. What a serverless function pays in a fresh instance.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleHandler } from './bundle.js'
import { API_KEY, SDK_USER_AGENT, TRIGGER_EVENT } from './fixtures.js'
import { runNodeForJson } from './harness.js'
import { balancedOrders, median } from './stats.js'

export interface ColdStartSample {
  /** From the first `import()` to the script's point of arrival (a constructed client, a result). */
  importMs: number
  /** From the process's time origin (its start) to the same point. */
  readyMs: number
  /**
   * `app with zod, sdk first call` only: modules of zod loaded through CommonJS after the trigger
   * (counted after the clock stopped). The script throws when there is any: zod would be loaded twice.
   */
  zodCommonJsModules?: number
}

/**
 * The scripts, each a fresh process:
 * - `sdk`, `undici+zod`, `undici+zod/mini`: the package as installed (dist/index.js, the `import`
 *   condition, with `undici` and `zod/mini` from node_modules) imported and a client constructed,
 *   against importing the dependencies alone (zod/mini, as the SDK does, or classic zod) and
 *   constructing an undici Agent;
 * - `sdk bundled`, `handler bundled, zod`, `handler bundled, zod/mini`: the same work as one esbuild
 *   bundle each (a handler module that constructs its client at load; the package as a bundler
 *   resolves it, dist/index.js), against the same handler written with undici and zod (classic, or
 *   zod/mini);
 * - `sdk first call`, `raw first call`: process start to the first trigger's result, against the same
 *   work by hand: undici and zod/mini imported, request and result schemas of the SDK's shapes built,
 *   the request checked, the SDK's headers sent with `undici.request`, the result unwrapped and checked;
 * - `app with zod, sdk first call`, `app with zod, by hand first call`: an application that imports
 *   classic zod and types its workflow's payload with it, process start to the first trigger's result:
 *   the SDK given the payload schema in `workflows`, against the same work by hand with classic zod
 *   (payload, request and result checked).
 */
export type ColdStartScript =
  | 'sdk'
  | 'undici+zod'
  | 'undici+zod/mini'
  | 'sdk bundled'
  | 'handler bundled, zod'
  | 'handler bundled, zod/mini'
  | 'sdk first call'
  | 'raw first call'
  | 'app with zod, sdk first call'
  | 'app with zod, by hand first call'

export interface ColdStartResult {
  processes: number
  samples: Record<ColdStartScript, ColdStartSample[]>
}

const REPORT = 'process.stdout.write(JSON.stringify({ importMs: ready - started, readyMs: ready }))'
const OPTIONS = `{ apiKey: ${JSON.stringify(API_KEY)}, baseUrl: 'http://127.0.0.1:8080' }`

/** The event of the application that types its workflow: the fixture's recipient, `{ orderId }` as payload. */
const WORKFLOW_EVENT = { name: TRIGGER_EVENT.name, to: TRIGGER_EVENT.to, payload: { orderId: 'o-42' } }

function sdkScript(packageUrl: string): string {
  return `const started = performance.now()
const { NotificationClient } = await import(${JSON.stringify(packageUrl)})
new NotificationClient(${OPTIONS})
const ready = performance.now()
${REPORT}`
}

function dependenciesScript(zodEntry: 'zod' | 'zod/mini'): string {
  return `const started = performance.now()
const { Agent } = await import('undici')
await import('${zodEntry}')
new Agent()
const ready = performance.now()
${REPORT}`
}

function importScript(fileUrl: string): string {
  return `const started = performance.now()
await import(${JSON.stringify(fileUrl)})
const ready = performance.now()
${REPORT}`
}

// Handlers that construct what they send with at load, as a serverless module does.
function sdkHandler(packagePath: string): string {
  return `import { NotificationClient } from ${JSON.stringify(packagePath)}
const client = new NotificationClient(${OPTIONS})
export async function handler(event) {
  return client.events.trigger({ name: 'order-shipped', to: event.userId, payload: { orderId: event.orderId } })
}`
}

function byHandHandler(zodEntry: 'zod' | 'zod/mini'): string {
  return `import { Agent, request } from 'undici'
import * as z from '${zodEntry}'
const Event = z.object({ userId: z.string(), orderId: z.string() })
const agent = new Agent()
export async function handler(event) {
  const { userId, orderId } = Event.parse(event)
  const response = await request('http://127.0.0.1:8080/v1/events/trigger', {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: 'ApiKey ${API_KEY}', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'order-shipped', to: userId, payload: { orderId } }),
  })
  return (await response.body.json()).data
}`
}

// The schemas of a trigger by hand, of the shapes of the SDK's (src/schemas/events.ts): the request a
// strict object (name, to: an id, a subscriber, a topic or 1 to 100 of them, payload and the optional
// fields), the result a loose one. Written as each flavour of zod is written: functions for zod/mini,
// methods for classic zod. `z` must be in scope.
const PLAIN_OBJECT = `(value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const ctor = value.constructor
  if (ctor === undefined || typeof ctor !== 'function') return true
  const prototype = ctor.prototype
  if (typeof prototype !== 'object' || prototype === null || Array.isArray(prototype)) return false
  return Object.hasOwn(prototype, 'isPrototypeOf')
}`

const MINI_SCHEMAS = `const Identifier = z.string().check(z.minLength(1))
const optionalString = z.optional(z.string())
const nullishString = z.nullish(z.string())
const JsonObject = z.custom(${PLAIN_OBJECT})
const OpenString = z.custom((value) => typeof value === 'string')
const ChannelSettings = z.strictObject({
  providerId: OpenString,
  integrationIdentifier: optionalString,
  credentials: z.optional(z.strictObject({ webhookUrl: optionalString, deviceTokens: z.optional(z.array(z.string())) })),
})
const Subscriber = z.strictObject({
  subscriberId: Identifier,
  email: nullishString,
  firstName: nullishString,
  lastName: nullishString,
  phone: nullishString,
  avatar: nullishString,
  locale: nullishString,
  timezone: nullishString,
  data: z.optional(JsonObject),
  channels: z.optional(z.array(ChannelSettings)),
})
const Topic = z.strictObject({ type: z.literal('Topic'), topicKey: Identifier, exclude: z.optional(z.array(Identifier)) })
const Recipient = z.union([Identifier, Subscriber, Topic])
const TriggerRequest = z.strictObject({
  name: Identifier,
  to: z.union([Recipient, z.array(Recipient).check(z.minLength(1), z.maxLength(100))]),
  payload: z.optional(JsonObject),
  overrides: z.optional(z.record(z.string(), JsonObject)),
  transactionId: z.optional(Identifier),
  actor: z.optional(z.union([Identifier, Subscriber])),
  tenant: z.optional(
    z.union([Identifier, z.strictObject({ identifier: optionalString, name: optionalString, data: z.optional(JsonObject) })]),
  ),
})
const TriggerResult = z.looseObject({
  acknowledged: z.boolean(),
  status: OpenString,
  error: z.optional(z.array(z.string())),
  transactionId: optionalString,
})`

const CLASSIC_SCHEMAS = `const Identifier = z.string().min(1)
const JsonObject = z.custom(${PLAIN_OBJECT})
const OpenString = z.custom((value) => typeof value === 'string')
const ChannelSettings = z.strictObject({
  providerId: OpenString,
  integrationIdentifier: z.string().optional(),
  credentials: z.strictObject({ webhookUrl: z.string().optional(), deviceTokens: z.array(z.string()).optional() }).optional(),
})
const Subscriber = z.strictObject({
  subscriberId: Identifier,
  email: z.string().nullish(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  phone: z.string().nullish(),
  avatar: z.string().nullish(),
  locale: z.string().nullish(),
  timezone: z.string().nullish(),
  data: JsonObject.optional(),
  channels: z.array(ChannelSettings).optional(),
})
const Topic = z.strictObject({ type: z.literal('Topic'), topicKey: Identifier, exclude: z.array(Identifier).optional() })
const Recipient = z.union([Identifier, Subscriber, Topic])
const TriggerRequest = z.strictObject({
  name: Identifier,
  to: z.union([Recipient, z.array(Recipient).min(1).max(100)]),
  payload: JsonObject.optional(),
  overrides: z.record(z.string(), JsonObject).optional(),
  transactionId: Identifier.optional(),
  actor: z.union([Identifier, Subscriber]).optional(),
  tenant: z
    .union([Identifier, z.strictObject({ identifier: z.string().optional(), name: z.string().optional(), data: JsonObject.optional() })])
    .optional(),
})
const TriggerResult = z.looseObject({
  acknowledged: z.boolean(),
  status: OpenString,
  error: z.array(z.string()).optional(),
  transactionId: z.string().optional(),
})`

/**
 * The trigger by hand after `checks` (statements that throw when the event is refused): the SDK's
 * wire (its headers, a fresh idempotency key) with `undici.request`, the body parsed, `{ data }`
 * unwrapped and the result checked with `TriggerResult`. Sets `result` and `response`.
 */
function byHandTrigger(port: number, event: object, checks: string): string {
  return `const event = ${JSON.stringify(event)}
${checks}
const response = await request('http://127.0.0.1:${port}/v1/events/trigger', {
  method: 'POST',
  headers: {
    accept: 'application/json',
    'user-agent': ${JSON.stringify(SDK_USER_AGENT)},
    authorization: 'ApiKey ${API_KEY}',
    'content-type': 'application/json',
    'idempotency-key': crypto.randomUUID(),
  },
  body: JSON.stringify(event),
})
const body = JSON.parse(await response.body.text())
if (response.statusCode !== 201) throw new Error('status ' + response.statusCode)
const checkedResult = TriggerResult.safeParse(body.data)
if (!checkedResult.success) throw new Error('unexpected result')
const result = checkedResult.data`
}

// The first call: the result is checked, so that neither side can arrive early with nothing. The
// connection is closed after the clock stops, so that the process can end.
function sdkFirstCallScript(packageUrl: string, port: number): string {
  return `const started = performance.now()
const { NotificationClient } = await import(${JSON.stringify(packageUrl)})
const client = new NotificationClient({ apiKey: ${JSON.stringify(API_KEY)}, baseUrl: 'http://127.0.0.1:${port}' })
const result = await client.events.trigger(${JSON.stringify(TRIGGER_EVENT)})
const ready = performance.now()
if (!result.transactionId) throw new Error('no result')
await client.close()
${REPORT}`
}

/** The same work as the SDK's first call, by hand: undici and zod/mini, request and result checked. */
function rawFirstCallScript(port: number): string {
  return `const started = performance.now()
const { request, getGlobalDispatcher } = await import('undici')
const z = await import('zod/mini')
${MINI_SCHEMAS}
${byHandTrigger(port, TRIGGER_EVENT, "if (!TriggerRequest.safeParse(event).success) throw new Error('invalid event')")}
const ready = performance.now()
if (!result.transactionId) throw new Error('no result')
await getGlobalDispatcher().close()
${REPORT}`
}

/**
 * An application that imports classic zod and types its workflow's payload with it, the SDK given
 * the schema in `workflows`. After the clock stops, it counts the modules of zod loaded through
 * CommonJS: the package's `import` build must share the application's ESM zod, never load a second
 * copy; the script fails if it did.
 */
function appSdkFirstCallScript(packageUrl: string, port: number): string {
  return `const started = performance.now()
const z = await import('zod')
const { NotificationClient } = await import(${JSON.stringify(packageUrl)})
const OrderShipped = z.object({ orderId: z.string() })
const client = new NotificationClient({
  apiKey: ${JSON.stringify(API_KEY)},
  baseUrl: 'http://127.0.0.1:${port}',
  workflows: { 'order-shipped': OrderShipped },
})
const result = await client.events.trigger(${JSON.stringify(WORKFLOW_EVENT)})
const ready = performance.now()
if (!result.transactionId) throw new Error('no result')
await client.close()
const { createRequire } = await import('node:module')
const zodCommonJsModules = Object.keys(createRequire(import.meta.url).cache).filter((file) =>
  file.includes('/node_modules/zod/'),
).length
if (zodCommonJsModules !== 0)
  throw new Error('zod loaded twice: ' + zodCommonJsModules + ' CommonJS modules of zod beside the ESM zod')
process.stdout.write(JSON.stringify({ importMs: ready - started, readyMs: ready, zodCommonJsModules }))`
}

/** The same application by hand: classic zod, undici, payload, request and result checked. */
function appByHandFirstCallScript(port: number): string {
  return `const started = performance.now()
const z = await import('zod')
const { request, getGlobalDispatcher } = await import('undici')
const OrderShipped = z.object({ orderId: z.string() })
${CLASSIC_SCHEMAS}
${byHandTrigger(
  port,
  WORKFLOW_EVENT,
  `if (!TriggerRequest.safeParse(event).success) throw new Error('invalid event')
if (!OrderShipped.safeParse(event.payload).success) throw new Error('invalid payload')`,
)}
const ready = performance.now()
if (!result.transactionId) throw new Error('no result')
await getGlobalDispatcher().close()
${REPORT}`
}

function runScript(script: string, cwd: string): Promise<ColdStartSample> {
  return runNodeForJson<ColdStartSample>(['--input-type=module', '-e', script], cwd, 'cold-start process')
}

/** Writes the three handlers' bundles under `dir`; returns their file URLs. */
async function writeBundles(packagePath: string, resolveDir: string, dir: string) {
  mkdirSync(dir, { recursive: true })
  const write = async (name: string, source: string) => {
    const file = join(dir, name)
    writeFileSync(file, await bundleHandler(source, resolveDir, true))
    return pathToFileURL(file).href
  }
  return {
    sdk: await write('cold-sdk.mjs', sdkHandler(packagePath)),
    zod: await write('cold-handler-zod.mjs', byHandHandler('zod')),
    mini: await write('cold-handler-zod-mini.mjs', byHandHandler('zod/mini')),
  }
}

export async function measureColdStart(options: {
  /** The package as Node loads it and as a bundler resolves it (dist/index.js, the `import` condition). */
  packagePath: string
  resolveDir: string
  bundleDir: string
  port: number
  processes: number
}): Promise<ColdStartResult> {
  const { packagePath, resolveDir, port, processes } = options
  const packageUrl = pathToFileURL(packagePath).href
  const bundles = await writeBundles(packagePath, resolveDir, options.bundleDir)
  const scripts: Record<ColdStartScript, string> = {
    sdk: sdkScript(packageUrl),
    'undici+zod': dependenciesScript('zod'),
    'undici+zod/mini': dependenciesScript('zod/mini'),
    'sdk bundled': importScript(bundles.sdk),
    'handler bundled, zod': importScript(bundles.zod),
    'handler bundled, zod/mini': importScript(bundles.mini),
    'sdk first call': sdkFirstCallScript(packageUrl, port),
    'raw first call': rawFirstCallScript(port),
    'app with zod, sdk first call': appSdkFirstCallScript(packageUrl, port),
    'app with zod, by hand first call': appByHandFirstCallScript(port),
  }
  const names = Object.keys(scripts) as ColdStartScript[]
  const samples = Object.fromEntries(names.map((name) => [name, [] as ColdStartSample[]])) as Record<
    ColdStartScript,
    ColdStartSample[]
  >
  // One untimed pass first: it pulls the files into the page cache.
  for (const name of names) await runScript(scripts[name], resolveDir)
  // Balanced orders, so that no script always follows the same one (see balancedOrders).
  const orders = balancedOrders(names.length)
  for (let round = 0; round < processes; round++) {
    for (const i of orders[round % orders.length] as number[]) {
      const name = names[i] as ColdStartScript
      samples[name].push(await runScript(scripts[name], resolveDir))
    }
  }
  return { processes, samples }
}

/** The timings of a sample. */
export type ColdStartTiming = 'importMs' | 'readyMs'

/** Per-process ratios of `ours` to `theirs` (the same round's processes), on `key`. */
export function coldRatios(
  result: ColdStartResult,
  ours: ColdStartScript,
  theirs: ColdStartScript,
  key: ColdStartTiming,
): number[] {
  return result.samples[ours].map(
    (sample, i) => sample[key] / (result.samples[theirs][i] as ColdStartSample)[key],
  )
}

export function coldMedian(result: ColdStartResult, script: ColdStartScript, key: ColdStartTiming) {
  return median(result.samples[script].map((sample) => sample[key]))
}
