export function median(values: readonly number[]): number {
  return percentile(values, 50)
}

/** Linear interpolation between the closest ranks; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = (p / 100) * (sorted.length - 1)
  const low = Math.floor(rank)
  const high = Math.ceil(rank)
  const lowValue = sorted[low] as number
  const highValue = sorted[high] as number
  return lowValue + (highValue - lowValue) * (rank - low)
}

/** Jain's fairness index over throughputs: 1 when all are equal, 1/n when one takes all. */
export function jainIndex(rates: readonly number[]): number {
  const total = rates.reduce((sum, rate) => sum + rate, 0)
  const squares = rates.reduce((sum, rate) => sum + rate * rate, 0)
  return total ** 2 / (rates.length * squares)
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}

/**
 * Orders of `count` items, one per round, in which every item comes right after every other item
 * equally often (a Williams design): `count` orders when `count` is even, twice as many when odd.
 * Rotating one order does not do this: B then always follows A, and a client that leaves work
 * behind it (a collector still sweeping, a server still busy) always burdens the same neighbour.
 */
export function balancedOrders(count: number): number[][] {
  const first: number[] = []
  for (let low = 0, high = count - 1; first.length < count; low++, high--) {
    first.push(low)
    if (first.length < count) first.push(high)
  }
  // 0, n-1, 1, n-2, ...: when n is even, the steps between its neighbours are all different modulo
  // n, so over its n shifts each ordered pair is adjacent once. When n is odd they are not, and the
  // shifts with their reversals make each ordered pair adjacent twice.
  const orders = Array.from({ length: count }, (_, shift) => first.map((item) => (item + shift) % count))
  return count % 2 === 0 ? orders : [...orders, ...orders.map((order) => [...order].reverse())]
}
