// `npm run bench` (add `--quick` for a short run): notifykit against raw undici on a local server.
// Prints a markdown table, writes bench/results/latest.json and bench/results/latest.md.
// It is a benchmark, not a test: nothing here runs under `npm test`.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type BundleResult, measureBundles } from './bundle.js'
import {
  type ColdStartResult,
  type ColdStartScript,
  coldMedian,
  coldRatios,
  measureColdStart,
} from './cold-start.js'
import {
  compileWorkers,
  distEntry,
  ensureDist,
  log,
  resultsDir,
  root,
  runWorker,
  startServer,
} from './harness.js'
import {
  clientName,
  type MemoryConfig,
  type MemoryResult,
  OPERATIONS,
  type Operation,
  type PooledLatency,
  RAW_AGENT_REQUEST,
  RAW_FETCH_SAME_WIRE,
  RAW_FETCH_TIMEOUT,
  RAW_POOL_SAME_WIRE,
  RAW_UNDICI,
  type RoundsConfig,
  type RoundsResult,
  type Scenario,
  type SdkClientSpec,
  type Segment,
} from './protocol.js'
import { runRounds } from './rounds.js'
import { runScale } from './scale.js'
import { median, round } from './stats.js'
import { measureWorkers, workersMisses, workersTable } from './workers.js'

const quick = process.argv.includes('--quick')
// Many short rounds rather than a few long ones: the speed of this shared machine drifts within a
// quarter of a second, and two neighbouring 50 ms segments see more nearly the same machine. The
// median of 80 to 100 per-round ratios moved by about ±0.03 between runs; that of 20 rounds of 250 ms,
// in the harness before it ran each client in its own process, by ±0.1. Over fetch, a 50 ms segment
// holds a third as many calls as over undici and one collection moves it more: per-round ratios there spread with a
// robust standard deviation of 0.3 to 0.4, so the median of 100 moves by about ±0.04. Rounds and
// cold starts are whole cycles of the balanced orders (10 clients: 10 orders; 10 scripts: 10).
const settings = quick
  ? {
      rounds: 10,
      segmentMs: 50,
      warmupMs: 150,
      memoryWarmupCalls: 20_000,
      memoryCalls: 20_000,
      coldStarts: 10,
      workerStartRounds: 5,
    }
  : {
      rounds: 100,
      segmentMs: 50,
      warmupMs: 300,
      // RSS grows over the first tens of thousands of calls while V8 sizes its young generation (at
      // concurrency 32: 89 MB after 5,000 calls, 103 MB after 20,000, 107 MB after 50,000, 108 to
      // 110 MB after 105,000 to 150,000, heap used 14.2 to 14.9 MB throughout); growth after that
      // would be a leak.
      memoryWarmupCalls: 50_000,
      memoryCalls: 100_000,
      coldStarts: 30,
      workerStartRounds: 15,
    }
const SCENARIOS: Scenario[] = [1, 32].flatMap((concurrency) =>
  OPERATIONS.map((operation) => ({ operation, concurrency })),
)
const MEMORY_CONCURRENCY = 32

// ---------------------------------------------------------------------------------------------
// The summary: medians over rounds, and the median of the per-round ratios to raw undici.

type Metric = 'callsPerSecond' | 'cpuUsPerCall'
type Target = { kind: 'max' | 'min'; ratio: number } | undefined

interface Row {
  figure: string
  raw: string
  notifykit: string
  ratio: string
  target: string
  result: 'pass' | 'miss' | ''
  /** Per-round ratios, or per-process ratios for cold start. */
  ratios?: number[]
}

function segmentsOf(segments: Segment[], client: string, operation: Operation, concurrency: number) {
  return segments.filter(
    (s) => s.client === client && s.operation === operation && s.concurrency === concurrency,
  )
}

function compareRow(
  segments: Segment[],
  client: string,
  operation: Operation,
  concurrency: number,
  metric: Metric,
  figure: string,
  target: Target,
  floor = RAW_UNDICI,
): Row {
  const ours = segmentsOf(segments, client, operation, concurrency)
  const raw = segmentsOf(segments, floor, operation, concurrency)
  const ratios = ours.map((segment, i) => {
    const neighbour = raw[i]
    if (!neighbour || neighbour.round !== segment.round) throw new Error('rounds out of step')
    return segment[metric] / neighbour[metric]
  })
  const ratio = median(ratios)
  const digits = metric === 'callsPerSecond' ? 0 : 1
  return {
    figure,
    raw: String(round(median(raw.map((s) => s[metric])), digits)),
    notifykit: String(round(median(ours.map((s) => s[metric])), digits)),
    ratio: `${ratio.toFixed(3)}×`,
    target: target ? `${target.kind === 'max' ? '≤' : '≥'} ${target.ratio}×` : '—',
    result: target
      ? (target.kind === 'max' ? ratio <= target.ratio : ratio >= target.ratio)
        ? 'pass'
        : 'miss'
      : '',
    ratios: ratios.map((r) => round(r, 3)),
  }
}

function latencyRow(
  latencies: PooledLatency[],
  client: string,
  operation: Operation,
  percentileKey: 'p50Ms' | 'p99Ms',
): Row {
  const pool = (name: string) => {
    const found = latencies.find((l) => l.client === name && l.operation === operation && l.concurrency === 1)
    if (!found) throw new Error(`no latencies of ${name} ${operation}`)
    return found
  }
  const ours = pool(client)
  const raw = pool(RAW_UNDICI)
  return {
    figure: `${percentileKey === 'p50Ms' ? 'p50' : 'p99'} latency ms, ${LABEL[operation]}, ${MODE[client]}, concurrency 1 (all ${ours.calls.toLocaleString('en')} calls of the rounds)`,
    raw: String(round(raw[percentileKey], 3)),
    notifykit: String(round(ours[percentileKey], 3)),
    ratio: `${(ours[percentileKey] / raw[percentileKey]).toFixed(3)}×`,
    target: '—',
    result: '',
  }
}

const LABEL: Record<Operation, string> = {
  trigger: 'trigger',
  get: 'get notification (20 KB)',
  list: 'list a trigger’s notifications (2, 40 KB)',
  preferences: 'get preferences (1 KB)',
}
const LENIENT: SdkClientSpec = { label: 'notifykit', packageUrl: '', responseValidation: 'lenient' }
const OFF: SdkClientSpec = { label: 'notifykit', packageUrl: '', responseValidation: 'off' }
const MODE: Record<string, string> = { [clientName(LENIENT)]: 'lenient', [clientName(OFF)]: 'validation off' }

const OVER_FETCH: SdkClientSpec = { ...LENIENT, transport: 'fetch' }
MODE[clientName(OVER_FETCH)] = 'lenient, over fetch'
const WITH_OTEL: SdkClientSpec = { ...LENIENT, otel: 'sdk' }
const WITH_OTEL_API: SdkClientSpec = { ...LENIENT, otel: 'api' }

const SDK_CLIENTS = [clientName(LENIENT), clientName(OFF)]

/** The table's order: concurrency 32 before 1, the operations in OPERATIONS' order, lenient before off. */
function* sdkScenarios() {
  for (const concurrency of [32, 1]) {
    for (const operation of OPERATIONS) {
      for (const client of SDK_CLIENTS) yield { concurrency, operation, client }
    }
  }
}

function rows(
  rounds: RoundsResult,
  memory: MemoryResult,
  cold: ColdStartResult,
  bundle: BundleResult,
): Row[] {
  const segments = rounds.segments
  const result: Row[] = []
  const cpuTarget = (client: string, operation: Operation): Target => ({
    kind: 'max',
    ratio: client === clientName(OFF) ? 1.1 : operation === 'trigger' ? 1.15 : 1.5,
  })
  for (const { concurrency, operation, client } of sdkScenarios()) {
    result.push(
      compareRow(
        segments,
        client,
        operation,
        concurrency,
        'cpuUsPerCall',
        `CPU µs/call, ${LABEL[operation]}, ${MODE[client]}, concurrency ${concurrency}`,
        cpuTarget(client, operation),
      ),
    )
  }
  // Against other floors, lenient: undici's agent.request (its lowest-level call: what the SDK's own
  // work costs; no target), and the same work done by hand (every header, a fresh key per POST, the
  // request and the result checked with the SDK's schemas as lenient mode does) over each transport:
  // undici's Pool.request, and fetch with JSON.parse (the fetch row's target).
  const floors = [
    {
      client: clientName(LENIENT),
      floor: RAW_AGENT_REQUEST,
      against: "undici's agent.request (its lowest-level request call)",
      target: undefined,
    },
    {
      client: clientName(LENIENT),
      floor: RAW_POOL_SAME_WIRE,
      against: 'undici Pool.request doing the same wire work and checks',
      target: { kind: 'max', ratio: 1.15 } as const,
    },
    {
      client: clientName(OVER_FETCH),
      floor: RAW_FETCH_SAME_WIRE,
      against: 'fetch doing the same wire work and checks',
      target: { kind: 'max', ratio: 1.15 } as const,
    },
    {
      client: clientName(OVER_FETCH),
      floor: RAW_FETCH_TIMEOUT,
      against: 'fetch doing the same wire work and checks with a timeout signal',
      target: undefined,
    },
  ]
  for (const { client, floor, against, target } of floors) {
    for (const concurrency of [32, 1]) {
      for (const operation of OPERATIONS) {
        result.push(
          compareRow(
            segments,
            client,
            operation,
            concurrency,
            'cpuUsPerCall',
            `CPU µs/call, ${LABEL[operation]}, ${MODE[client]}, concurrency ${concurrency}, against ${against}`,
            target,
            floor,
          ),
        )
      }
    }
  }
  // The price of OpenTelemetry on: the same client with otelHooks() against it without hooks.
  result.push(
    compareRow(
      segments,
      clientName(WITH_OTEL),
      'trigger',
      32,
      'cpuUsPerCall',
      'CPU µs/call, trigger, lenient + OpenTelemetry (SDK, no-op exporter), concurrency 32, against no hooks',
      { kind: 'max', ratio: 1.15 },
      clientName(LENIENT),
    ),
  )
  // Its split: otelHooks over the API's no-op providers is what notifykit adds; the rest is the SDK's.
  result.push(
    compareRow(
      segments,
      clientName(WITH_OTEL_API),
      'trigger',
      32,
      'cpuUsPerCall',
      'CPU µs/call, trigger, lenient + otelHooks over the API alone (no SDK), concurrency 32, against no hooks',
      undefined,
      clientName(LENIENT),
    ),
  )
  for (const { concurrency, operation, client } of sdkScenarios()) {
    result.push(
      compareRow(
        segments,
        client,
        operation,
        concurrency,
        'callsPerSecond',
        `calls/s, ${LABEL[operation]}, ${MODE[client]}, concurrency ${concurrency}`,
        concurrency === 32 ? { kind: 'min', ratio: 0.85 } : undefined,
      ),
    )
  }
  // Throughput against the same wire work done by hand, on each transport: the floors with a target.
  for (const { client, floor, against } of floors.filter(({ target }) => target !== undefined)) {
    for (const operation of OPERATIONS) {
      result.push(
        compareRow(
          segments,
          client,
          operation,
          32,
          'callsPerSecond',
          `calls/s, ${LABEL[operation]}, ${MODE[client]}, concurrency 32, against ${against}`,
          { kind: 'min', ratio: 0.85 },
          floor,
        ),
      )
    }
  }
  for (const percentileKey of ['p50Ms', 'p99Ms'] as const) {
    for (const operation of OPERATIONS) {
      for (const client of SDK_CLIENTS) {
        result.push(latencyRow(rounds.latencies, client, operation, percentileKey))
      }
    }
  }
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
  const rssGrowth = memory.afterCalls.rssBytes - memory.afterWarmup.rssBytes
  const heapGrowth = memory.afterCalls.heapUsedBytes - memory.afterWarmup.heapUsedBytes
  result.push({
    figure: `RSS MB after ${memory.calls.toLocaleString('en')} calls vs after warm-up, lenient`,
    raw: '—',
    notifykit: `${mb(memory.afterWarmup.rssBytes)} → ${mb(memory.afterCalls.rssBytes)}`,
    ratio: `${rssGrowth >= 0 ? '+' : ''}${mb(rssGrowth)} MB`,
    target: '≤ +10 MB',
    result: rssGrowth <= 10 * 1024 * 1024 ? 'pass' : 'miss',
  })
  result.push({
    figure: `heap used MB after ${memory.calls.toLocaleString('en')} calls vs after warm-up, lenient`,
    raw: '—',
    notifykit: `${mb(memory.afterWarmup.heapUsedBytes)} → ${mb(memory.afterCalls.heapUsedBytes)}`,
    ratio: `${heapGrowth >= 0 ? '+' : ''}${mb(heapGrowth)} MB`,
    target: '—',
    result: '',
  })
  const coldRow = (
    figure: string,
    ours: ColdStartScript,
    theirs: ColdStartScript,
    key: 'importMs' | 'readyMs',
    target: number | undefined,
  ): Row => {
    const ratios = coldRatios(cold, ours, theirs, key)
    const ratio = median(ratios)
    return {
      figure: `${figure}, median of ${cold.processes}`,
      raw: coldMedian(cold, theirs, key).toFixed(1),
      notifykit: coldMedian(cold, ours, key).toFixed(1),
      ratio: `${ratio.toFixed(3)}×`,
      target: target === undefined ? '—' : `≤ ${target}×`,
      result: target === undefined ? '' : ratio <= target ? 'pass' : 'miss',
      ratios: ratios.map((r) => round(r, 3)),
    }
  }
  result.push(
    coldRow(
      'cold start ms, import + construct, as installed (vs importing undici and zod/mini and constructing an Agent)',
      'sdk',
      'undici+zod/mini',
      'importMs',
      1.05,
    ),
    coldRow(
      'cold start ms, import + construct, as installed (vs importing undici and classic zod and constructing an Agent)',
      'sdk',
      'undici+zod',
      'importMs',
      undefined,
    ),
    coldRow(
      'cold start ms, import + construct, esbuild bundle (vs the handler by hand with undici + zod, bundled)',
      'sdk bundled',
      'handler bundled, zod',
      'importMs',
      1.05,
    ),
    coldRow(
      'cold start ms, import + construct, esbuild bundle (vs the handler by hand with undici + zod/mini, bundled)',
      'sdk bundled',
      'handler bundled, zod/mini',
      'importMs',
      undefined,
    ),
    coldRow(
      'cold start ms, process start → ready, as installed (vs undici + zod/mini, new Agent())',
      'sdk',
      'undici+zod/mini',
      'readyMs',
      undefined,
    ),
    coldRow(
      "first call ms, process start → first trigger's result (vs undici.request + zod/mini, request and result checked)",
      'sdk first call',
      'raw first call',
      'readyMs',
      1.1,
    ),
    coldRow(
      "first call ms, process start → first trigger's result, an app that imports zod and types its workflow's payload with it (vs undici.request + zod, payload, request and result checked)",
      'app with zod, sdk first call',
      'app with zod, by hand first call',
      'readyMs',
      1.05,
    ),
  )
  // The application's zod and the SDK's are one: its script throws when zod was loaded twice, so a
  // run that gets here has 0 everywhere; the row says so.
  const zodCopies = Math.max(
    ...cold.samples['app with zod, sdk first call'].map((sample) => sample.zodCommonJsModules ?? Number.NaN),
  )
  result.push({
    figure: `zod loaded once: modules of zod loaded through CommonJS in the app that imports zod, after its first trigger (dist/index.js), most of ${cold.processes}`,
    raw: '—',
    notifykit: String(zodCopies),
    ratio: '—',
    target: '0',
    result: zodCopies === 0 ? 'pass' : 'miss',
  })
  const kb = (bytes: number) => (bytes / 1024).toFixed(1)
  result.push({
    figure: 'bundle KB, trigger handler, esbuild minified + gzipped (vs undici + zod handler)',
    raw: kb(bundle.baseline.gzippedBytes),
    notifykit: kb(bundle.notifykit.gzippedBytes),
    ratio: `${bundle.deltaGzippedBytes >= 0 ? '+' : '−'}${kb(Math.abs(bundle.deltaGzippedBytes))} KB`,
    target: '≤ +15 KB',
    result: bundle.deltaGzippedBytes <= 15 * 1024 ? 'pass' : 'miss',
  })
  const overUndici = bundle.deltaUndiciAloneGzippedBytes
  result.push({
    figure: 'bundle KB, trigger handler, esbuild minified + gzipped (vs the handler with undici alone)',
    raw: kb(bundle.undiciAlone.gzippedBytes),
    notifykit: kb(bundle.notifykit.gzippedBytes),
    ratio: `${overUndici >= 0 ? '+' : '−'}${kb(Math.abs(overUndici))} KB`,
    target: '≤ +45 KB',
    result: overUndici <= 45 * 1024 ? 'pass' : 'miss',
  })
  return result
}

function table(result: Row[]): string {
  const header = '| figure | raw undici | notifykit | ratio | target | result |\n|---|---:|---:|---:|---|---|'
  const lines = result.map(
    (row) =>
      `| ${row.figure} | ${row.raw} | ${row.notifykit} | ${row.ratio} | ${row.target} | ${row.result} |`,
  )
  return [header, ...lines].join('\n')
}

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown'
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim()
  } catch {}
  return {
    cpus: availableParallelism(),
    cpuModel: model,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverageAtStart: loadavg().map((load) => round(load, 2)),
    commit,
  }
}

// ---------------------------------------------------------------------------------------------

const started = performance.now()
const host = machine()
mkdirSync(resultsDir, { recursive: true })
const dist = ensureDist(!process.argv.includes('--no-build'))
const packageUrl = pathToFileURL(distEntry).href
const scripts = await compileWorkers()
const server = await startServer(scripts.server)
let roundsResult: RoundsResult
let memoryResult: MemoryResult
let coldResult: ColdStartResult
try {
  const rounds: RoundsConfig = {
    port: server.port,
    clients: [
      { raw: 'undici.request' },
      { raw: 'agent.request' },
      { raw: 'pool.request' },
      { raw: 'fetch' },
      { raw: 'fetch+timeout' },
      { ...LENIENT, packageUrl },
      { ...OFF, packageUrl },
      { ...OVER_FETCH, packageUrl },
      { ...WITH_OTEL, packageUrl },
      { ...WITH_OTEL_API, packageUrl },
    ],
    rounds: settings.rounds,
    segmentMs: settings.segmentMs,
    warmupMs: settings.warmupMs,
    scenarios: SCENARIOS,
  }
  log(
    `${settings.rounds} rounds × ${SCENARIOS.length} scenarios × ${rounds.clients.length} clients × ${settings.segmentMs} ms`,
  )
  roundsResult = await runRounds(scripts.client, rounds)
  const memory: MemoryConfig = {
    mode: 'memory',
    port: server.port,
    client: { ...LENIENT, packageUrl },
    warmupCalls: settings.memoryWarmupCalls,
    calls: settings.memoryCalls,
    concurrency: MEMORY_CONCURRENCY,
  }
  log(`memory: ${settings.memoryCalls.toLocaleString('en')} calls`)
  memoryResult = await runWorker<MemoryResult>(scripts.client, memory)
  log(`cold start and first call: ${settings.coldStarts} processes each`)
  coldResult = await measureColdStart({
    packagePath: distEntry,
    resolveDir: root,
    bundleDir: resultsDir,
    port: server.port,
    processes: settings.coldStarts,
  })
} finally {
  server.stop()
}
log('bundle sizes')
const bundleResult = await measureBundles(distEntry, root)
log(`Cloudflare Workers: bundle sizes, ${settings.workerStartRounds} rounds of workerd starts`)
const workersResult = await measureWorkers(root, settings.workerStartRounds)

const summary = rows(roundsResult, memoryResult, coldResult, bundleResult)
const elapsedS = round((performance.now() - started) / 1000, 1)
const heading = `notifykit vs raw undici${quick ? ' (quick run)' : ''}: ${host.cpus} CPUs, ${host.cpuModel}, node ${host.node}, load average ${host.loadAverageAtStart.join(' ')} at start; ${settings.rounds} interleaved rounds of ${settings.segmentMs} ms, ratio = median of per-round ratios; ${elapsedS} s`
const markdown = `${heading}\n\n${table(summary)}\n\n${workersTable(workersResult)}\n`
process.stdout.write(`\n${markdown}`)
const misses = [
  ...summary.filter((row) => row.result === 'miss').map((row) => row.figure),
  ...workersMisses(workersResult),
]
if (!memoryResult.gcExposed) log('WARNING: global.gc was not exposed; memory figures include garbage')
if (dist.stale) log('WARNING: dist was older than src (tsup failed, or --no-build)')
writeFileSync(join(resultsDir, 'latest.md'), markdown)
writeFileSync(
  join(resultsDir, 'latest.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      quick,
      machine: host,
      settings,
      dist,
      elapsedSeconds: elapsedS,
      summary,
      misses,
      rounds: roundsResult,
      memory: memoryResult,
      coldStart: coldResult,
      bundle: bundleResult,
      workers: workersResult,
    },
    null,
    2,
  )}\n`,
)
log(`wrote bench/results/latest.json and latest.md in ${elapsedS} s; ${misses.length} target(s) missed`)

// Sending at scale takes about three minutes of its own (`npm run bench:scale` runs it alone).
if (!quick) {
  log('sending at scale (npm run bench:scale)')
  await runScale()
}
