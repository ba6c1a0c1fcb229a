// Where does a client's time go? Profiles one client on one operation (the measured calls only,
// warm-up and module loading excluded) and prints CPU per call by package and by function; with
// `--against raw` (undici.request), `--against agent` (agent.request, undici's lowest-level request call),
// `--against pool` or `--against fetch` (the same wire work by hand) it profiles that too and prints
// what the client spends beyond it. `--client lenient-fetch` is notifykit over the global fetch.
//
//   npx tsx bench/profile.ts --client lenient --operation get [--against raw] [--concurrency 32] [--seconds 5]
//   npx tsx bench/profile.ts --client lenient --package bench/results/builds/after/index.js ...
//   npx tsx bench/profile.ts --client lenient+otel --against lenient --operation trigger   (otelHooks' cost)
//   npx tsx bench/profile.ts --summarize bench/results/profiles/<file>.cpuprofile [--calls N]
import { mkdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { compileWorkers, distEntry, ensureDist, log, resultsDir, runWorker, startServer } from './harness.js'
import {
  type ClientSpec,
  OPERATIONS,
  type Operation,
  type ProfileConfig,
  type ProfileResult,
  type RawClientSpec,
} from './protocol.js'

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}
interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
}
interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** Sampled CPU of one profile, in µs per call. */
interface Breakdown {
  file: string
  calls: number
  total: number
  byPackage: Map<string, number>
  selfByFunction: Map<string, number>
  inclusiveByFunction: Map<string, number>
}

function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame
  if (url.includes('node_modules/zod/')) return 'zod'
  if (url.includes('node_modules/undici/')) return 'undici'
  if (url.includes('node_modules/@opentelemetry/')) return 'opentelemetry'
  if (url.includes('/dist/') || url.includes('/builds/')) return 'notifykit'
  if (url.includes('/bench/')) return 'bench harness'
  if (url.startsWith('node:')) return 'node internals (js)'
  if (functionName === '(garbage collector)') return 'garbage collector'
  if (functionName === '(program)') return 'program (native, unattributed)'
  // JSON.parse, writev and other builtins show as the JS function that called them, or here.
  return 'native builtins'
}

function nameOf(frame: CallFrame): string {
  const file = frame.url.split('/').slice(-1)[0] ?? ''
  const where = file ? ` ${file}:${frame.lineNumber + 1}` : ''
  return `[${packageOf(frame)}] ${frame.functionName || '(anonymous)'}${where}`
}

function add(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value)
}

export function breakdown(file: string, calls: number): Breakdown {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const result: Breakdown = {
    file,
    calls,
    total: 0,
    byPackage: new Map(),
    selfByFunction: new Map(),
    inclusiveByFunction: new Map(),
  }
  profile.samples.forEach((id, index) => {
    const node = byId.get(id)
    const us = (profile.timeDeltas[index] ?? 0) / calls
    if (!node || node.callFrame.functionName === '(idle)') return
    result.total += us
    add(result.byPackage, packageOf(node.callFrame), us)
    add(result.selfByFunction, nameOf(node.callFrame), us)
    const seen = new Set<string>()
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame
      if (!frame) break
      const key = nameOf(frame)
      if (seen.has(key)) continue
      seen.add(key)
      add(result.inclusiveByFunction, key, us)
    }
  })
  return result
}

function rows(entries: Iterable<[string, number]>, total: number, limit: number): string {
  return [...entries]
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .slice(0, limit)
    .map(
      ([name, us]) =>
        `  ${us.toFixed(1).padStart(7)} µs  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`,
    )
    .join('\n')
}

function print(text: string): void {
  process.stdout.write(`${text}\n`)
}

export function summarize(b: Breakdown): void {
  print(`\n${b.file}\nsampled CPU: ${b.total.toFixed(1)} µs per call over ${b.calls} calls`)
  print(`\nself time by package (µs per call):\n${rows(b.byPackage, b.total, 20)}`)
  print(`\nself time by function:\n${rows(b.selfByFunction, b.total, 35)}`)
  const ours = [...b.inclusiveByFunction].filter(([name]) => /^\[(notifykit|zod|opentelemetry)\]/.test(name))
  print(`\ninclusive time, notifykit and zod functions:\n${rows(ours, b.total, 30)}`)
}

function difference(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const result = new Map<string, number>()
  for (const key of new Set([...a.keys(), ...b.keys()]))
    result.set(key, (b.get(key) ?? 0) - (a.get(key) ?? 0))
  return result
}

/** What `b` spends beyond `a`, per call. */
export function compare(a: Breakdown, b: Breakdown): void {
  print(`\n${b.file}\n  against ${a.file}`)
  print(
    `sampled CPU per call: ${b.total.toFixed(1)} µs against ${a.total.toFixed(1)} µs (${(b.total / a.total).toFixed(3)}×, +${(b.total - a.total).toFixed(1)} µs)`,
  )
  print(
    `\nextra self time by package (µs per call):\n${rows(difference(a.byPackage, b.byPackage), b.total, 20)}`,
  )
  print(
    `\nextra self time by function:\n${rows(difference(a.selfByFunction, b.selfByFunction), b.total, 35)}`,
  )
  const ours = [...b.inclusiveByFunction].filter(([name]) => /^\[(notifykit|zod|opentelemetry)\]/.test(name))
  print(`\ninclusive time, notifykit and zod functions:\n${rows(ours, b.total, 30)}`)
}

const { values } = parseArgs({
  options: {
    client: { type: 'string', default: 'lenient' },
    against: { type: 'string' },
    operation: { type: 'string', default: 'get' },
    concurrency: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '5' },
    /** Another build of the package (its ESM entry), instead of dist/index.js. */
    package: { type: 'string' },
    summarize: { type: 'string' },
    calls: { type: 'string', default: '1' },
    'no-build': { type: 'boolean', default: false },
  },
})

async function profileClient(
  which: string,
  operation: Operation,
  port: number,
  client: string,
): Promise<Breakdown> {
  const raw: Record<string, RawClientSpec['raw']> = {
    raw: 'undici.request',
    agent: 'agent.request',
    pool: 'pool.request',
    fetch: 'fetch',
  }
  if (
    !(which in raw) &&
    !['lenient', 'off', 'lenient-fetch', 'lenient+otel', 'lenient+otelapi'].includes(which)
  )
    throw new Error(
      'clients are raw (undici.request), agent (agent.request), pool and fetch (the same wire work by hand), lenient, off, lenient-fetch, lenient+otel or lenient+otelapi',
    )
  const profileDir = join(resultsDir, 'profiles')
  mkdirSync(profileDir, { recursive: true })
  const profilePath = join(
    profileDir,
    `${which}-${operation}-c${values.concurrency}-${Date.now()}.cpuprofile`,
  )
  const rawName = raw[which]
  const spec: ClientSpec = rawName
    ? { raw: rawName }
    : {
        label: 'notifykit',
        packageUrl: pathToFileURL(resolve(values.package ?? distEntry)).href,
        responseValidation: which === 'off' ? 'off' : 'lenient',
        ...(which === 'lenient-fetch' ? { transport: 'fetch' as const } : {}),
        ...(which === 'lenient+otel'
          ? { otel: 'sdk' as const }
          : which === 'lenient+otelapi'
            ? { otel: 'api' as const }
            : {}),
      }
  const config: ProfileConfig = {
    mode: 'profile',
    port,
    client: spec,
    operation,
    concurrency: Number(values.concurrency),
    warmupMs: 1_500,
    durationMs: Number(values.seconds) * 1_000,
    profilePath,
    samplingIntervalUs: 200,
  }
  const result = await runWorker<ProfileResult>(client, config)
  log(
    `${which} ${operation} c${values.concurrency}: ${result.calls} calls, ${result.cpuUsPerCall.toFixed(1)} µs CPU per call (cpuUsage)`,
  )
  return breakdown(profilePath, result.calls)
}

if (values.summarize) {
  summarize(breakdown(values.summarize, Number(values.calls)))
} else {
  const operation: Operation = OPERATIONS.find((known) => known === values.operation) ?? 'get'
  if (!values.package) ensureDist(!values['no-build'])
  const scripts = await compileWorkers()
  const server = await startServer(scripts.server)
  try {
    const ours = await profileClient(values.client, operation, server.port, scripts.client)
    if (values.against) {
      const theirs = await profileClient(values.against, operation, server.port, scripts.client)
      compare(theirs, ours)
    } else {
      summarize(ours)
    }
  } finally {
    server.stop()
  }
}
