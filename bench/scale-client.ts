// The client side of the scale figures that need a process of their own: the memory figure (RSS
// must be the client's alone) and the crash figure (the process is killed part-way).
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'
import { NotificationClient } from '../src/index.js'
import { API_KEY } from './fixtures.js'
import {
  type MemoryReport,
  type MemorySample,
  type OutcomeLine,
  type ScaleClientConfig,
  scaleEvent,
} from './scale-protocol.js'

const config = JSON.parse(process.argv[2] ?? '{}') as ScaleClientConfig
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {})

function sample(events: number): MemorySample {
  // Two: the first may leave objects that only a second finds unreachable (weak references).
  collect()
  collect()
  const { rss, heapUsed } = process.memoryUsage()
  const heap = getHeapStatistics()
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
  const mb = (bytes: number) => bytes / 2 ** 20
  return {
    events,
    rssMb: mb(rss),
    heapUsedMb: mb(heapUsed),
    newSpaceMb: mb(newSpace?.physical_space_size ?? 0),
    outsideHeapMb: mb(rss - heap.total_physical_size),
  }
}

async function* generate(count: number) {
  for (let i = 0; i < count; i++) yield scaleEvent(i)
}

const client = new NotificationClient({
  apiKey: API_KEY,
  baseUrl: `http://127.0.0.1:${config.port}`,
  logLevel: 'off',
  ...(config.task === 'memory' ? { rateLimit: 'off' as const } : {}),
})

if (config.task === 'memory') {
  const baseline = sample(0)
  const started = performance.now()
  const samples: MemorySample[] = []
  let failedChunks = 0
  let next = config.sampleEvery
  for await (const outcome of client.events.triggerStream(generate(config.events), {
    concurrency: config.concurrency,
  })) {
    if (outcome.error) failedChunks++
    const sent = outcome.offset + outcome.count
    if (sent >= next) {
      next += config.sampleEvery
      samples.push(sample(sent))
    }
  }
  const report: MemoryReport = {
    baseline,
    samples,
    failedChunks,
    // Collections included: about 20 ms for each sample.
    seconds: (performance.now() - started) / 1000,
  }
  process.stdout.write(`${JSON.stringify(report)}\n`)
} else {
  for await (const outcome of client.events.triggerStream(generate(config.events), {
    concurrency: 4,
    idempotencyKey: config.idempotencyKey,
    startAtChunk: config.startAtChunk,
  })) {
    const line: OutcomeLine = { chunkIndex: outcome.chunkIndex, applied: outcome.error === undefined }
    process.stdout.write(`${JSON.stringify(line)}\n`)
  }
}
await client.close()
