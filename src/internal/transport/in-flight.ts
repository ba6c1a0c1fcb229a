import type { Transport } from './types.js'

/**
 * The attempts on the wire of every client that shares one connection, so that `close()` waits for
 * them whatever carries them: undici's `close()` would wait for its own requests, but a `fetch`, or
 * a dispatcher the user passed in (which the SDK never closes), has nothing to wait on. A count, not
 * a set of the attempts: it is kept on every attempt, and holds nothing of them.
 * @internal
 */
export class InFlight {
  #sending = 0
  #idle: { promise: Promise<void>; resolve: () => void } | undefined

  readonly #ended = (): void => {
    if (--this.#sending === 0 && this.#idle) {
      this.#idle.resolve()
      this.#idle = undefined
    }
  }

  /** `transport`, with each of its attempts counted until it settles. */
  track(transport: Transport): Transport {
    return {
      send: (request, timeoutMs, signal) => {
        const sending = transport.send(request, timeoutMs, signal)
        this.#sending++
        sending.then(this.#ended, this.#ended)
        return sending
      },
    }
  }

  /** Resolves once every attempt sent so far has ended, with its response or its error. */
  settled(): Promise<void> {
    if (this.#sending === 0) return Promise.resolve()
    if (!this.#idle) {
      let resolve: () => void = () => {}
      const promise = new Promise<void>((settle) => {
        resolve = settle
      })
      this.#idle = { promise, resolve }
    }
    return this.#idle.promise
  }
}
