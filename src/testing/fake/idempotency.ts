import type { Reply } from './http.js'

/** The server's limit on `idempotency-key`; a longer key is a 400. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255
/** How long the server remembers a completed response. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

type Entry =
  | { state: 'running'; fingerprint: string }
  | { state: 'done'; fingerprint: string; reply: Reply; failed: boolean; storedAt: number }

export type Decision =
  | { kind: 'proceed' }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' }
  | { kind: 'replay'; reply: Reply; failed: boolean }

/** Where the server's 409 and 422 answers point, in their `Link` header. */
export const IDEMPOTENCY_DOCS_LINK = 'https://docs.novu.co/additional-resources/idempotency'

/**
 * Remembers responses by `idempotency-key`, as the server does: per key alone (not per route), with
 * the body compared as the bytes of its JSON. So the same fields in another order are another body
 * (422), while the same body under the same key on another route replays the first answer. Every
 * answer of the route is kept for the key's lifetime, errors included (a 4xx, a 500, a 503 of the
 * handler): the replay of a success is that success, the replay of an error a 503.
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>()

  begin(key: string, fingerprint: string): Decision {
    const entry = this.#entries.get(key)
    if (entry?.state === 'done' && Date.now() - entry.storedAt >= IDEMPOTENCY_TTL_MS)
      this.#entries.delete(key)
    else if (entry?.state === 'running') return { kind: 'in-flight' }
    else if (entry?.state === 'done') {
      if (entry.fingerprint !== fingerprint) return { kind: 'mismatch' }
      return { kind: 'replay', reply: entry.reply, failed: entry.failed }
    }
    this.#entries.set(key, { state: 'running', fingerprint })
    return { kind: 'proceed' }
  }

  /** Remembers the route's answer; `failed` for an error, which the server replays as a 503. */
  complete(key: string, fingerprint: string, reply: Reply, failed: boolean): void {
    this.#entries.set(key, {
      state: 'done',
      fingerprint,
      reply: structuredClone(reply),
      failed,
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

/** The body as the server hashes it: its parsed JSON serialised again; no body reads as `{}`. */
export function fingerprint(body: unknown): string {
  return JSON.stringify(body ?? {})
}
