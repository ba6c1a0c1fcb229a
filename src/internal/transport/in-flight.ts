import type { Transport } from './types.js'

/**
 * The attempts on the wire of every client that shares one connection, so that `close()` waits for
 * them whatever carries them: undici's `close()` would wait for its own requests, but a `fetch`, or
 * a dispatcher the user passed in (which the SDK never closes), has nothing to wait on.
 * @internal
 */
export class InFlight {
  readonly #sending = new Set<Promise<unknown>>()

  /** `transport`, with each of its attempts counted until it settles. */
  track(transport: Transport): Transport {
    return {
      send: (request, timeoutMs, signal) => {
        const sending = transport.send(request, timeoutMs, signal)
        this.#sending.add(sending)
        const settled = () => this.#sending.delete(sending)
        sending.then(settled, settled)
        return sending
      },
    }
  }

  /** Resolves once every attempt sent so far has ended, with its response or its error. */
  async settled(): Promise<void> {
    while (this.#sending.size > 0) await Promise.allSettled([...this.#sending])
  }
}
