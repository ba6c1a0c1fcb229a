/** Tokens in a full budget. */
const CAPACITY = 20
/** What a successful attempt gives back. */
const REFILL_PER_SUCCESS = 0.25

/**
 * Bounds the retries of a client family (a client and those `withOptions` derives) on one API key
 * and origin, as gRPC's retry throttling and the AWS SDKs' retry quota do: each attempt that fails like an outage (a 5xx, a timeout, a connection
 * error) takes a token, each successful attempt gives a quarter of one back, and retries are made
 * only while more than half the tokens are left. The budget holds while the successes between two
 * failures give back more than a failure takes, and its half absorbs the runs of failures that come
 * now and then when they are rarer still: such a client keeps retrying. During an outage a client
 * soon stops retrying, so a fleet of clients does not multiply the load on a failing server, and
 * first attempts still go out, so calls succeed again as soon as the server does.
 * @internal
 */
export class RetryBudget {
  #tokens = CAPACITY

  /** An attempt failed like an outage. */
  failed(): void {
    this.#tokens = Math.max(0, this.#tokens - 1)
  }

  /** An attempt succeeded. */
  succeeded(): void {
    if (this.#tokens < CAPACITY) this.#tokens = Math.min(CAPACITY, this.#tokens + REFILL_PER_SUCCESS)
  }

  /** Whether a failed attempt may be retried now. */
  get allowsRetry(): boolean {
    return this.#tokens > CAPACITY / 2
  }
}
