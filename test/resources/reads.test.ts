import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { NotFoundError, Page, PagePromise, RequestValidationError } from '../../src/index.js'
import { json, mswClient, onlyRequest, rejectionOf } from '../helpers/wire.js'

/** A page of `n` notifications numbered from `first`, full when `n` equals `pageSize`. */
function pageBody(page: number, n: number, pageSize = 2, first = page * pageSize) {
  const data = Array.from({ length: n }, (_, i) => ({
    _id: `n-${first + i}`,
    _environmentId: 'env',
    _organizationId: 'org',
    _subscriberId: 'sub',
    transactionId: `tx-${first + i}`,
  }))
  return { data: { page, pageSize, hasMore: n === pageSize, data, futurePageField: 'kept' } }
}

/** A server of `total` notifications in pages of `limit` (2 unless the query says). */
function pagedServer(total: number) {
  return http.get('*/v1/notifications', ({ request }) => {
    const url = new URL(request.url)
    const page = Number(url.searchParams.get('page') ?? 0)
    const limit = Number(url.searchParams.get('limit') ?? 2)
    const n = Math.max(0, Math.min(limit, total - page * limit))
    return json(pageBody(page, n, limit))
  })
}

describe('notifications.list on the wire', () => {
  it('sends GET /v1/notifications with each filter as the server reads it: lists as repeated keys, values encoded', async () => {
    const { client, seen } = mswClient([http.get('*/v1/notifications', () => json(pageBody(0, 0)))])
    await client.notifications.list({
      transactionId: 'tx 1&x=y',
      subscriberIds: ['alice', 'bob'],
      channels: 'email',
      templates: ['66f1c0ffee66f1c0ffee66f1'],
      severity: ['high', 'none'],
      contextKeys: [],
      after: '2026-01-01T00:00:00Z',
      page: 0,
      limit: 50,
    })
    const request = onlyRequest(seen)
    expect(request.method).toBe('GET')
    expect(request.pathname).toBe('/v1/notifications')
    expect(request.search).toBe(
      '?transactionId=tx%201%26x%3Dy&subscriberIds=alice&subscriberIds=bob&channels=email' +
        '&templates=66f1c0ffee66f1c0ffee66f1&severity=high&severity=none&contextKeys=' +
        '&after=2026-01-01T00%3A00%3A00Z&page=0&limit=50',
    )
    expect(request.headers['idempotency-key']).toBeUndefined()
    expect(request.text).toBe('')
  })

  it('sends no query string without filters', async () => {
    const { client, seen } = mswClient([http.get('*/v1/notifications', () => json(pageBody(0, 0)))])
    await client.notifications.list()
    expect(onlyRequest(seen).url).toBe('https://api.test/v1/notifications')
  })

  it('resolves to the first page: its items and fields as received, unknown ones kept in body', async () => {
    const { client } = mswClient([pagedServer(3)])
    const page = await client.notifications.list()
    expect(page).toBeInstanceOf(Page)
    expect(page.data.map((n) => n._id)).toEqual(['n-0', 'n-1'])
    expect([page.page, page.pageSize, page.hasMore]).toEqual([0, 2, true])
    expect(page.body).toMatchObject({ futurePageField: 'kept' })
    expect(page.hasNextPage()).toBe(true)
  })

  it('iterates every notification of every page with for await, one request per page, ending on a short page', async () => {
    const { client, seen } = mswClient([pagedServer(5)])
    const ids: string[] = []
    for await (const notification of client.notifications.list({ subscriberIds: 'sub' }))
      ids.push(notification._id ?? '')
    expect(ids).toEqual(['n-0', 'n-1', 'n-2', 'n-3', 'n-4'])
    expect(seen.map((r) => r.search)).toEqual([
      '?subscriberIds=sub',
      '?subscriberIds=sub&page=1',
      '?subscriberIds=sub&page=2',
    ])
  })

  it('stops at the empty page after a full last page, as the server says hasMore of every full page', async () => {
    const { client, seen } = mswClient([pagedServer(4)])
    const ids: string[] = []
    for await (const notification of client.notifications.list()) ids.push(notification._id ?? '')
    expect(ids).toEqual(['n-0', 'n-1', 'n-2', 'n-3'])
    expect(seen).toHaveLength(3)
  })

  it('never loops on a server that says hasMore of an empty page', async () => {
    const { client, seen } = mswClient([
      http.get('*/v1/notifications', () => json({ data: { page: 0, pageSize: 2, hasMore: true, data: [] } })),
    ])
    const page = await client.notifications.list()
    expect(page.hasNextPage()).toBe(false)
    expect(() => page.getNextPage()).toThrow(RangeError)
    for await (const _ of page) throw new Error('no item expected')
    expect(seen).toHaveLength(1)
  })

  it('starts from the page asked for and keeps the limit and filters on the pages after it', async () => {
    const { client, seen } = mswClient([pagedServer(9)])
    const first = await client.notifications.list({ page: 1, limit: 3, channels: ['sms'] })
    const second = await first.getNextPage()
    expect(second.data.map((n) => n._id)).toEqual(['n-6', 'n-7', 'n-8'])
    expect(seen.map((r) => r.search)).toEqual([
      '?page=1&limit=3&channels=sms',
      '?page=2&limit=3&channels=sms',
    ])
    const pages: number[] = []
    for await (const page of first.iterPages()) pages.push(page.page)
    expect(pages).toEqual([1, 2, 3])
  })

  it('fetches later pages with the filters as they were when list was called', async () => {
    const { client, seen } = mswClient([pagedServer(4)])
    const params = { transactionId: 'a' }
    const first = await client.notifications.list(params)
    params.transactionId = 'b'
    await first.getNextPage()
    expect(seen.map((r) => r.search)).toEqual(['?transactionId=a', '?transactionId=a&page=1'])
  })

  it('returns a PagePromise: withResponse() gives the page and the response', async () => {
    const { client } = mswClient([
      http.get('*/v1/notifications', () => json(pageBody(0, 1), 200, { 'x-request-id': 'req-1' })),
    ])
    const listed = client.notifications.list()
    expect(listed).toBeInstanceOf(PagePromise)
    const { data, response } = await listed.withResponse()
    expect(data.data).toHaveLength(1)
    expect(response.requestId).toBe('req-1')
  })

  it.each([
    [{ limit: 51 }, 'limit'],
    [{ limit: 0 }, 'limit'],
    [{ page: -1 }, 'page'],
    [{ page: 1.5 }, 'page'],
    [{ transactionId: '' }, 'transactionId'],
    [{ transactionId: undefined }, 'transactionId'],
    [{ channels: ['fax'] }, 'channels'],
    [{ templates: ['welcome'] }, 'templates'],
    [{ severity: 'urgent' }, 'severity'],
    [{ after: 'yesterday' }, 'after'],
    [{ after: '2026-02-01', before: '2026-01-01' }, 'after'],
  ])('refuses %j before sending, naming %s', async (params, field) => {
    const { client, seen } = mswClient([http.get('*/v1/notifications', () => json(pageBody(0, 0)))])
    const error = await rejectionOf(client.notifications.list(params as never))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues.map((issue) => issue.path[0])).toContain(field)
    expect(seen).toHaveLength(0)
  })

  it('refuses an unknown filter with a "did you mean", before sending', async () => {
    const { client, seen } = mswClient([http.get('*/v1/notifications', () => json(pageBody(0, 0)))])
    const error = await rejectionOf(client.notifications.list({ transactionIds: 'tx' } as never))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as Error).message).toMatch(/"transactionIds"; did you mean `transactionId`/)
    expect(seen).toHaveLength(0)
  })

  it('adds extraFields to the query, and refuses one that names a typed filter', async () => {
    const { client, seen } = mswClient([http.get('*/v1/notifications', () => json(pageBody(0, 0)))])
    await client.notifications.list({ limit: 5 }, { extraFields: { newFilter: ['a', 'b'] } })
    expect(onlyRequest(seen).search).toBe('?limit=5&newFilter=a&newFilter=b')
    const error = await rejectionOf(client.notifications.list({}, { extraFields: { limit: 7 } }))
    expect(error).toBeInstanceOf(RequestValidationError)
  })
})

describe('subscribers.preferences.get on the wire', () => {
  const preferences = { global: { enabled: true, channels: { email: true } }, workflows: [], extra: 1 }

  it('sends GET /v2/subscribers/{id}/preferences, the id encoded, the query as given, no idempotency key', async () => {
    const { client, seen } = mswClient([
      http.get('*/v2/subscribers/:id/preferences', () => json({ data: preferences })),
    ])
    const result = await client.subscribers.preferences.get('user/1', {
      criticality: 'all',
      contextKeys: ['tenant:acme'],
    })
    expect(result).toEqual(preferences)
    const request = onlyRequest(seen)
    expect(request.method).toBe('GET')
    expect(request.pathname).toBe('/v2/subscribers/user%2F1/preferences')
    expect(request.search).toBe('?criticality=all&contextKeys=tenant%3Aacme')
    expect(request.headers['idempotency-key']).toBeUndefined()
  })

  it('sends no query without params', async () => {
    const { client, seen } = mswClient([
      http.get('*/v2/subscribers/:id/preferences', () => json({ data: preferences })),
    ])
    await client.subscribers.preferences.get('alice')
    expect(onlyRequest(seen).search).toBe('')
  })

  it('refuses an unknown criticality or a typo before sending', async () => {
    const { client, seen } = mswClient([
      http.get('*/v2/subscribers/:id/preferences', () => json({ data: preferences })),
    ])
    const wrong = await rejectionOf(
      client.subscribers.preferences.get('alice', { criticality: 'high' } as never),
    )
    expect(wrong).toBeInstanceOf(RequestValidationError)
    const typo = await rejectionOf(
      client.subscribers.preferences.get('alice', { criticalty: 'all' } as never),
    )
    expect((typo as Error).message).toMatch(/did you mean `criticality`/)
    expect(seen).toHaveLength(0)
  })

  it('is a NotFoundError for a subscriber the service does not know', async () => {
    const { client } = mswClient([
      http.get('*/v2/subscribers/:id/preferences', () =>
        HttpResponse.json(
          { statusCode: 404, message: 'Subscriber with id: ghost not found' },
          { status: 404 },
        ),
      ),
    ])
    expect(await rejectionOf(client.subscribers.preferences.get('ghost'))).toBeInstanceOf(NotFoundError)
  })
})
