// Bundle size: what a serverless handler ships, minified and gzipped, with notifykit against the
// same handler written with undici and zod alone.
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

export interface BundleResult {
  notifykit: { minifiedBytes: number; gzippedBytes: number }
  baseline: { minifiedBytes: number; gzippedBytes: number }
  /** notifykit − baseline, gzipped. */
  deltaGzippedBytes: number
}

function notifyKitHandler(packagePath: string): string {
  return `import { NotificationClient } from ${JSON.stringify(packagePath)}
const client = new NotificationClient()
export async function handler(event) {
  return client.events.trigger({ name: 'order-shipped', to: event.userId, payload: { orderId: event.orderId } })
}`
}

// The same handler, done by hand: a zod check of the input and a POST with undici. zod imported as a
// namespace, as a careful user does: a named `z` import keeps all of zod 4 in the bundle.
const BASELINE_HANDLER = `import { request } from 'undici'
import * as z from 'zod'
const Event = z.object({ userId: z.string(), orderId: z.string() })
export async function handler(event) {
  const { userId, orderId } = Event.parse(event)
  const response = await request(process.env.NOTIFYKIT_BASE_URL + '/v1/events/trigger', {
    method: 'POST',
    headers: { authorization: 'ApiKey ' + process.env.NOTIFYKIT_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'order-shipped', to: userId, payload: { orderId } }),
  })
  return (await response.body.json()).data
}`

async function bundledSize(source: string, resolveDir: string) {
  const result = await build({
    stdin: { contents: source, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'error',
  })
  const code = result.outputFiles[0]?.contents
  if (!code) throw new Error('esbuild produced no output')
  return { minifiedBytes: code.length, gzippedBytes: gzipSync(code, { level: 9 }).length }
}

export async function measureBundles(packagePath: string, resolveDir: string): Promise<BundleResult> {
  const notifykit = await bundledSize(notifyKitHandler(packagePath), resolveDir)
  const baseline = await bundledSize(BASELINE_HANDLER, resolveDir)
  return { notifykit, baseline, deltaGzippedBytes: notifykit.gzippedBytes - baseline.gzippedBytes }
}
