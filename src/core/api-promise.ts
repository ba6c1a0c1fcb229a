import type { ResponseHeaders } from './errors.js'

/** What `withResponse()` tells about the HTTP exchange behind a result. */
export interface ResponseInfo {
  /** Status of the final attempt. */
  status: number
  /** Headers of the final attempt, as received. */
  headers: ResponseHeaders
  /** The server's request id (`x-request-id` or `request-id`), to quote to support. */
  requestId: string | undefined
  /** The idempotency key sent (POST and PATCH), the same on every attempt. */
  idempotencyKey: string | undefined
  /** Attempts made: 1 when the first one succeeded. */
  attempts: number
}

/**
 * A rejection handler, checked as a Promise's is: it may declare the error type it expects
 * (`(error: Error) => …`), since what a promise rejects with is never typed. Written as a method so
 * that TypeScript compares its parameter both ways, which a Promise gets from its `any`.
 */
type RejectionHandler<Rejected> = {
  handle(reason: unknown): Rejected | PromiseLike<Rejected>
}['handle']

export interface WithResponse<T> {
  data: T
  response: ResponseInfo
}

/**
 * What every operation returns: await it for the data, or call `withResponse()` for the data and
 * the response's status, headers, request id, idempotency key and attempt count.
 *
 * @example
 * ```ts
 * const result = await client.events.trigger({ name: 'welcome', to: 'user-1' })
 * const { data, response } = await client.events.trigger(event).withResponse()
 * console.log(response.requestId, response.attempts)
 * ```
 */
export class ApiPromise<T> implements PromiseLike<T> {
  readonly #outcome: Promise<WithResponse<T>>
  #data: Promise<T> | undefined

  /** @internal */
  constructor(outcome: Promise<WithResponse<T>>) {
    this.#outcome = outcome
  }

  /**
   * The data together with what the response said about it.
   * @example
   * ```ts
   * const { data, response } = await client.notifications.get(id).withResponse()
   * console.log(response.status, response.requestId, response.attempts)
   * ```
   */
  withResponse(): Promise<WithResponse<T>> {
    return this.#outcome
  }

  // biome-ignore lint/suspicious/noThenProperty: an ApiPromise is awaitable by design
  then<Fulfilled = T, Rejected = never>(
    onFulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onRejected?: RejectionHandler<Rejected> | null,
  ): Promise<Fulfilled | Rejected> {
    // `await` lands here once per call: straight from the outcome, without the intermediate
    // promise of the data alone (one promise and one microtask fewer per call).
    if (typeof onFulfilled !== 'function') return this.#dataPromise().then(onFulfilled, onRejected)
    return this.#outcome.then((outcome) => onFulfilled(outcome.data), onRejected)
  }

  catch<Rejected = never>(onRejected?: RejectionHandler<Rejected> | null): Promise<T | Rejected> {
    return this.#dataPromise().catch(onRejected)
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#dataPromise().finally(onFinally)
  }

  get [Symbol.toStringTag](): string {
    return 'ApiPromise'
  }

  #dataPromise(): Promise<T> {
    this.#data ??= this.#outcome.then(dataOf)
    return this.#data
  }
}

function dataOf<T>(outcome: WithResponse<T>): T {
  return outcome.data
}
