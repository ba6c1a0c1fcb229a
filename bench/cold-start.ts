// Cold start: fresh `node` processes, each script once per round, in a balanced order each round, so
// that every side sees the same machine load. What a serverless function pays in a fresh instance.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleHandler } from './bundle.js'
import { API_KEY, TRIGGER_EVENT } from './fixtures.js'
import { runNodeForJson } from './harness.js'
import { balancedOrders, median } from './stats.js'

export interface ColdStartSample {
  /** From the first `import()` to the script's point of arrival (a constructed client, a result). */
  importMs: number
  /** From the process's time origin (its start) to the same point. */
  readyMs: number
}

/**
 * The scripts, each a fresh process:
 * - `sdk`, `undici+zod`, `undici+zod/mini`: the package as installed (dist with `undici` and `zod`
 *   from node_modules) imported and a client constructed, against importing the dependencies alone
 *   and constructing an undici Agent;
 * - `sdk bundled`, `handler bundled, zod`, `handler bundled, zod/mini`: the same work as one esbuild
 *   bundle each (a handler module that constructs its client at load), against the same handler
 *   written with undici and zod (classic, or zod/mini);
 * - `sdk first call`, `raw first call`: process start to the first trigger's result, against
 *   `undici.request` and `JSON.parse` of the body.
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

export interface ColdStartResult {
  processes: number
  samples: Record<ColdStartScript, ColdStartSample[]>
}

const REPORT = 'process.stdout.write(JSON.stringify({ importMs: ready - started, readyMs: ready }))'
const OPTIONS = `{ apiKey: ${JSON.stringify(API_KEY)}, baseUrl: 'http://127.0.0.1:8080' }`

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

function rawFirstCallScript(port: number): string {
  return `const started = performance.now()
const { request, getGlobalDispatcher } = await import('undici')
const response = await request('http://127.0.0.1:${port}/v1/events/trigger', {
  method: 'POST',
  headers: { authorization: 'ApiKey ${API_KEY}', 'content-type': 'application/json' },
  body: JSON.stringify(${JSON.stringify(TRIGGER_EVENT)}),
})
const result = JSON.parse(await response.body.text()).data
const ready = performance.now()
if (response.statusCode !== 201 || !result.transactionId) throw new Error('no result')
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
  /** The package as Node loads it (dist/index.js). */
  packagePath: string
  /** The package as a bundler resolves it (dist/module/index.js, the `module` condition). */
  bundlerPackagePath: string
  resolveDir: string
  bundleDir: string
  port: number
  processes: number
}): Promise<ColdStartResult> {
  const { packagePath, resolveDir, port, processes } = options
  const packageUrl = pathToFileURL(packagePath).href
  const bundles = await writeBundles(options.bundlerPackagePath, resolveDir, options.bundleDir)
  const scripts: Record<ColdStartScript, string> = {
    sdk: sdkScript(packageUrl),
    'undici+zod': dependenciesScript('zod'),
    'undici+zod/mini': dependenciesScript('zod/mini'),
    'sdk bundled': importScript(bundles.sdk),
    'handler bundled, zod': importScript(bundles.zod),
    'handler bundled, zod/mini': importScript(bundles.mini),
    'sdk first call': sdkFirstCallScript(packageUrl, port),
    'raw first call': rawFirstCallScript(port),
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

/** Per-process ratios of `ours` to `theirs` (the same round's processes), on `key`. */
export function coldRatios(
  result: ColdStartResult,
  ours: ColdStartScript,
  theirs: ColdStartScript,
  key: keyof ColdStartSample,
): number[] {
  return result.samples[ours].map(
    (sample, i) => sample[key] / (result.samples[theirs][i] as ColdStartSample)[key],
  )
}

export function coldMedian(result: ColdStartResult, script: ColdStartScript, key: keyof ColdStartSample) {
  return median(result.samples[script].map((sample) => sample[key]))
}
