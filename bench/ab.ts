// Compares builds of the package with each other and with raw undici, interleaved in rounds in one
// process, to justify a performance change with numbers from one run:
//
//   npx tsx bench/ab.ts --snapshot before      # builds src as it is now into bench/results/builds/before
//   (edit src)
//   npx tsx bench/ab.ts --snapshot after
// or, when others edit src meanwhile, both from the current src with a file swapped for another:
//   npx tsx bench/ab.ts --snapshot before --replace src/internal/transport/undici.ts=/tmp/transport.before.ts
// then
//   npx tsx bench/ab.ts [--builds before,after] [--mode lenient|off] [--rounds 10] [--segment-ms 400]
//                       [--scenarios trigger:32,get:32]
// The first build is the reference; a build may name its own mode (`after:off`); `after+otel` is
// that build's client with otelHooks() over the SDK's discarding providers, `after+otelapi` over the
// API's no-op ones (bench/otel.ts).
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { compileWorkers, log, NODE_ESM_BUNDLE, resultsDir, root, startServer } from './harness.js'
import {
  clientName,
  type Operation,
  RAW_UNDICI,
  type RoundsConfig,
  type RoundsResult,
  type SdkClientSpec,
  type Segment,
} from './protocol.js'
import { runRounds } from './rounds.js'
import { median, percentile, round } from './stats.js'

const buildsDir = join(resultsDir, 'builds')

const { values } = parseArgs({
  options: {
    snapshot: { type: 'string' },
    replace: { type: 'string', multiple: true },
    builds: { type: 'string', default: 'before,after' },
    mode: { type: 'string', default: 'lenient' },
    rounds: { type: 'string', default: '10' },
    'segment-ms': { type: 'string', default: '400' },
    scenarios: { type: 'string', default: 'trigger:32,get:32,trigger:1' },
  },
})

/** The same bundle tsup makes of the ESM entry, without types: seconds instead of half a minute. */
async function snapshot(label: string): Promise<void> {
  const replacements = new Map(
    (values.replace ?? []).map((entry) => {
      const [source, substitute] = entry.split('=')
      if (!source || !substitute) throw new Error('--replace takes src/file.ts=/path/to/other.ts')
      return [resolve(root, source), readFileSync(substitute, 'utf8')] as const
    }),
  )
  await build({
    plugins: [
      {
        name: 'replace',
        setup(plugin) {
          plugin.onLoad({ filter: /\.ts$/ }, (args) => {
            const contents = replacements.get(args.path)
            return contents === undefined ? undefined : { contents, loader: 'ts' }
          })
        },
      },
    ],
    // notifykit/otel beside the main entry, as in dist: `+otel` clients load it from there.
    entryPoints: { index: join(root, 'src', 'index.ts'), otel: join(root, 'src', 'otel', 'index.ts') },
    outdir: join(buildsDir, label),
    ...NODE_ESM_BUNDLE,
  })
  log(`built src into bench/results/builds/${label}/index.js`)
}

function ratios(
  segments: Segment[],
  client: string,
  floor: string,
  operation: Operation,
  concurrency: number,
) {
  const pick = (name: string) =>
    segments.filter((s) => s.client === name && s.operation === operation && s.concurrency === concurrency)
  const ours = pick(client)
  const theirs = pick(floor)
  return {
    cpu: median(ours.map((s, i) => s.cpuUsPerCall / (theirs[i] as Segment).cpuUsPerCall)),
    callsPerSecond: median(ours.map((s, i) => s.callsPerSecond / (theirs[i] as Segment).callsPerSecond)),
    cpuUsPerCall: median(ours.map((s) => s.cpuUsPerCall)),
    // Contention only ever adds CPU time: the quietest tenth of the rounds is the least disturbed.
    cpuP10:
      percentile(
        ours.map((s) => s.cpuUsPerCall),
        10,
      ) /
      percentile(
        theirs.map((s) => s.cpuUsPerCall),
        10,
      ),
  }
}

async function compare(): Promise<void> {
  const specs = values.builds.split(',').map((entry): SdkClientSpec => {
    const [name = '', mode = values.mode] = entry.split(':')
    const [build = '', otel] = name.split('+')
    return {
      label: build,
      packageUrl: pathToFileURL(join(buildsDir, build, 'index.js')).href,
      responseValidation: mode === 'off' ? 'off' : 'lenient',
      ...(otel === 'otel' ? { otel: 'sdk' } : otel === 'otelapi' ? { otel: 'api' } : {}),
    }
  })
  const reference = specs[0]
  if (!reference) throw new Error('--builds names no build')
  const scenarios = values.scenarios.split(',').map((entry) => {
    const [operation, concurrency] = entry.split(':')
    return { operation: operation === 'get' ? 'get' : 'trigger', concurrency: Number(concurrency) } as const
  })
  const scripts = await compileWorkers()
  const server = await startServer(scripts.server)
  const config: RoundsConfig = {
    port: server.port,
    clients: [{ raw: 'undici.request' }, ...specs],
    rounds: Number(values.rounds),
    segmentMs: Number(values['segment-ms']),
    warmupMs: 300,
    scenarios,
  }
  let result: RoundsResult
  try {
    result = await runRounds(scripts.client, config)
  } finally {
    server.stop()
  }
  const lines = [
    `${config.rounds} rounds × ${config.segmentMs} ms, reference ${clientName(reference)}; ratios are medians of per-round ratios`,
    '| scenario | client | µs CPU/call | CPU vs raw | CPU vs reference | same, quietest 10% | calls/s vs reference |',
    '|---|---|---:|---:|---:|---:|---:|',
  ]
  for (const { operation, concurrency } of scenarios) {
    const raw = median(
      result.segments
        .filter((s) => s.client === RAW_UNDICI && s.operation === operation && s.concurrency === concurrency)
        .map((s) => s.cpuUsPerCall),
    )
    lines.push(`| ${operation} c${concurrency} | ${RAW_UNDICI} | ${round(raw, 1)} | | | | |`)
    for (const spec of specs) {
      const vsRaw = ratios(result.segments, clientName(spec), RAW_UNDICI, operation, concurrency)
      const vsReference = ratios(
        result.segments,
        clientName(spec),
        clientName(reference),
        operation,
        concurrency,
      )
      lines.push(
        `| ${operation} c${concurrency} | ${clientName(spec)} | ${round(vsRaw.cpuUsPerCall, 1)} | ${vsRaw.cpu.toFixed(3)} | ${vsReference.cpu.toFixed(3)} | ${vsReference.cpuP10.toFixed(3)} | ${vsReference.callsPerSecond.toFixed(3)} |`,
      )
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}

if (values.snapshot) await snapshot(values.snapshot)
else await compare()
