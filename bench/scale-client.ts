// The client side of the scale figures that need a process of their own: the memory figure (RSS
// must be the client's alone) and the crash figure (the process is killed part-way).
import { NotificationClient } from '../src/index.js'
import { API_KEY } from './fixtures.js'
import { type MemoryReport, type OutcomeLine, type ScaleClientConfig, scaleEvent } from './scale-protocol.js'

const config = JSON.parse(process.argv[2] ?? '{}') as ScaleClientConfig
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {})

function memoryMb(): { rssMb: number; heapUsedMb: number } {
  collect()
  const { rss, heapUsed } = process.memoryUsage()
  return { rssMb: rss / 2 ** 20, heapUsedMb: heapUsed / 2 ** 20 }
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
  const baseline = memoryMb()
  const started = performance.now()
  const checkpoints: MemoryReport['checkpoints'] = []
  const pending = [...config.checkpoints]
  let failedChunks = 0
  for await (const outcome of client.events.triggerStream(generate(config.events), {
    concurrency: config.concurrency,
  })) {
    if (outcome.error) failedChunks++
    const sent = outcome.offset + outcome.count
    if (pending[0] !== undefined && sent >= pending[0]) {
      pending.shift()
      const now = memoryMb()
      checkpoints.push({ events: sent, ...now, growthMb: now.rssMb - baseline.rssMb })
    }
  }
  const report: MemoryReport = {
    baselineRssMb: baseline.rssMb,
    baselineHeapUsedMb: baseline.heapUsedMb,
    checkpoints,
    failedChunks,
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
