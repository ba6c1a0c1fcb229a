// Bundle size: what a serverless handler ships, minified and gzipped, with notifykit against the
// same handler written with undici and zod, and with undici alone.
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

interface Size {
  minifiedBytes: number
  gzippedBytes: number
}

export interface BundleResult {
  notifykit: Size
  /** The handler by hand: undici and a zod check of the input. */
  baseline: Size
  /** The handler by hand with undici alone: no input check. */
  undiciAlone: Size
  /** notifykit − baseline, gzipped. */
  deltaGzippedBytes: number
  /** notifykit − undici alone, gzipped. */
  deltaUndiciAloneGzippedBytes: number
}

/** The handler the bundle rows measure; scripts/recipes/bundles runs it bundled as docs/runtimes.md says. */
export function notifyKitHandler(packagePath: string): string {
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

// The floor of the size target: the POST with undici and nothing else.
const UNDICI_ALONE_HANDLER = `import { request } from 'undici'
export async function handler(event) {
  const response = await request(process.env.NOTIFY_URL + '/v1/events/trigger', {
    method: 'POST',
    headers: { authorization: 'ApiKey ' + process.env.NOTIFYKIT_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'order-shipped', to: event.userId, payload: { orderId: event.orderId } }),
  })
  return JSON.parse(await response.body.text()).data
}`

/**
 * esbuild for Node (bundled, minified, ESM, node20): the code a serverless function would ship. To be
 * run (`runnable`), the bundle gets the `require` that undici's CommonJS calls for Node's modules,
 * as every ESM bundle of undici needs; the sizes are measured without it.
 */
export async function bundleHandler(
  source: string,
  resolveDir: string,
  runnable = false,
): Promise<Uint8Array> {
  const result = await build({
    stdin: { contents: source, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'error',
    ...(runnable
      ? {
          banner: {
            js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          },
        }
      : {}),
  })
  const code = result.outputFiles[0]?.contents
  if (!code) throw new Error('esbuild produced no output')
  return code
}

async function bundledSize(source: string, resolveDir: string): Promise<Size> {
  const code = await bundleHandler(source, resolveDir)
  return { minifiedBytes: code.length, gzippedBytes: gzipSync(code, { level: 9 }).length }
}

export async function measureBundles(packagePath: string, resolveDir: string): Promise<BundleResult> {
  const notifykit = await bundledSize(notifyKitHandler(packagePath), resolveDir)
  const baseline = await bundledSize(BASELINE_HANDLER, resolveDir)
  const undiciAlone = await bundledSize(UNDICI_ALONE_HANDLER, resolveDir)
  return {
    notifykit,
    baseline,
    undiciAlone,
    deltaGzippedBytes: notifykit.gzippedBytes - baseline.gzippedBytes,
    deltaUndiciAloneGzippedBytes: notifykit.gzippedBytes - undiciAlone.gzippedBytes,
  }
}
