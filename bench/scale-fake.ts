// The fake service in a process of its own for `npm run bench:scale`: it outlives a client killed
// with SIGKILL, and its work is not charged to the client. Prints `{ "port" }`, then answers each
// line on stdin: `stats` with what it applied and every answer it gave by status; `applied` with when
// it applied each event; `down` and `up` with when it began and stopped answering 503 to everything
// (`SwitchedAt`). Exits when stdin ends.
import { createInterface } from 'node:readline'
import { createFakeService, type FakeServiceOptions, serveFetchHandler } from '../src/testing/index.js'
import { type AppliedAt, type FakeStats, SCALE_WORKFLOW, type SwitchedAt } from './scale-protocol.js'

const options = JSON.parse(process.argv[2] ?? '{}') as FakeServiceOptions
const fake = createFakeService({
  ...options,
  workflows: [{ identifier: SCALE_WORKFLOW, steps: [{ type: 'email' }] }],
})

/** While true, the outage: every request is answered 503, as a gateway in front of a failed deploy does. */
let down = false
const outageBody = { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable' }
// Counted at the front, not from `fake.requests`: the fleets' 429s and the outage's 503s are answers
// the service gives without applying anything, and the figures are about how many there were.
const statuses: Record<string, number> = {}

const server = await serveFetchHandler(async (request) => {
  const response = down ? Response.json(outageBody, { status: 503 }) : await fake.handle(request)
  const status = response.type === 'error' ? 'dropped' : String(response.status)
  statuses[status] = (statuses[status] ?? 0) + 1
  return response
})
process.stdout.write(`${JSON.stringify({ port: Number(new URL(server.baseUrl).port) })}\n`)

function stats(): FakeStats {
  const { length } = fake.notifications
  const distinctEvents = firstApplied().size
  return {
    notifications: length,
    distinctEvents,
    duplicates: length - distinctEvents,
    requests: fake.requests.length,
    statuses: { ...statuses },
  }
}

/** When the fake first applied each event, by its index: a second apply of one is a duplicate. */
function firstApplied(): Map<number, number> {
  const first = new Map<number, number>()
  for (const notification of fake.notifications) {
    const i = Number(notification.payload.i)
    if (!first.has(i)) first.set(i, Date.parse(notification.createdAt))
  }
  return first
}

function switchTo(outage: boolean): SwitchedAt {
  down = outage
  return { at: Date.now() }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = line.trim()
  const answer =
    command === 'stats'
      ? stats()
      : command === 'applied'
        ? ([...firstApplied()] satisfies AppliedAt)
        : command === 'down'
          ? switchTo(true)
          : command === 'up'
            ? switchTo(false)
            : undefined
  if (answer !== undefined) process.stdout.write(`${JSON.stringify(answer)}\n`)
})
process.stdin.on('end', () => process.exit(0))
