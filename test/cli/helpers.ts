import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))

export interface RunningCli {
  child: ChildProcess
  baseUrl: string
  /** Every line printed on stdout so far. */
  lines: string[]
  stderr: () => string
  /** Resolves with the first line (from `from` on) that matches, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<string>
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>
}

/** `node dist/cli.js fake --port 0 ...args`, resolved once it prints where it listens. */
export async function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<RunningCli> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first')
  const child = spawn(process.execPath, [CLI, 'fake', '--port', '0', ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let err = ''
  const waiters = new Set<() => void>()
  let partial = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk
    const parts = partial.split('\n')
    partial = parts.pop() ?? ''
    lines.push(...parts)
    for (const wake of waiters) wake()
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const waitFor: RunningCli['waitFor'] = (pattern, { from = 0, timeoutMs = 5_000 } = {}) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const line = lines.slice(from).find((l) => pattern.test(l))
        if (line === undefined) return false
        waiters.delete(wake)
        clearTimeout(timer)
        resolve(line)
        return true
      }
      const wake = () => void check()
      const timer = setTimeout(() => {
        waiters.delete(wake)
        reject(
          new Error(
            `no line matched ${pattern} in ${timeoutMs} ms; stdout:\n${lines.join('\n')}\nstderr:\n${err}`,
          ),
        )
      }, timeoutMs)
      if (!check()) waiters.add(wake)
    })
  const listening = await waitFor(/listening on |"type":"listening"/).catch((error) => {
    child.kill('SIGKILL')
    throw error
  })
  const baseUrl = /"baseUrl":"([^"]+)"|listening on (\S+)/.exec(listening)
  return {
    child,
    baseUrl: baseUrl?.[1] ?? baseUrl?.[2] ?? '',
    lines,
    stderr: () => err,
    waitFor,
    exited,
  }
}

/** Runs the command to its end (a refusal): its exit code and what it printed. */
export function runCli(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })))
}
