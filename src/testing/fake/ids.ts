/**
 * Makes 24-hex-digit identifiers shaped like the real server's ObjectIds. A counter rather than
 * randomness keeps them unique and ordered within one fake, which makes failing tests easier to read.
 */
export class IdFactory {
  #counter = 0

  next(): string {
    this.#counter += 1
    const seconds = Math.floor(Date.now() / 1000)
      .toString(16)
      .padStart(8, '0')
      .slice(-8)
    return seconds + this.#counter.toString(16).padStart(16, '0')
  }
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz'

/**
 * The server's generated identifiers: the time in seconds as 8 hex digits, then 12 random
 * characters of `0-9a-z`, after a prefix (`txn_` for a transaction, `req_` for a request).
 */
export function prefixedId(prefix: string, nowMs: number): string {
  const seconds = Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8)
  const random = globalThis.crypto.getRandomValues(new Uint8Array(12))
  let tail = ''
  for (const byte of random) tail += BASE36[byte % BASE36.length]
  return `${prefix}${seconds}${tail}`
}
