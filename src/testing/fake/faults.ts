import type { FakeFault } from './types.js'

/** Faults armed by `failNext`, used up in order, one per request. */
export class FaultQueue {
  readonly #queue: { fault: FakeFault; remaining: number }[] = []

  push(fault: FakeFault): void {
    const times = fault.times ?? 1
    if (!Number.isInteger(times) || times < 1)
      throw new RangeError('failNext: times must be a positive integer')
    this.#queue.push({ fault, remaining: times })
  }

  take(): FakeFault | undefined {
    const head = this.#queue[0]
    if (!head) return undefined
    head.remaining -= 1
    if (head.remaining === 0) this.#queue.shift()
    return head.fault
  }

  clear(): void {
    this.#queue.length = 0
  }
}
