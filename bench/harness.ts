// Process plumbing shared by run.ts, profile.ts and scale.ts: the built package, the compiled
// workers, the server processes (the benchmark's and the fake's) and the measuring processes.
import { type ChildProcessByStdio, execFileSync, spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { type BuildOptions, build } from 'esbuild'
import type { FakeServiceOptions } from '../src/testing/index.js'
import type { SegmentCommand, SegmentMeasurement, ServeConfig, ServeReady, WorkerConfig } from './protocol.js'
import type { AppliedAt, FakeStats, SwitchedAt } from './scale-protocol.js'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const resultsDir = join(root, 'bench', 'results')
/**
 * The package as Node loads it and as a bundler resolves it for Node (package.json's `import`
 * condition): the build that imports `undici` and `zod/mini` from node_modules.
 */
export const distEntry = join(root, 'dist', 'index.js')
const buildDir = join(resultsDir, '.build')

export function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`)
}

function newestMtime(path: string): number {
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = stats.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

function distMtime(): number | undefined {
  try {
    return statSync(distEntry).mtimeMs
  } catch {
    return undefined
  }
}

/**
 * The measured package is the built one; rebuilt with tsup when missing or older than its sources
 * (unless `build` is false: for profiling while others edit the sources).
 */
export function ensureDist(build = true): { rebuilt: boolean; stale: boolean } {
  const built = distMtime()
  const sources = Math.max(
    newestMtime(join(root, 'src')),
    newestMtime(join(root, 'package.json')),
    newestMtime(join(root, 'tsup.config.ts')),
  )
  if (built !== undefined && built >= sources) return { rebuilt: false, stale: false }
  if (built !== undefined && !build) {
    log('WARNING: dist is older than src and --no-build was given; measuring it as it is')
    return { rebuilt: false, stale: true }
  }
  log(built === undefined ? 'dist is missing: npx tsup' : 'dist is older than src: npx tsup')
  const started = performance.now()
  try {
    execFileSync('npx', ['tsup'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
    log(`built in ${Math.round((performance.now() - started) / 1000)} s`)
    return { rebuilt: true, stale: false }
  } catch (error) {
    if (distMtime() === undefined) throw error
    log('WARNING: tsup failed; measuring the existing, stale dist')
    return { rebuilt: false, stale: true }
  }
}

/** How bench/ bundles TypeScript for plain `node`: ESM, dependencies left to node_modules. */
export const NODE_ESM_BUNDLE = {
  bundle: true,
  packages: 'external',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'error',
} as const satisfies BuildOptions

/** The measuring processes run as plain JavaScript under plain `node`: no loader in the hot path. */
export async function compileWorkers(): Promise<{ server: string; client: string }> {
  await build({
    entryPoints: [join(root, 'bench', 'server.ts'), join(root, 'bench', 'client.ts')],
    outdir: buildDir,
    outExtension: { '.js': '.mjs' },
    ...NODE_ESM_BUNDLE,
  })
  return { server: join(buildDir, 'server.mjs'), client: join(buildDir, 'client.mjs') }
}

export interface Server {
  port: number
  stop(): void
}

export function startServer(script: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child: ChildProcessByStdio<Writable, Readable, null> = spawn(process.execPath, [script], {
      cwd: root,
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    child.on('error', reject)
    child.stdout.once('data', (chunk: Buffer) => {
      const { port } = JSON.parse(chunk.toString()) as { port: number }
      // The server exits when its stdin ends.
      resolve({ port, stop: () => child.stdin.end() })
    })
  })
}

/** A child process spoken to in lines: commands on its stdin, one JSON line back for each, in order. */
export interface LineProcess {
  /** The next line it printed, parsed; rejects if it exits first. */
  next<Line>(): Promise<Line>
  send(command: string): void
  /** Ends its stdin, which tells it to exit. */
  stop(): void
  /** Its exit code. */
  exited: Promise<number | null>
}

export function startLineProcess(script: string, args: string[]): LineProcess {
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(process.execPath, [script, ...args], {
    cwd: root,
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = lineReader(createInterface({ input: child.stdout }))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  return {
    next: async <Line>() => JSON.parse(await lines.next()) as Line,
    send: (command) => child.stdin.write(`${command}\n`),
    stop: () => child.stdin.end(),
    exited,
  }
}

/** Lines in the order printed, whether read before or after they arrive; none once the output ends. */
function lineReader(lines: Interface) {
  const buffered: string[] = []
  const waiting: { resolve(line: string): void; reject(error: Error): void }[] = []
  let ended = false
  lines.on('line', (line) => {
    const waiter = waiting.shift()
    if (waiter) waiter.resolve(line)
    else buffered.push(line)
  })
  lines.on('close', () => {
    ended = true
    for (const waiter of waiting.splice(0)) waiter.reject(new Error('the process exited before answering'))
  })
  return {
    next: () => {
      const line = buffered.shift()
      if (line !== undefined) return Promise.resolve(line)
      if (ended) return Promise.reject(new Error('the process exited before answering'))
      return new Promise<string>((resolve, reject) => waiting.push({ resolve, reject }))
    },
  }
}

/** The fake service in its own process (scale-fake.ts); it exits when its stdin ends. */
export interface FakeProcess {
  baseUrl: string
  port: number
  /** What it applied, and every answer it gave by status. */
  stats(): Promise<FakeStats>
  /** When it applied each event, by the events' indices. */
  applied(): Promise<AppliedAt>
  /** Answers 503 to everything from now on; resolves to when that began (`Date.now()`). */
  down(): Promise<number>
  /** Answers as the fake again; resolves to when that began (`Date.now()`). */
  up(): Promise<number>
  stop(): void
}

export async function startFake(script: string, options: FakeServiceOptions): Promise<FakeProcess> {
  const fake = startLineProcess(script, [JSON.stringify(options)])
  const { port } = await fake.next<{ port: number }>()
  const ask = <Answer>(command: string) => {
    fake.send(command)
    return fake.next<Answer>()
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    stats: () => ask<FakeStats>('stats'),
    applied: () => ask<AppliedAt>('applied'),
    down: async () => (await ask<SwitchedAt>('down')).at,
    up: async () => (await ask<SwitchedAt>('up')).at,
    stop: fake.stop,
  }
}

/** Runs the measuring process with `--expose-gc` (plus `nodeFlags`) and returns what it printed. */
export function runWorker<Result>(
  script: string,
  config: WorkerConfig,
  nodeFlags: string[] = [],
): Promise<Result> {
  return runNodeForJson<Result>(
    ['--expose-gc', ...nodeFlags, script, JSON.stringify(config)],
    root,
    'measuring process',
  )
}

/** A measuring process that holds one client and measures a segment per command. */
export interface ServingWorker {
  ready: ServeReady
  measure(command: SegmentCommand): Promise<SegmentMeasurement>
  /** Ends its stdin: the worker closes its client and exits. */
  stop(): Promise<void>
}

export function startServingWorker(script: string, config: ServeConfig): Promise<ServingWorker> {
  const child = spawn(process.execPath, [script, JSON.stringify(config)], {
    cwd: root,
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  // One JSON line answers each line sent, in order; the first line says the client is ready.
  const waiting: { resolve(line: string): void; reject(error: Error): void }[] = []
  const nextLine = () => new Promise<string>((resolve, reject) => waiting.push({ resolve, reject }))
  const exited = new Promise<void>((resolve) => {
    child.on('close', (code) => {
      for (const waiter of waiting.splice(0))
        waiter.reject(new Error(`measuring process exited with ${code}`))
      resolve()
    })
  })
  child.on('error', (error) => {
    for (const waiter of waiting.splice(0)) waiter.reject(error)
  })
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(line))
  return nextLine().then((line) => ({
    ready: JSON.parse(line) as ServeReady,
    async measure(command) {
      const answer = nextLine()
      child.stdin.write(`${JSON.stringify(command)}\n`)
      return JSON.parse(await answer) as SegmentMeasurement
    },
    stop() {
      child.stdin.end()
      return exited
    },
  }))
}

/** Runs `node <args>` in a clean environment and parses the JSON it prints on stdout. */
export function runNodeForJson<Result>(args: string[], cwd: string, what: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${what} exited with ${code}`))
      else resolve(JSON.parse(output) as Result)
    })
  })
}

/** The environment without loaders (tsx) that would be charged to the measured process. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return env
}
