import type { Reply } from './http.js'

/** The server's limit on `idempotency-key`; a longer key is a 400. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255
/** How long the server remembers a completed response. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

type Entry =
  | { state: 'running'; fingerprint: string }
  | { state: 'done'; fingerprint: string; reply: Reply; storedAt: number }

export type Decision =
  | { kind: 'proceed' }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' }
  | { kind: 'replay'; reply: Reply }

/**
 * Remembers responses by `idempotency-key`, as the server does. The fingerprint covers method, path
 * and the canonical JSON of the body, so key order or whitespace never makes two equal bodies differ,
 * while reusing a key on another operation counts as another body (422).
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>()

  begin(key: string, fingerprint: string): Decision {
    const entry = this.#entries.get(key)
    if (entry?.state === 'done' && Date.now() - entry.storedAt >= IDEMPOTENCY_TTL_MS)
      this.#entries.delete(key)
    else if (entry?.state === 'running') return { kind: 'in-flight' }
    else if (entry?.state === 'done') {
      return entry.fingerprint === fingerprint ? { kind: 'replay', reply: entry.reply } : { kind: 'mismatch' }
    }
    this.#entries.set(key, { state: 'running', fingerprint })
    return { kind: 'proceed' }
  }

  complete(key: string, fingerprint: string, reply: Reply): void {
    this.#entries.set(key, {
      state: 'done',
      fingerprint,
      reply: structuredClone(reply),
      storedAt: Date.now(),
    })
  }

  /** Forgets a key whose request never produced an answer, so a retry can run it. */
  abandon(key: string): void {
    if (this.#entries.get(key)?.state === 'running') this.#entries.delete(key)
  }

  clear(): void {
    this.#entries.clear()
  }
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return `${method} ${path} ${body === undefined ? '' : canonicalJson(body)}`
}

/** JSON with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v
    const record = v as Record<string, unknown>
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    )
  })
}
