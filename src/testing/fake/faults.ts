import type { FakeFault, FakeRandomFaults } from './types.js'

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

/** A fault drawn with the probabilities of the `faults` option, or none. */
export function randomFault(rates: FakeRandomFaults | undefined): FakeFault | undefined {
  if (rates === undefined) return undefined
  const draw = Math.random()
  const status503 = rates.status503 ?? 0
  if (draw < status503) return { status: 503 }
  if (draw < status503 + (rates.dropAfterApply ?? 0)) return { dropConnection: true, afterApply: true }
  return undefined
}
