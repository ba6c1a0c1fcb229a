// Building and starting Workers the way their platforms do, for the runtime matrix and the bench:
// esbuild with the platform's export conditions, and miniflare (workerd inside) to run them.
import { builtinModules } from 'node:module'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'

/** What wrangler resolves packages with for Cloudflare Workers. */
export const WORKERD_CONDITIONS = ['workerd', 'worker', 'browser'] as const
/** What Vercel resolves packages with for Edge Functions. */
export const EDGE_LIGHT_CONDITIONS = ['edge-light', 'worker', 'browser'] as const

export interface WorkerBundle {
  /** A file, or source text whose imports resolve from `resolveDir`. */
  entry: string | { source: string; resolveDir: string }
  conditions: readonly string[]
  /** `esm` for a module Worker; `iife` for a script the edge runtime evaluates. */
  format: 'esm' | 'iife'
  minify?: boolean
  /**
   * Leaves Node's built-in modules as imports for workerd to provide, as wrangler does for a Worker
   * with the `nodejs_compat` flag; without it, importing one fails the bundle, as it does in wrangler.
   */
  nodejsCompat?: boolean
}

export async function bundleWorker({
  entry,
  conditions,
  format,
  minify = false,
  nodejsCompat = false,
}: WorkerBundle): Promise<string> {
  const result = await build({
    ...(typeof entry === 'string'
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.source, resolveDir: entry.resolveDir, loader: 'ts' } }),
    bundle: true,
    write: false,
    format,
    minify,
    platform: 'browser',
    conditions: [...conditions],
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
    external: nodejsCompat ? ['node:*', ...builtinModules] : [],
    // Not the repo's tsconfig: its `paths` point `notifykit` at src/, and a user's bundler goes
    // through the package's `exports` instead.
    tsconfigRaw: {},
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]?.text
  if (code === undefined) throw new Error('esbuild produced no output')
  return code
}

const COMPATIBILITY_DATE = '2026-01-01'

/** A module Worker in workerd; await `ready` before dispatching, `dispose()` when done. */
export function startMiniflare(script: string, options: { nodejsCompat: boolean }): Miniflare {
  return new Miniflare({
    modules: true,
    script,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: options.nodejsCompat ? ['nodejs_compat'] : [],
  })
}
