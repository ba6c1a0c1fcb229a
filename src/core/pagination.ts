import { ApiPromise } from './api-promise.js'

/** What a page needs to fetch the one after it: the page number to ask for. @internal */
export type FetchPage<Item> = (page: number) => PagePromise<Item>

/** The fields every paged answer of the service has; any other field it sends is kept as received. */
export interface PageBody<Item> {
  data: Item[]
  hasMore: boolean
  page: number
  pageSize: number
}

/**
 * One page of a list, and the way to the pages after it. The service pages by number from 0, and
 * says `hasMore` when the page came back full; `for await` over a page yields its items and then
 * those of every later page, fetched one request at a time as the loop reaches them.
 *
 * @example
 * ```ts
 * const page = await client.notifications.list({ subscriberIds: ['user-1'], limit: 50 })
 * console.log(page.data.length, page.hasMore)
 * for await (const notification of page) console.log(notification.transactionId)
 * ```
 */
export class Page<Item> implements AsyncIterable<Item> {
  /** The items of this page, as received. */
  readonly data: Item[]
  /** Whether the server says a later page may have items (it says so of every full page). */
  readonly hasMore: boolean
  /** The number of this page, from 0, as the server echoes it. */
  readonly page: number
  /** The page size the server used (`limit`). */
  readonly pageSize: number
  /** The answer as received, unknown fields kept. */
  readonly body: PageBody<Item>
  readonly #requested: number
  readonly #fetch: FetchPage<Item>

  /** @internal */
  constructor(body: PageBody<Item>, requested: number, fetch: FetchPage<Item>) {
    this.body = body
    // Read leniently: a body missing a field reads as a last, empty page rather than failing.
    this.data = Array.isArray(body.data) ? body.data : []
    this.hasMore = body.hasMore === true
    this.page = typeof body.page === 'number' ? body.page : requested
    this.pageSize = typeof body.pageSize === 'number' ? body.pageSize : this.data.length
    this.#requested = requested
    this.#fetch = fetch
  }

  /**
   * Whether there is a page to fetch after this one. An empty page ends the list even if the server
   * says `hasMore`, so a loop over the pages always ends.
   *
   * @example
   * ```ts
   * let page = await client.notifications.list({ transactionId })
   * while (page.hasNextPage()) page = await page.getNextPage()
   * ```
   */
  hasNextPage(): boolean {
    return this.hasMore && this.data.length > 0
  }

  /**
   * Fetches the next page: the same filters, limit and request options, the page number one higher.
   * Throws a `RangeError` when `hasNextPage()` is false.
   *
   * @example
   * ```ts
   * const first = await client.notifications.list({ limit: 50 })
   * if (first.hasNextPage()) {
   *   const second = await first.getNextPage()
   *   console.log(second.page) // 1
   * }
   * ```
   */
  getNextPage(): PagePromise<Item> {
    if (!this.hasNextPage()) throw new RangeError('This is the last page: check hasNextPage() first')
    return this.#fetch(this.#requested + 1)
  }

  /**
   * This page, then each later page, fetched as the loop reaches it.
   *
   * @example
   * ```ts
   * const first = await client.notifications.list({ channels: ['email'], limit: 50 })
   * for await (const page of first.iterPages()) console.log(page.page, page.data.length)
   * ```
   */
  async *iterPages(): AsyncGenerator<Page<Item>, void, undefined> {
    let page: Page<Item> = this
    yield page
    while (page.hasNextPage()) {
      page = await page.getNextPage()
      yield page
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data
  }
}

/**
 * What a list returns: await it for the first page (or call `withResponse()`), or loop over it with
 * `for await` for every item of every page.
 *
 * @example
 * ```ts
 * for await (const notification of client.notifications.list({ transactionId })) {
 *   console.log(notification._id, notification.channels)
 * }
 * ```
 */
export class PagePromise<Item> extends ApiPromise<Page<Item>> implements AsyncIterable<Item> {
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    yield* await this
  }

  override get [Symbol.toStringTag](): string {
    return 'PagePromise'
  }
}
