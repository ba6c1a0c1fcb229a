import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FakeService } from '../../../src/testing/index.js'
import { seededFake } from '../../helpers/fake.js'
import { type RawAnswer, rawFetch } from './setup.js'

// Rate limits, checked against the server's apps/api/src/app/rate-limiting/guards/throttler.guard.e2e.ts,
// the guard it tests (throttler.guard.ts), the EvaluateApiRateLimit use case and the controllers'
// ThrottlerCategory / ThrottlerCost decorators. The buckets are sized as the server sizes them from
// a per-second maximum: `limit = perSecond * 5`, `burst = floor(limit * 1.1)`.

const E2E = 'rate-limiting/guards/throttler.guard.e2e.ts'
const USE_CASE = 'rate-limiting/usecases/evaluate-api-rate-limit/evaluate-api-rate-limit.usecase.ts'
const GUARD = 'rate-limiting/guards/throttler.guard.ts'
const START = Date.parse('2026-03-01T12:00:00.000Z')
const EVENT = { name: 'welcome', to: 'alice' }
const BUCKETS = {
  perSecond: 10,
  burst: 55,
  global: { perSecond: 5, burst: 27 },
  configuration: { perSecond: 4, burst: 22 },
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

const limited = () => seededFake({ rateLimit: BUCKETS })
const policy = (answer: RawAnswer) => answer.headers.get('ratelimit-policy') ?? ''
const param = (answer: RawAnswer, name: string) =>
  policy(answer)
    .split(';')
    .find((part) => part.startsWith(`${name}=`))
    ?.slice(name.length + 1)

async function notificationId(fake: FakeService): Promise<string> {
  await rawFetch(fake, 'POST', '/v1/events/trigger', EVENT)
  return fake.notifications[0]?._id ?? ''
}

/** A route of each category: the server's global example has no decorator at all. */
const getNotification = async (fake: FakeService) =>
  rawFetch(fake, 'GET', `/v1/notifications/${fake.notifications[0]?._id ?? 'none'}`)

describe(`guard logic, as ${E2E}`, () => {
  it(`${E2E}: "should set rate limit headers when the Feature Flag is enabled" (the fake with rateLimit)`, async () => {
    const answer = await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT)
    expect(answer.headers.get('ratelimit-limit')).not.toBeNull()
  })

  it(`${E2E}: "should NOT set rate limit headers when the Feature Flag is disabled" (the fake without rateLimit)`, async () => {
    const answer = await rawFetch(seededFake(), 'POST', '/v1/events/trigger', EVENT)
    expect(answer.headers.get('ratelimit-limit')).toBeNull()
  })

  it(`${E2E}: "should NOT set rate limit headers when NO authorization header is present"`, async () => {
    const answer = await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT, { authorization: '' })
    expect(answer.status).toBe(401)
    expect(answer.headers.get('ratelimit-limit')).toBeNull()
  })
})

describe(`RateLimit-Policy, as ${E2E}`, () => {
  it(`${E2E}: "should include the limit parameter" (what one window refills)`, async () => {
    const answer = await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT)
    expect(policy(answer).split(';')[0]).toBe('50')
  })

  it(`${E2E}: "should include the w parameter"`, async () => {
    expect(param(await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT), 'w')).toBe('5')
  })

  it(`${E2E}: "should include the burst parameter" (the bucket's size)`, async () => {
    expect(param(await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT), 'burst')).toBe('55')
  })

  it(`${E2E}: "should include the comment parameter" (the algorithm)`, async () => {
    expect(param(await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT), 'comment')).toBe(
      '"token bucket"',
    )
  })

  it(`${E2E}: "should include the category parameter"`, async () => {
    expect(param(await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT), 'category')).toBe(
      '"trigger"',
    )
  })

  it(`${E2E}: "should include the cost parameter"`, async () => {
    expect(param(await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT), 'cost')).toBe('"single"')
  })

  it(`${E2E}: "should include the serviceLevel parameter"`, async () => {
    expect(param(await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT), 'serviceLevel')).toMatch(
      /^"[a-zA-Z]*"$/,
    )
  })

  it(`${E2E}: "should separate the params with a semicolon" (seven of them, in the server's order)`, async () => {
    const answer = await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT)
    expect(policy(answer)).toBe(
      '50;w=5;burst=55;comment="token bucket";category="trigger";cost="single";serviceLevel="unlimited"',
    )
  })
})

describe(`categories and costs, as ${E2E} ("Rate Limit Decorators") and the controllers' decorators`, () => {
  it(`${E2E}: "should use the global category for an endpoint WITHOUT category decorator" (get notification)`, async () => {
    const fake = limited()
    await notificationId(fake)
    const answer = await getNotification(fake)
    expect(answer.status).toBe(200)
    expect(policy(answer)).toBe(
      '25;w=5;burst=27;comment="token bucket";category="global";cost="single";serviceLevel="unlimited"',
    )
  })

  it(`${E2E}: "should use the single cost for an endpoint WITHOUT cost decorator"`, async () => {
    const fake = limited()
    await notificationId(fake)
    expect(param(await getNotification(fake), 'cost')).toBe('"single"')
  })

  it(`${E2E}: "should use the category decorator defined on the controller for an endpoint WITHOUT category decorator" (cancel is in the events controller)`, async () => {
    const answer = await rawFetch(limited(), 'DELETE', '/v1/events/trigger/none')
    expect(param(answer, 'category')).toBe('"trigger"')
    expect(param(answer, 'cost')).toBe('"single"')
  })

  it(`${E2E}: "should override the cost decorator defined on the controller for an endpoint WITH cost decorator" (bulk and broadcast)`, async () => {
    const fake = seededFake({ rateLimit: { perSecond: 100, burst: 550 } })
    const bulk = await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })
    const broadcast = await rawFetch(fake, 'POST', '/v1/events/trigger/broadcast', {
      name: 'welcome',
      payload: {},
    })
    expect([param(bulk, 'cost'), param(broadcast, 'cost')]).toEqual(['"bulk"', '"bulk"'])
    expect([param(bulk, 'category'), param(broadcast, 'category')]).toEqual(['"trigger"', '"trigger"'])
  })

  it('subscribers.controller.ts and subscribers-v2/subscribers.controller.ts: mark-all and preferences are "configuration"', async () => {
    const fake = limited()
    const markAll = await rawFetch(fake, 'POST', '/v1/subscribers/alice/messages/mark-all', {
      markAs: 'read',
    })
    const prefs = await rawFetch(fake, 'PATCH', '/v2/subscribers/alice/preferences', {})
    expect(policy(markAll)).toBe(
      '20;w=5;burst=22;comment="token bucket";category="configuration";cost="single";serviceLevel="unlimited"',
    )
    expect(prefs.headers.get('ratelimit-remaining')).toBe('20')
  })

  it(`${USE_CASE}: each category is its own bucket`, async () => {
    const fake = limited()
    await notificationId(fake)
    for (let i = 0; i < 54; i++) await rawFetch(fake, 'POST', '/v1/events/trigger', EVENT)
    expect((await rawFetch(fake, 'POST', '/v1/events/trigger', EVENT)).status).toBe(429)
    const read = await getNotification(fake)
    expect(read.status).toBe(200)
    expect(read.headers.get('ratelimit-remaining')).toBe('26')
  })
})

describe(`scenarios, as ${E2E} ("Scenarios")`, () => {
  it(`${E2E}: "Allowed" a single request: its status, Limit, Remaining (burst less the cost), Reset 1, no Retry-After`, async () => {
    const answer = await rawFetch(limited(), 'POST', '/v1/events/trigger', EVENT)
    expect(answer.status).toBe(201)
    expect(answer.headers.get('ratelimit-limit')).toBe('50')
    expect(answer.headers.get('ratelimit-remaining')).toBe('54')
    expect(answer.headers.get('ratelimit-reset')).toBe('1')
    expect(answer.headers.get('retry-after')).toBeNull()
  })

  it(`${E2E}: "Throttled" global requests over the burst: 429, Remaining 0, Reset and Retry-After 1, each request past the burst refused`, async () => {
    const fake = limited()
    await notificationId(fake)
    const answers: RawAnswer[] = []
    for (let i = 0; i < 100; i++) answers.push(await getNotification(fake))
    const last = answers.at(-1) as RawAnswer
    expect(last.status).toBe(429)
    expect(last.body).toMatchObject({ statusCode: 429, message: 'API rate limit exceeded' })
    expect(last.headers.get('ratelimit-limit')).toBe('25')
    expect(last.headers.get('ratelimit-remaining')).toBe('0')
    expect(last.headers.get('ratelimit-reset')).toBe('1')
    expect(last.headers.get('retry-after')).toBe('1')
    expect(answers.filter((a) => a.status === 429)).toHaveLength(100 - 27)
  })

  it(`${E2E}: "Allowed" a bulk request: it costs the bulk cost`, async () => {
    const fake = seededFake({ rateLimit: { perSecond: 100, burst: 550 } })
    const answer = await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })
    expect(answer.status).toBe(201)
    expect(answer.headers.get('ratelimit-limit')).toBe('500')
    expect(answer.headers.get('ratelimit-remaining')).toBe('450')
    expect(answer.headers.get('ratelimit-reset')).toBe('1')
  })

  it(`${E2E}: "Allowed" single and bulk requests together: their costs add up in one bucket`, async () => {
    const fake = seededFake({ rateLimit: { perSecond: 100, burst: 550 } })
    await rawFetch(fake, 'POST', '/v1/events/trigger', EVENT)
    await rawFetch(fake, 'POST', '/v1/events/trigger', EVENT)
    const bulk = await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })
    expect(bulk.headers.get('ratelimit-remaining')).toBe(String(550 - 2 - 100))
  })

  it(`${E2E}: "Throttled" bulk requests on a low limit: Reset and Retry-After are the time to refill one bulk cost`, async () => {
    const fake = seededFake({ rateLimit: { perSecond: 20, burst: 110 } })
    expect((await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })).status).toBe(201)
    const refused = await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })
    expect(refused.status).toBe(429)
    // 10 units left, 90 missing at 20 a second.
    expect(refused.headers.get('ratelimit-reset')).toBe('5')
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(refused.headers.get('ratelimit-remaining')).toBe('10')
  })

  it(`${GUARD}: a refused request costs nothing, and the bucket refills with time`, async () => {
    const fake = seededFake({ rateLimit: { perSecond: 20, burst: 110 } })
    await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })
    await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })
    vi.setSystemTime(START + 5_000)
    expect((await rawFetch(fake, 'POST', '/v1/events/trigger/bulk', { events: [EVENT] })).status).toBe(201)
  })
})
