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
