import { inspect } from 'node:util'
import { expect } from 'vitest'

/** A key no real output contains by chance: any occurrence of it is a leak. */
export const CANARY_KEY = 'sk_live_SECRET_canary_123'

/** Every way a value can end up as text in a log store, a crash report or an error tracker. */
export function renderings(value: unknown): string[] {
  const texts = [
    inspect(value, { depth: 10 }),
    inspect(value, { depth: 10, showHidden: true, getters: true }),
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  ]
  try {
    texts.push(String(JSON.stringify(value)))
  } catch {
    // Circular values cannot be JSON: inspect above already covers them.
  }
  if (value instanceof Error) texts.push(String(value), value.message, String(value.stack))
  return texts
}

/**
 * Asserts that no text carries `key` or an Authorization value. An echoed header may leave its
 * scheme behind, never what follows it. An error may name the header ("authorization cannot be set
 * here"); a log line has no reason to, so `headerName: false` refuses the name too.
 */
export function expectNoSecret(
  texts: readonly string[],
  key: string,
  { headerName }: { headerName: boolean },
) {
  for (const text of texts) {
    expect(text).not.toContain(key)
    // `\b`: a stack frame such as `checkApiKey (headers.ts:73)` is not a header value.
    expect(text).not.toMatch(/\bApiKey (?!\[redacted\])/)
    if (!headerName) expect(text).not.toMatch(/authorization/i)
  }
}
