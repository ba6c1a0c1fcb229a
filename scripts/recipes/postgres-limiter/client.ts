// One instance of a scaled-out function for run.ts: its own process, its own pg pool and client,
// and the recipe's limiter over the PostgreSQL every instance shares. Says `ready` once connected and
// warmed up, waits for `go`, streams its share of the events, reports what it counted, and exits.
import { NotificationClient } from 'notifykit'
import { Pool } from 'pg'
import { postgresRateLimiter } from './limiter.js'
import {
  API_KEY,
  type ClientConfig,
  type ClientMessage,
  type ParentMessage,
  recipeEvent,
} from './protocol.js'

const config = JSON.parse(process.argv[2] ?? '{}') as ClientConfig
const go = new Promise<void>((resolve) => {
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'go') resolve()
  })
})

const pool = new Pool({ ...config.postgres, max: 4 })
const rateLimit = await postgresRateLimiter({
  pool,
  points: config.points,
  duration: config.duration,
  keyPrefix: config.keyPrefix,
})
const counts = { attempts: 0, status429: 0, retries: 0 }
const client = new NotificationClient({
  apiKey: API_KEY,
  baseUrl: config.baseUrl,
  rateLimit,
  logLevel: 'off',
  hooks: {
    onAttempt: ({ status }) => {
      counts.attempts++
      if (status === 429) counts.status429++
    },
    onRetry: () => {
      counts.retries++
    },
  },
})

function* events() {
  for (let i = config.first; i < config.first + config.events; i++) yield recipeEvent(i)
}

// Warm up off the bucket (a cancel is not a trigger): the connection, and the code paths a first call
// loads, so that the send measures the limiter rather than a cold start.
await client.events.cancel('warm-up')
Object.assign(counts, { attempts: 0, status429: 0, retries: 0 })
process.send?.({ type: 'ready' } satisfies ClientMessage)
await go
let chunks = 0
let failedChunks = 0
let firstError: string | undefined
for await (const outcome of client.events.triggerStream(events(), { concurrency: config.concurrency })) {
  chunks++
  if (outcome.error) {
    failedChunks++
    firstError ??= String(outcome.error)
  }
}
await client.close()
await pool.end()
const report: ClientMessage = { type: 'report', chunks, failedChunks, firstError, ...counts }
// Once the report is on its way, the channel closes and the process exits: nothing else is pending.
process.send?.(report, undefined, undefined, () => process.disconnect?.())
