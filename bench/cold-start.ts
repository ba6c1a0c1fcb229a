// Cold start: fresh `node` processes, alternating, so that both sides see the same machine load.
import { API_KEY } from './fixtures.js'
import { runNodeForJson } from './harness.js'
import { median } from './stats.js'

export interface ColdStartSample {
  /** From the first `import()` to a constructed client (or to both dependencies loaded). */
  importMs: number
  /** From the process's time origin (its start) to the same point. */
  readyMs: number
}

export interface ColdStartResult {
  processes: number
  notifykit: { importMs: number; readyMs: number }
  baseline: { importMs: number; readyMs: number }
  importRatios: number[]
  readyRatios: number[]
}

const REPORT = 'process.stdout.write(JSON.stringify({ importMs: ready - started, readyMs: ready }))'

function notifyKitScript(packageUrl: string): string {
  return `const started = performance.now()
const { NotificationClient } = await import(${JSON.stringify(packageUrl)})
new NotificationClient({ apiKey: ${JSON.stringify(API_KEY)}, baseUrl: 'http://127.0.0.1:8080' })
const ready = performance.now()
${REPORT}`
}

const BASELINE_SCRIPT = `const started = performance.now()
await import('undici')
await import('zod')
const ready = performance.now()
${REPORT}`

function runScript(script: string, cwd: string): Promise<ColdStartSample> {
  return runNodeForJson<ColdStartSample>(['--input-type=module', '-e', script], cwd, 'cold-start process')
}

export async function measureColdStart(
  packageUrl: string,
  cwd: string,
  processes: number,
): Promise<ColdStartResult> {
  const notifykit: ColdStartSample[] = []
  const baseline: ColdStartSample[] = []
  // One untimed pair first: it pulls the files into the page cache.
  await runScript(notifyKitScript(packageUrl), cwd)
  await runScript(BASELINE_SCRIPT, cwd)
  for (let i = 0; i < processes; i++) {
    // Alternate which one goes first, so neither always follows the other.
    if (i % 2 === 0) {
      notifykit.push(await runScript(notifyKitScript(packageUrl), cwd))
      baseline.push(await runScript(BASELINE_SCRIPT, cwd))
    } else {
      baseline.push(await runScript(BASELINE_SCRIPT, cwd))
      notifykit.push(await runScript(notifyKitScript(packageUrl), cwd))
    }
  }
  const pairs = notifykit.map((sample, i) => [sample, baseline[i] as ColdStartSample] as const)
  return {
    processes,
    notifykit: {
      importMs: median(notifykit.map((s) => s.importMs)),
      readyMs: median(notifykit.map((s) => s.readyMs)),
    },
    baseline: {
      importMs: median(baseline.map((s) => s.importMs)),
      readyMs: median(baseline.map((s) => s.readyMs)),
    },
    importRatios: pairs.map(([ours, theirs]) => ours.importMs / theirs.importMs),
    readyRatios: pairs.map(([ours, theirs]) => ours.readyMs / theirs.readyMs),
  }
}
