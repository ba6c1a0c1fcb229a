// Cloudflare Workers: what a Worker that constructs a client and triggers once weighs, and what it adds
// to workerd's script start, with notifykit and with the service's official SDK (@novu/api, also
// fetch-based). Bundled as wrangler would (esbuild, workerd conditions), started by miniflare.
import { gzipSync } from 'node:zlib'
import { bundleWorker, startMiniflare, WORKERD_CONDITIONS } from '../scripts/runtimes/workers.js'
import { median, round } from './stats.js'

const NOTIFYKIT_WORKER = `import { NotificationClient } from 'notifykit'
export default {
  async fetch(request, env) {
    const client = new NotificationClient({ apiKey: env.NOTIFYKIT_API_KEY, baseUrl: env.NOTIFYKIT_BASE_URL })
    const result = await client.events.trigger({ name: 'order-shipped', to: 'user-1', payload: { orderId: 'o-42' } })
    return Response.json(result)
  },
}`

/** The same Worker with its workflow's payload typed by a schema, as the README's typed workflows do. */
function workflowWorker(zodImport: string): string {
  return `${zodImport}
import { NotificationClient } from 'notifykit'
const workflows = { 'order-shipped': z.object({ orderId: z.string() }) }
export default {
  async fetch(request, env) {
    const client = new NotificationClient({ apiKey: env.NOTIFYKIT_API_KEY, baseUrl: env.NOTIFYKIT_BASE_URL, workflows })
    const result = await client.events.trigger({ name: 'order-shipped', to: 'user-1', payload: { orderId: 'o-42' } })
    return Response.json(result)
  },
}`
}

/** How an application imports the zod it types its workflows with: each weighs differently in a bundle. */
const SCHEMA_WORKERS = {
  'zod/mini': workflowWorker("import * as z from 'zod/mini'"),
  "classic zod, `import * as z from 'zod'`": workflowWorker("import * as z from 'zod'"),
  "classic zod, `import { z } from 'zod'`": workflowWorker("import { z } from 'zod'"),
}

const OFFICIAL_SDK_WORKER = `import { Novu } from '@novu/api'
export default {
  async fetch(request, env) {
    const novu = new Novu({ secretKey: env.NOTIFYKIT_API_KEY, serverURL: env.NOTIFYKIT_BASE_URL })
    const result = await novu.trigger({ workflowId: 'order-shipped', to: 'user-1', payload: { orderId: 'o-42' } })
    return Response.json(result)
  },
}`

const EMPTY_WORKER = `export default {
  async fetch() {
    return new Response('ok')
  },
}`

type WorkerName = 'notifykit' | 'officialSdk' | 'empty'

export interface WorkerStart {
  /** Median of `new Miniflare()` to `await mf.ready`, ms. */
  medianMs: number
  /** This Worker's start minus the empty Worker's in the same round, ms: median, then min and max. */
  extraMs?: { median: number; min: number; max: number }
}

export interface WorkersResult {
  bundleGzippedBytes: { notifykit: number; officialSdk: number }
  /** notifykit's Worker with a workflow schema, by how its zod is imported. */
  schemaBundleGzippedBytes: Record<string, number>
  starts: Record<WorkerName, WorkerStart>
  rounds: number
  /** notifykit's median extra start over the official SDK's. */
  extraRatio: number
}

const SOURCES: Record<WorkerName, string> = {
  notifykit: NOTIFYKIT_WORKER,
  officialSdk: OFFICIAL_SDK_WORKER,
  empty: EMPTY_WORKER,
}

function bundle(name: WorkerName, resolveDir: string, minify: boolean): Promise<string> {
  return bundleSource(SOURCES[name], resolveDir, minify)
}

function bundleSource(source: string, resolveDir: string, minify: boolean): Promise<string> {
  return bundleWorker({
    entry: { source, resolveDir },
    conditions: WORKERD_CONDITIONS,
    format: 'esm',
    minify,
  })
}

async function startMs(script: string): Promise<number> {
  const started = performance.now()
  const mf = startMiniflare(script, { nodejsCompat: false })
  try {
    await mf.ready
    return performance.now() - started
  } finally {
    await mf.dispose()
  }
}

/** `resolveDir` resolves `notifykit` (through its `exports`, so dist/ must be built) and `@novu/api`. */
export async function measureWorkers(resolveDir: string, rounds: number): Promise<WorkersResult> {
  const gzippedSource = async (source: string) =>
    gzipSync(await bundleSource(source, resolveDir, true), { level: 9 }).length
  const gzipped = (name: WorkerName) => gzippedSource(SOURCES[name])
  // Started as wrangler deploys by default: not minified.
  const scripts: Record<WorkerName, string> = {
    notifykit: await bundle('notifykit', resolveDir, false),
    officialSdk: await bundle('officialSdk', resolveDir, false),
    empty: await bundle('empty', resolveDir, false),
  }
  const names: WorkerName[] = ['notifykit', 'officialSdk', 'empty']
  const samples: Record<WorkerName, number[]> = { notifykit: [], officialSdk: [], empty: [] }
  // One untimed start: workerd's binary into the page cache.
  await startMs(scripts.empty)
  for (let round = 0; round < rounds; round++) {
    // A different one goes first each round, so none always follows another.
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length] as WorkerName
      samples[name].push(await startMs(scripts[name]))
    }
  }
  const extra = (name: WorkerName) => {
    const differences = samples[name].map((ms, i) => ms - (samples.empty[i] as number))
    return {
      median: round(median(differences), 1),
      min: round(Math.min(...differences), 1),
      max: round(Math.max(...differences), 1),
    }
  }
  const starts: Record<WorkerName, WorkerStart> = {
    notifykit: { medianMs: round(median(samples.notifykit), 1), extraMs: extra('notifykit') },
    officialSdk: { medianMs: round(median(samples.officialSdk), 1), extraMs: extra('officialSdk') },
    empty: { medianMs: round(median(samples.empty), 1) },
  }
  return {
    bundleGzippedBytes: { notifykit: await gzipped('notifykit'), officialSdk: await gzipped('officialSdk') },
    schemaBundleGzippedBytes: Object.fromEntries(
      await Promise.all(
        Object.entries(SCHEMA_WORKERS).map(
          async ([how, source]) => [how, await gzippedSource(source)] as const,
        ),
      ),
    ),
    starts,
    rounds,
    extraRatio: round((starts.notifykit.extraMs?.median ?? 0) / (starts.officialSdk.extraMs?.median ?? 1), 3),
  }
}

const SIZE_FIGURE = 'Worker bundle KB, minified + gzip -9'
const START_FIGURE = 'workerd start ms over the empty Worker, median (range)'

/** The figures of the section that missed their targets (≤ 40 KB; ≤ 0.2× the official SDK's extra start). */
export function workersMisses(result: WorkersResult): string[] {
  return [
    result.bundleGzippedBytes.notifykit > 40 * 1024 ? SIZE_FIGURE : undefined,
    result.extraRatio > 0.2 ? START_FIGURE : undefined,
  ].filter((figure) => figure !== undefined)
}

/** The markdown section `npm run bench` prints after its table. */
export function workersTable(result: WorkersResult): string {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1)
  const { notifykit, officialSdk } = result.bundleGzippedBytes
  const extra = (start: WorkerStart) =>
    start.extraMs ? `${start.extraMs.median} (${start.extraMs.min} to ${start.extraMs.max})` : '—'
  const misses = workersMisses(result)
  const verdict = (figure: string) => (misses.includes(figure) ? 'miss' : 'pass')
  return [
    `Cloudflare Worker (constructs a client, triggers once): esbuild with conditions ${WORKERD_CONDITIONS.join(', ')}; workerd start = new Miniflare() to await mf.ready, ${result.rounds} interleaved rounds, empty Worker ${result.starts.empty.medianMs} ms (median)`,
    '',
    '| figure | official SDK (@novu/api) | notifykit | ratio | target | result |',
    '|---|---:|---:|---:|---|---|',
    `| ${SIZE_FIGURE} | ${kb(officialSdk)} | ${kb(notifykit)} | ${(notifykit / officialSdk).toFixed(3)}× | ≤ 40 KB | ${verdict(SIZE_FIGURE)} |`,
    `| workerd start ms, median (all rounds) | ${result.starts.officialSdk.medianMs} | ${result.starts.notifykit.medianMs} | — | — | |`,
    `| ${START_FIGURE} | ${extra(result.starts.officialSdk)} | ${extra(result.starts.notifykit)} | ${result.extraRatio.toFixed(3)}× | ≤ 0.2× | ${verdict(START_FIGURE)} |`,
    '',
    'The notifykit Worker with its workflow payload typed by a zod schema (`workflows: { ... }`), by how the app imports zod:',
    '',
    '| zod import | Worker bundle KB, minified + gzip -9 |',
    '|---|---:|',
    ...Object.entries(result.schemaBundleGzippedBytes).map(([how, bytes]) => `| ${how} | ${kb(bytes)} |`),
  ].join('\n')
}
