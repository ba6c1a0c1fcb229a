import { checkFaultTarget, faultTargets } from './fault-target.js'
import type { FakeFault, FakeRequestRecord } from './types.js'

/** Faults armed by `failNext`, used up in order, each by the requests it targets. */
export class FaultQueue {
  readonly #queue: { fault: FakeFault; remaining: number }[] = []

  push(fault: FakeFault): void {
    checkFaultTarget(fault)
    const times = fault.times ?? 1
    if (!Number.isInteger(times) || times < 1)
      throw new RangeError('failNext: times must be a positive integer')
    this.#queue.push({ fault: { ...fault }, remaining: times })
  }

  take(request: FakeRequestRecord): FakeFault | undefined {
    const index = this.#queue.findIndex((entry) => faultTargets(entry.fault, request))
    const entry = this.#queue[index]
    if (!entry) return undefined
    entry.remaining -= 1
    if (entry.remaining === 0) this.#queue.splice(index, 1)
    return entry.fault
  }

  clear(): void {
    this.#queue.length = 0
  }
}
