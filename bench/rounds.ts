// The interleaved rounds of run.ts and ab.ts: every client in its own process, one segment at a time.
import { type ServingWorker, startServingWorker } from './harness.js'
import type { Operation, RoundsConfig, RoundsResult, Segment } from './protocol.js'
import { balancedOrders, percentile } from './stats.js'

/**
 * Each client (raw undici and the notifykit builds) measured in turn, scenario by scenario, for
 * `rounds` rounds, in balanced orders: each client runs right after each other one equally often,
 * and a slow stretch of the shared machine falls on all of them alike.
 */
export async function runRounds(script: string, config: RoundsConfig): Promise<RoundsResult> {
  const workers: ServingWorker[] = []
  try {
    for (const client of config.clients)
      workers.push(await startServingWorker(script, { mode: 'serve', port: config.port, client }))
    // Every worker, every scenario, so that each JIT has seen all of its code before round 1.
    for (const { operation, concurrency } of config.scenarios) {
      for (const worker of workers) {
        await worker.measure({ operation, concurrency, durationMs: config.warmupMs, recordLatency: false })
      }
    }
    const segments: Segment[] = []
    const latencies = new Map<
      string,
      { client: string; operation: Operation; concurrency: number; ms: number[] }
    >()
    const orders = balancedOrders(workers.length)
    for (let round = 1; round <= config.rounds; round++) {
      const order = (orders[(round - 1) % orders.length] as number[]).map((i) => workers[i] as ServingWorker)
      for (const { operation, concurrency } of config.scenarios) {
        for (const worker of order) {
          const recordLatency = concurrency === 1
          const measured = await worker.measure({
            operation,
            concurrency,
            durationMs: config.segmentMs,
            recordLatency,
          })
          segments.push({
            round,
            client: worker.ready.client,
            operation,
            concurrency,
            calls: measured.calls,
            elapsedMs: measured.elapsedMs,
            callsPerSecond: (measured.calls * 1000) / measured.elapsedMs,
            cpuUsPerCall: measured.cpuUs / measured.calls,
          })
          if (measured.latenciesMs) {
            const client = worker.ready.client
            const key = `${client} ${operation} ${concurrency}`
            const pool = latencies.get(key) ?? { client, operation, concurrency, ms: [] }
            latencies.set(key, pool)
            for (const ms of measured.latenciesMs) pool.ms.push(ms)
          }
        }
      }
    }
    return {
      segments,
      latencies: [...latencies.values()].map(({ ms, ...scenario }) => ({
        ...scenario,
        calls: ms.length,
        p50Ms: percentile(ms, 50),
        p99Ms: percentile(ms, 99),
      })),
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()))
  }
}
