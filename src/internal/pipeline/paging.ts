import type { WithResponse } from '../../core/api-promise.js'
import type { RequestOptions } from '../../core/options.js'
import { Page, type PageBody, PagePromise } from '../../core/pagination.js'
import type { Operation } from './operation.js'
import type { RequestCore } from './request-core.js'

/**
 * A paged read through the one pipeline: each page is an ordinary request of `operation`, its query
 * the caller's with `page` set. The first request sends the query as the caller wrote it; each later
 * one, the page number one past the page before it.
 */
export function requestPage<Item>(
  core: RequestCore,
  operation: Operation<undefined, PageBody<Item>>,
  query: Readonly<{ page?: unknown }> | undefined,
  options: RequestOptions | undefined,
): PagePromise<Item> {
  // A copy: a caller that reuses its object for another list does not change this one's later pages.
  const base = query === undefined ? undefined : { ...query }
  const fetch = (page: number, sent: unknown): PagePromise<Item> =>
    new PagePromise(
      core
        .execute(operation, { query: sent }, options)
        .then(
          ({ data, response }): WithResponse<Page<Item>> => ({ data: new Page(data, page, next), response }),
        ),
    )
  const next = (page: number) => fetch(page, { ...base, page })
  // The query was checked by the first request before any page is made, so `page` is a number here.
  return fetch(typeof base?.page === 'number' ? base.page : 0, base)
}
