// The `notifykit` bin from the tarball: `notifykit fake --port 0` (run as the arguments say: through
// npx, or a given node on node_modules/.bin/notifykit) starts, answers a trigger from notifykit
// over a real socket, prints the request, and stops on SIGTERM sent to its process group, as a
// terminal or a container runtime does (npm exec does not pass a signal on to the command it runs):
// the command prints that it stopped and exits 0; npx, which got the signal too, may end by it.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { NotificationClient } from 'notifykit'

const [command, ...args] = process.argv.slice(2)
assert.ok(command, 'usage: node cli-fake.mjs <command> [args...]')
const child = spawn(command, [...args, 'fake', '--port', '0', '--api-key', 'smoke-cli-key'], {
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
})
let stderr = ''
child.stderr.setEncoding('utf8').on('data', (chunk) => {
  stderr += chunk
})
const lines = []
let partial = ''
const waiters = []
child.stdout.setEncoding('utf8').on('data', (chunk) => {
  partial += chunk
  const parts = partial.split('\n')
  partial = parts.pop()
  lines.push(...parts)
  for (const wake of waiters.splice(0)) wake()
})
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
const timeout = setTimeout(() => {
  process.kill(-child.pid, 'SIGKILL')
  console.error(`notifykit fake did not do its part in time; it printed:\n${lines.join('\n')}\n${stderr}`)
  process.exit(1)
}, 30_000)

async function lineMatching(pattern) {
  for (;;) {
    const line = lines.find((l) => pattern.test(l))
    if (line) return line
    await new Promise((resolve) => waiters.push(resolve))
  }
}

const listening = await lineMatching(/^listening on /)
const baseUrl = /listening on (\S+)/.exec(listening)[1]
assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
const client = new NotificationClient({ apiKey: 'smoke-cli-key', baseUrl, maxRetries: 0 })
// No workflow seeded: the fake answers as the server does, 422 workflow_not_found.
const error = await client.events.trigger({ name: 'welcome', to: 'user-1' }).catch((e) => e)
assert.equal(error.status, 422)
await client.close()
await lineMatching(/ POST \/v1\/events\/trigger 422 \d+ms$/)
process.kill(-child.pid, 'SIGTERM')
const { code, signal } = await exited
clearTimeout(timeout)
const throughNpm = /^npx$|\/npx$/.test(command)
assert.ok(
  code === 0 || (throughNpm && signal === 'SIGTERM'),
  `exit code ${code}, signal ${signal}\n${stderr}`,
)
await lineMatching(/stopped \(SIGTERM\)$/)
await assert.rejects(fetch(`${baseUrl}/v1/notifications/x`), 'the port is still open')
assert.ok(!lines.join('\n').includes('smoke-cli-key'), 'the API key was printed')
console.log(
  `notifykit fake (${[command, ...args].join(' ')}): listened, answered, printed, stopped (${code === 0 ? 'exit code 0' : `npx ended by ${signal}`})`,
)
