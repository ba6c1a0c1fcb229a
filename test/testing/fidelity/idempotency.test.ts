import { afterEach, describe, expect, it, vi } from 'vitest'
import { seededFake } from '../../helpers/fake.js'
import { changedBy, rawFetch } from './setup.js'

// Idempotency keys, checked against the server's apps/api/src/app/shared/framework/idempotency.e2e.ts
// ("when enabled") and the interceptor it tests (idempotency.interceptor.ts). Raw requests: the
// headers are what is checked, and the SDK would never reuse a key for another body.

const E2E = 'shared/framework/idempotency.e2e.ts'
const INTERCEPTOR = 'shared/framework/idempotency.interceptor.ts'
const DOCS_LINK = 'https://docs.novu.co/additional-resources/idempotency'
const TRIGGER = '/v1/events/trigger'
const EVENT = { name: 'welcome', to: 'alice' }
const keyed = (key: string) => ({ 'idempotency-key': key })

afterEach(() => {
  vi.useRealTimers()
})

describe(`idempotency, as ${E2E}`, () => {
  it(`${E2E}: "should return cached same response for duplicate requests"`, async () => {
    const fake = seededFake()
    const first = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k1'))
    const again = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k1'))
    expect([first.status, again.status]).toEqual([201, 201])
    expect(again.body).toEqual(first.body)
    expect(first.headers.get('idempotency-key')).toBe('k1')
    expect(again.headers.get('idempotency-key')).toBe('k1')
    expect(again.headers.get('idempotency-replay')).toBe('true')
    expect(fake.notifications).toHaveLength(1)
  })

  it(`${E2E}: "should return conflict when concurrent requests are made"`, async () => {
    vi.useFakeTimers()
    const fake = seededFake()
    fake.delay(100)
    const first = rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k2'))
    const second = rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k2'))
    await vi.advanceTimersByTimeAsync(100)
    const [a, b] = await Promise.all([first, second])
    expect([a.status, b.status]).toEqual([201, 409])
    expect(a.headers.get('idempotency-key')).toBe('k2')
    expect(b.headers.get('idempotency-key')).toBe('k2')
    expect(b.headers.get('link')).toBe(DOCS_LINK)
    expect(b.headers.get('retry-after')).toBe('1')
    expect(b.body).toMatchObject({
      statusCode: 409,
      error: 'Conflict',
      message: 'Request with key "k2" is currently being processed. Please retry after 1 second',
    })
  })

  it(`${E2E}: "should return conflict when different body is sent for same key"`, async () => {
    const fake = seededFake()
    await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k3'))
    const other = await rawFetch(fake, 'POST', TRIGGER, { ...EVENT, to: 'bob' }, keyed('k3'))
    expect(other.status).toBe(422)
    expect(other.headers.get('idempotency-key')).toBe('k3')
    expect(other.headers.get('link')).toBe(DOCS_LINK)
    expect(other.body).toMatchObject({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'Request with key "k3" is being reused for a different body',
    })
  })

  it(`${E2E}: "should return non cached response for unique requests"`, async () => {
    const fake = seededFake()
    const first = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k4'))
    const second = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k5'))
    expect(second.body).not.toEqual(first.body)
    expect(second.headers.get('idempotency-key')).toBe('k5')
    expect(fake.notifications).toHaveLength(2)
  })

  it(`${E2E}: "should return non cached response for GET requests" (no key header on the answer)`, async () => {
    const fake = seededFake()
    await rawFetch(fake, 'POST', TRIGGER, EVENT)
    const id = fake.notifications[0]?._id ?? ''
    const read = await rawFetch(fake, 'GET', `/v1/notifications/${id}`, undefined, keyed('k6'))
    expect(read.status).toBe(200)
    expect(read.headers.get('idempotency-key')).toBeNull()
    expect(read.headers.get('idempotency-replay')).toBeNull()
  })

  it(`${E2E}: "should return cached error response for duplicate requests": the error is kept, and its replay is a bare 503 for the key's lifetime ${changedBy('idempotencyErrorReplay')}`, async () => {
    const fake = seededFake()
    const first = await rawFetch(fake, 'POST', TRIGGER, { name: 'nope', to: 'alice' }, keyed('k7'))
    fake.addWorkflow({ identifier: 'nope', steps: [{ type: 'email' }] })
    const again = await rawFetch(fake, 'POST', TRIGGER, { name: 'nope', to: 'alice' }, keyed('k7'))
    expect([first.status, again.status]).toEqual([422, 503])
    expect(again.body).toEqual({
      statusCode: 503,
      timestamp: expect.any(String),
      path: TRIGGER,
      message: 'Service Unavailable',
      ctx: { statusCode: 503 },
    })
    expect(first.headers.get('idempotency-key')).toBe('k7')
    expect(first.headers.get('idempotency-replay')).toBeNull()
    expect(again.headers.get('idempotency-key')).toBe('k7')
    expect(again.headers.get('idempotency-replay')).toBe('true')
    expect(fake.notifications).toHaveLength(0)
  })

  it(`${E2E}: "should return 400 when key bigger than allowed limit"`, async () => {
    const fake = seededFake()
    const key = 'k'.repeat(256)
    const answer = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed(key))
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({
      statusCode: 400,
      message: `idempotencyKey "${key}" has exceeded the maximum allowed length of 255 characters`,
    })
    expect((await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k'.repeat(255)))).status).toBe(201)
  })

  it(`${E2E}: "should set Idempotency-Key header when ApiKey security scheme is used to authenticate"`, async () => {
    const fake = seededFake()
    const answer = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('k8'))
    expect(answer.headers.get('idempotency-key')).toBe('k8')
  })

  it(`${E2E}: "should NOT set rate limit headers when NO authorization header is present" (401, no key header)`, async () => {
    const fake = seededFake()
    const answer = await rawFetch(fake, 'POST', TRIGGER, EVENT, { ...keyed('k9'), authorization: '' })
    expect(answer.status).toBe(401)
    expect(answer.headers.get('idempotency-key')).toBeNull()
  })
})

describe(`idempotency, as ${INTERCEPTOR}`, () => {
  it(`${INTERCEPTOR} (hashRequestBody): the body is compared as the bytes of its JSON, so another key order is another body`, async () => {
    const fake = seededFake()
    await rawFetch(fake, 'POST', TRIGGER, { name: 'welcome', to: 'alice' }, keyed('order'))
    const reordered = await rawFetch(fake, 'POST', TRIGGER, { to: 'alice', name: 'welcome' }, keyed('order'))
    expect(reordered.status).toBe(422)
    expect(fake.notifications).toHaveLength(1)
  })

  it(`${INTERCEPTOR} (ALLOWED_METHODS): PATCH is covered, DELETE is not`, async () => {
    const fake = seededFake()
    const patch = () =>
      rawFetch(fake, 'PATCH', '/v2/subscribers/alice/preferences', { channels: { email: false } }, keyed('p'))
    await patch()
    expect((await patch()).headers.get('idempotency-replay')).toBe('true')
    await rawFetch(fake, 'POST', TRIGGER, { name: 'digest', to: 'alice', transactionId: 't1' })
    const cancel = () => rawFetch(fake, 'DELETE', '/v1/events/trigger/t1', undefined, keyed('d'))
    expect((await cancel()).body).toEqual({ data: true })
    const again = await cancel()
    expect(again.headers.get('idempotency-replay')).toBeNull()
    expect(again.body).toEqual({ data: false })
  })

  it(`${INTERCEPTOR} (getCacheKey): the key is the environment's, not the route's: the same key and body on another route replays`, async () => {
    const fake = seededFake()
    const body = { markAs: 'read' }
    const first = await rawFetch(
      fake,
      'POST',
      '/v1/subscribers/alice/messages/mark-all',
      body,
      keyed('shared'),
    )
    const other = await rawFetch(fake, 'POST', '/v1/subscribers/bob/messages/mark-all', body, keyed('shared'))
    expect(other.headers.get('idempotency-replay')).toBe('true')
    expect(other.body).toEqual(first.body)
  })
})

describe(`idempotency of errors, as ${INTERCEPTOR} (2026)`, () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it(`${INTERCEPTOR} (catchError): every error of the handler is kept, a DTO's 422 and a handler's 500 alike, and the key answers 503 from then on ${changedBy('idempotencyErrorReplay')}`, async () => {
    const fake = seededFake()
    const invalid = await rawFetch(fake, 'POST', TRIGGER, { to: 'alice' }, keyed('dto'))
    expect(invalid.status).toBe(422)
    const replay = await rawFetch(fake, 'POST', TRIGGER, { to: 'alice' }, keyed('dto'))
    expect([replay.status, replay.headers.get('idempotency-replay')]).toEqual([503, 'true'])

    fake.failNext({ status: 500, fromHandler: true })
    const failed = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('h500'))
    expect([failed.status, failed.headers.get('idempotency-key')]).toEqual([500, 'h500'])
    for (let i = 0; i < 3; i++) {
      const again = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('h500'))
      expect([again.status, again.headers.get('idempotency-replay')]).toEqual([503, 'true'])
    }
    expect(fake.notifications).toHaveLength(0)
    // The same body under another key runs.
    expect((await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('h500-new'))).status).toBe(201)
  })

  it(`${INTERCEPTOR} (handlerDuplicateRequest): the body is compared before the kept error is replayed, so another body is the 422 for reuse`, async () => {
    const fake = seededFake()
    await rawFetch(fake, 'POST', TRIGGER, { name: 'nope', to: 'alice' }, keyed('e1'))
    const other = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('e1'))
    expect(other.status).toBe(422)
    expect(other.body).toMatchObject({
      message: 'Request with key "e1" is being reused for a different body',
    })
    expect(other.headers.get('idempotency-replay')).toBeNull()
  })

  it(`${INTERCEPTOR} (of(parsed.data)): the replay of a success is the first body as it was, its transactionId and activityFeedLink included`, async () => {
    const fake = seededFake()
    const first = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('ok'))
    const again = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('ok'))
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect((again.body as { data: { activityFeedLink: string } }).data.activityFeedLink).toContain('req_')
  })

  it("an error in front of the handler is not kept: a gateway's 503, the parser's 400, the key-length 400, a 401", async () => {
    const fake = seededFake()
    fake.failNext({ status: 503 })
    expect((await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('g'))).status).toBe(503)
    expect((await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('g'))).status).toBe(201)
    const broken = await fake.fetch(`https://fake.test${TRIGGER}`, {
      method: 'POST',
      headers: { authorization: 'ApiKey test-key', 'idempotency-key': 'p' },
      body: '{"name":',
    })
    expect(broken.status).toBe(400)
    expect(broken.headers.get('idempotency-key')).toBeNull()
    expect((await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('p'))).status).toBe(201)
    const unauthorized = await rawFetch(fake, 'POST', TRIGGER, EVENT, {
      ...keyed('a'),
      authorization: 'ApiKey wrong',
    })
    expect(unauthorized.status).toBe(401)
    expect((await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('a'))).status).toBe(201)
  })

  it('apps/api/src/app.module.ts: the rate limiter runs before the idempotency interceptor, so a 429 is not kept and carries no key', async () => {
    vi.useFakeTimers()
    const fake = seededFake({ rateLimit: { perSecond: 1, burst: 1 } })
    expect((await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('r1'))).status).toBe(201)
    const limited = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('r2'))
    expect(limited.status).toBe(429)
    expect(limited.headers.get('idempotency-key')).toBeNull()
    vi.advanceTimersByTime(1000)
    const retried = await rawFetch(fake, 'POST', TRIGGER, EVENT, keyed('r2'))
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotency-replay')).toBeNull()
  })
})
