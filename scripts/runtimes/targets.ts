// The runtimes of the matrix, and how each gets the scenario: Node, Bun and Deno run the compiled
// scenario from the installed project (resolving `notifykit` themselves); workerd and the edge runtime
// get a bundle made with their platform's export conditions, as wrangler and Vercel would make it.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { EdgeRuntime } from 'edge-runtime'
import type { App } from './app.js'
import { cleanEnv, output, runProcess } from './processes.js'
import type { ScenarioConfig } from './protocol.js'
import { bundleWorker, EDGE_LIGHT_CONDITIONS, startMiniflare, WORKERD_CONDITIONS } from './workers.js'

/** Runs the scenario once with this config and resolves to whatever the runtime answered. */
export type Launch = (config: ScenarioConfig) => Promise<unknown>

export interface Prepared {
  /** `bun 1.4.5`, `node v22.21.1`, … */
  label: string
  /** The runtime part of the SDK's user-agent, exactly. */
  userAgent: string | RegExp
  launch: Launch
}

export interface Target {
  name: string
  /** Which build the package's `exports` must give this runtime. */
  build: 'node' | 'portable'
  /** Finds the binary or makes the bundle: everything that is not the run itself. */
  prepare(app: App): Promise<Prepared>
}

const RUN_TIMEOUT_MS = 60_000
const require = createRequire(import.meta.url)
const REPORT_URL = 'http://matrix.invalid/'

function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version
}

/** A file inside an installed devDependency; a clear failure where npm did not install it (another platform). */
function fileInPackage(name: string, path: string): string {
  try {
    return join(dirname(require.resolve(`${name}/package.json`)), path)
  } catch {
    throw new Error(`${name} is not installed (a devDependency for Linux x64: run npm ci on Linux x64)`)
  }
}

function nodeTarget(version: 'current' | '22' | '24'): Target {
  return {
    name: version === 'current' ? 'node (this one)' : `node ${version}`,
    build: 'node',
    async prepare(app) {
      // Other versions come from the `node` package through npx, as scripts/smoke.sh gets them.
      const [binary, nodeVersion] =
        version === 'current'
          ? [process.execPath, process.version]
          : (
              await output(
                'npx',
                ['-y', `node@${version}`, '-p', 'process.execPath + " " + process.version'],
                {
                  cwd: app.work,
                  timeoutMs: 180_000,
                },
              )
            ).split(' ')
      if (!binary || !nodeVersion) throw new Error(`could not get node@${version} through npx`)
      return {
        label: `node ${nodeVersion}`,
        userAgent: `node/${nodeVersion}`,
        launch: cliLaunch(app, binary, [], cleanEnv()),
      }
    },
  }
}

/** A runtime whose binary ships in an npm package (a devDependency); its version is the package's. */
function packagedTarget(options: {
  name: string
  build: Target['build']
  packageName: string
  binaryPath: string
  args: readonly string[]
  env(app: App): NodeJS.ProcessEnv
}): Target {
  return {
    name: options.name,
    build: options.build,
    async prepare(app) {
      const binary = fileInPackage(options.packageName, options.binaryPath)
      const version = packageVersion(options.packageName)
      return {
        label: `${options.name} ${version}`,
        userAgent: `${options.name}/${version}`,
        launch: cliLaunch(app, binary, options.args, options.env(app)),
      }
    },
  }
}

// Bun's own stand-in for undici has no Dispatcher.dispatch: the `bun` condition picks the fetch build.
const bun = packagedTarget({
  name: 'bun',
  build: 'portable',
  packageName: '@oven/bun-linux-x64',
  binaryPath: 'bin/bun',
  args: [],
  env: () => cleanEnv({ DO_NOT_TRACK: '1', BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' }),
})

// `--allow-net` and nothing else: Deno loads modules from node_modules (the project's package.json
// makes it read them, with the `deno` condition first) without `--allow-read`, so the scenario runs
// from the installed tarball with no bundle. The `deno` condition picks the fetch build: undici through
// Deno's Node layer costs half the CPU per call, but reads `process.env` (JEST_WORKER_ID), which
// needs `--allow-env`.
const deno = packagedTarget({
  name: 'deno',
  build: 'portable',
  packageName: '@deno/linux-x64-glibc',
  binaryPath: 'deno',
  args: ['run', '--allow-net', '--no-lock'],
  env: (app) => cleanEnv({ DENO_DIR: join(app.work, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }),
})

function workerdTarget(nodejsCompat: boolean): Target {
  return {
    name: nodejsCompat ? 'workerd nodejs_compat' : 'workerd',
    build: 'portable',
    async prepare(app) {
      const script = await bundleWorker({
        entry: app.workerEntry,
        conditions: WORKERD_CONDITIONS,
        format: 'esm',
        nodejsCompat,
      })
      return {
        label: `workerd ${packageVersion('workerd')}${nodejsCompat ? ' nodejs_compat' : ''}`,
        userAgent: 'workerd',
        async launch(config) {
          const mf = startMiniflare(script, { nodejsCompat })
          try {
            await mf.ready
            const response = await mf.dispatchFetch(REPORT_URL, {
              method: 'POST',
              body: JSON.stringify(config),
            })
            return await response.json()
          } finally {
            await mf.dispose()
          }
        },
      }
    },
  }
}

const edgeRuntime: Target = {
  name: 'edge-runtime',
  build: 'portable',
  async prepare(app) {
    const initialCode = await bundleWorker({
      entry: app.edgeEntry,
      conditions: EDGE_LIGHT_CONDITIONS,
      format: 'iife',
    })
    return {
      label: `edge-runtime ${packageVersion('edge-runtime')}`,
      userAgent: 'edge-runtime',
      async launch(config) {
        const runtime = new EdgeRuntime({ initialCode })
        const response = await runtime.dispatchFetch(REPORT_URL, {
          method: 'POST',
          body: JSON.stringify(config),
        })
        await response.waitUntil()
        return await response.json()
      },
    }
  },
}

export const TARGETS: readonly Target[] = [
  nodeTarget('current'),
  nodeTarget('22'),
  nodeTarget('24'),
  bun,
  deno,
  workerdTarget(false),
  workerdTarget(true),
  edgeRuntime,
]

/** `<runtime> [args] cli.mjs <config>` in the installed project; the report is its last line of stdout. */
function cliLaunch(app: App, binary: string, args: readonly string[], env: NodeJS.ProcessEnv): Launch {
  return async (config) => {
    const finished = await runProcess(binary, [...args, app.cliEntry, JSON.stringify(config)], {
      cwd: app.dir,
      env,
      timeoutMs: RUN_TIMEOUT_MS,
    })
    if (finished.timedOut) throw new Error(`no report within ${RUN_TIMEOUT_MS} ms`)
    if (finished.code !== 0) throw new Error(`exited with ${finished.code}: ${gist(finished.stderr)}`)
    const last = finished.stdout.trim().split('\n').at(-1) ?? ''
    try {
      return JSON.parse(last) as unknown
    } catch {
      throw new Error(`printed no JSON report: ${gist(finished.stdout)}`)
    }
  }
}

/** The first lines of an error output that say something, on one line. */
function gist(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at '))
  return lines.slice(0, 4).join(' | ') || '(no output)'
}
