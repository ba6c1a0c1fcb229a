// Child processes of the matrix: their output captured, their time bounded.
import { spawn } from 'node:child_process'

export interface Finished {
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
}

export function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, timedOut })
    })
  })
}

/** Runs a command that must succeed; its stdout, trimmed. */
export async function output(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs: number },
): Promise<string> {
  const finished = await runProcess(command, args, options)
  if (finished.code !== 0) {
    const why = finished.timedOut ? 'timed out' : `exited with ${finished.code}`
    throw new Error(`${command} ${args.join(' ')} ${why}: ${finished.stderr.trim().slice(-2000)}`)
  }
  return finished.stdout.trim()
}

/** The environment without loaders (tsx) that would change how a runtime starts. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra }
  delete env.NODE_OPTIONS
  return env
}
