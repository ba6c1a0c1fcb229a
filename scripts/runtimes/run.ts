// `npm run test:runtimes`: the packed package in each real runtime (Node 20/22/24, Bun, Deno, workerd
// with and without nodejs_compat, the edge runtime), one scenario each against the fake service served
// from this process on 127.0.0.1. One line per runtime, then `N passed, M failed`; exits 1 on any
// failure. Needs dist/ (npm run build). RUNTIMES_KEEP=1 keeps the temporary project; RUNTIMES_ONLY=bun,deno
// runs only those.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type App, installPackedApp } from './app.js'
import { refusedLoopbackUrl, startMatrixServer } from './fake-server.js'
import { TARGETS, type Target } from './targets.js'
import { verify } from './verify.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
// Unique per run: a key that shows up in an error can only have come from this run.
const API_KEY = `nk_matrix_${crypto.randomUUID().replaceAll('-', '')}`

const LABEL_WIDTH = 38

interface Outcome {
  ok: boolean
  line: string
}

async function runTarget(target: Target, app: App): Promise<Outcome> {
  const started = performance.now()
  const elapsed = () => `${Math.round(performance.now() - started)} ms`
  let label = target.name
  try {
    const prepared = await target.prepare(app)
    label = prepared.label
    // Timed from here: the runtime's start and the scenario, not finding the binary or bundling.
    const runStarted = performance.now()
    const server = await startMatrixServer(API_KEY)
    try {
      const refusedUrl = await refusedLoopbackUrl()
      const answer = await prepared.launch({
        baseUrl: server.baseUrl,
        apiKey: API_KEY,
        notificationId: server.notificationId,
        refusedUrl,
      })
      const verdict = verify(answer, server, { build: target.build, userAgent: prepared.userAgent })
      const runMs = Math.round(performance.now() - runStarted)
      if (verdict.failures.length === 0) {
        return { ok: true, line: `ok   ${label.padEnd(LABEL_WIDTH)} ${verdict.checks} checks in ${runMs} ms` }
      }
      const reasons = verdict.failures.map((failure) => `\n       - ${failure}`).join('')
      return {
        ok: false,
        line: `FAIL ${label.padEnd(LABEL_WIDTH)} ${verdict.failures.length} of ${verdict.checks} checks failed in ${runMs} ms${reasons}`,
      }
    } finally {
      await server.close()
    }
  } catch (error) {
    // esbuild's messages span lines: one line per runtime keeps the summary readable.
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' | ')
    return { ok: false, line: `FAIL ${label.padEnd(LABEL_WIDTH)} after ${elapsed()}: ${reason}` }
  }
}

/** RUNTIMES_ONLY=deno,workerd runs the targets whose names start with one of those. */
function selectedTargets(): readonly Target[] {
  const only = process.env.RUNTIMES_ONLY?.split(',').filter(Boolean)
  if (!only?.length) return TARGETS
  return TARGETS.filter((target) => only.some((prefix) => target.name.startsWith(prefix)))
}

async function main(): Promise<number> {
  const started = performance.now()
  if (
    !existsSync(join(repo, 'dist', 'portable', 'index.js')) ||
    !existsSync(join(repo, 'dist', 'index.js'))
  ) {
    console.error('runtimes: dist/ is missing or incomplete: run npm run build first')
    return 1
  }
  const app = await installPackedApp(repo)
  console.log(`runtimes: packed and installed in ${app.dir} in ${Math.round(performance.now() - started)} ms`)
  let passed = 0
  let failed = 0
  try {
    // One at a time: each runtime's time is its own, not shared with another on two cores.
    for (const target of selectedTargets()) {
      const outcome = await runTarget(target, app)
      console.log(outcome.line)
      if (outcome.ok) passed++
      else failed++
    }
  } finally {
    if (process.env.RUNTIMES_KEEP === '1') console.log(`runtimes: kept ${app.work}`)
    else await app.remove()
  }
  console.log(`runtimes: whole matrix in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  console.log(`${passed} passed, ${failed} failed`)
  return failed === 0 ? 0 : 1
}

process.exitCode = await main()
