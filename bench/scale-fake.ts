// The fake service in a process of its own for `npm run bench:scale`: it outlives a client killed
// with SIGKILL, and its work is not charged to the client. Prints `{ "port" }`, then answers each
// `stats` line on stdin with what it applied; exits when stdin ends.
import { createInterface } from 'node:readline'
import { createFakeService, type FakeServiceOptions } from '../src/testing/index.js'
import { type FakeStats, SCALE_WORKFLOW } from './scale-protocol.js'

const options = JSON.parse(process.argv[2] ?? '{}') as FakeServiceOptions
const fake = createFakeService({
  ...options,
  workflows: [{ identifier: SCALE_WORKFLOW, steps: [{ type: 'email' }] }],
})
const server = await fake.listen()
process.stdout.write(`${JSON.stringify({ port: Number(new URL(server.baseUrl).port) })}\n`)

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'stats') return
  const notifications = fake.notifications
  const seen = new Set<unknown>()
  let duplicates = 0
  for (const notification of notifications) {
    const i = notification.payload.i
    if (seen.has(i)) duplicates++
    seen.add(i)
  }
  const stats: FakeStats = {
    notifications: notifications.length,
    distinctEvents: seen.size,
    duplicates,
    requests: fake.requests.length,
  }
  process.stdout.write(`${JSON.stringify(stats)}\n`)
})
process.stdin.on('end', () => process.exit(0))
