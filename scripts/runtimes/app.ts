// The package as an npm user gets it: `npm pack`, the tarball installed into a fresh project outside
// the repo, and the scenario compiled into that project with `notifykit` left as an import, so that
// each runtime resolves it through the package's `exports` itself.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { output } from './processes.js'

export interface App {
  /** The project: package.json, node_modules with notifykit from the tarball, scenario/. */
  dir: string
  /** For the Node side's scratch files (Deno's cache). */
  work: string
  /** Launcher for Node, Bun and Deno: `node cli.mjs <config JSON>`. */
  cliEntry: string
  /** Module Worker, still importing `notifykit`. */
  workerEntry: string
  /** Edge runtime listener, still importing `notifykit`. */
  edgeEntry: string
  remove(): Promise<void>
}

const here = fileURLToPath(new URL('.', import.meta.url))
const INSTALL_TIMEOUT_MS = 120_000

export async function installPackedApp(repo: string): Promise<App> {
  const work = await mkdtemp(join(tmpdir(), 'notifykit-runtimes-'))
  const dir = join(work, 'app')
  await mkdir(dir)
  const packed = await output('npm', ['pack', '--pack-destination', work, '--json', '--silent'], {
    cwd: repo,
    timeoutMs: INSTALL_TIMEOUT_MS,
  })
  const [{ filename }] = JSON.parse(packed) as [{ filename: string }]
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'notifykit-runtimes-app', private: true, type: 'module' })}\n`,
  )
  await output(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', join(work, filename)],
    { cwd: dir, timeoutMs: INSTALL_TIMEOUT_MS },
  )
  const scenarioDir = join(dir, 'scenario')
  await build({
    entryPoints: ['cli', 'worker', 'edge'].map((name) => join(here, 'launchers', `${name}.ts`)),
    outdir: scenarioDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // `notifykit` (and zod) stay imports: the runtime, or the Worker bundle made later, resolves them.
    packages: 'external',
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    tsconfigRaw: {},
    logLevel: 'error',
  })
  return {
    dir,
    work,
    cliEntry: join(scenarioDir, 'cli.mjs'),
    workerEntry: join(scenarioDir, 'worker.mjs'),
    edgeEntry: join(scenarioDir, 'edge.mjs'),
    remove: () => rm(work, { recursive: true, force: true }),
  }
}
