import type { FakeFaultTarget, FakeRequestRecord } from './types.js'

const TARGET_KEYS = ['method', 'path', 'idempotencyKey', 'when'] as const
const FAULT_KEYS = new Set<string>([
  ...TARGET_KEYS,
  'status',
  'times',
  'body',
  'headers',
  'dropConnection',
  'afterApply',
  'fromHandler',
])

/**
 * Refuses what would silently arm a fault for every request instead of the one meant: unknown keys
 * (`pathname`, `Method`: a plain-JavaScript typo) and targets of the wrong type.
 */
export function checkFaultTarget(fault: object): void {
  const unknown = Object.keys(fault).filter((key) => !FAULT_KEYS.has(key))
  if (unknown.length > 0) {
    throw new TypeError(
      `failNext: unknown option ${unknown.map((k) => `\`${k}\``).join(', ')}; known: ${[...FAULT_KEYS].join(', ')}`,
    )
  }
  const target = fault as FakeFaultTarget
  if (target.method !== undefined && (typeof target.method !== 'string' || target.method === '')) {
    throw new TypeError('failNext: method must be a non-empty string such as "POST"')
  }
  for (const key of ['path', 'idempotencyKey'] as const) {
    const value = target[key]
    if (value !== undefined && typeof value !== 'string' && !(value instanceof RegExp)) {
      throw new TypeError(`failNext: ${key} must be a string or a RegExp`)
    }
  }
  if (typeof target.path === 'string' && !target.path.startsWith('/')) {
    throw new TypeError(
      `failNext: path must be a URL path starting with "/", such as "/v1/events/trigger" (got "${target.path}")`,
    )
  }
  if (target.when !== undefined && typeof target.when !== 'function') {
    throw new TypeError('failNext: when must be a function of the request')
  }
}

/** Whether `request` is one the fault is for. */
export function faultTargets(target: FakeFaultTarget, request: FakeRequestRecord): boolean {
  if (target.method !== undefined && target.method.toUpperCase() !== request.method) return false
  if (!matches(target.path, request.path)) return false
  if (!matches(target.idempotencyKey, request.headers['idempotency-key'])) return false
  if (target.when === undefined) return true
  try {
    return target.when(structuredClone(request))
  } catch (error) {
    // Named, so the test's own bug is not mistaken for the connection error the client reports.
    throw new Error(`failNext: the when() function threw on ${request.method} ${request.path}`, {
      cause: error,
    })
  }
}

function matches(expected: string | RegExp | undefined, actual: string | undefined): boolean {
  if (expected === undefined) return true
  if (actual === undefined) return false
  if (typeof expected === 'string') return expected === actual
  // A global or sticky RegExp keeps `lastIndex` between calls; a fresh copy tests the same way each time.
  return new RegExp(expected.source, expected.flags).test(actual)
}
