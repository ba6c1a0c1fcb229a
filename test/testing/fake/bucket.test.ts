import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createFakeService } from '../../../src/testing/index.js'
import { call, seededFake } from '../../helpers/fake.js'

// The fake's token bucket and random faults, seen on the wire by fake.handle.

const START = Date.parse('2026-03-01T12:00:00.000Z')
const EVENT = { name: 'welcome', to: 'alice' }
const bulk = (count: number) => ({ events: Array.from({ length: count }, () => EVENT) })

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('rateLimit: { perSecond, burst }', () => {
  it('charges a trigger 1 and a bulk request 100, with the four headers', async () => {
    const fake = seededFake({ rateLimit: { perSecond: 100, burst: 250 } })
    const trigger = await call(fake, 'POST', '/v1/events/trigger', EVENT)
    expect(trigger.status).toBe(201)
    expect(Object.fromEntries([...trigger.headers].filter(([name]) => name.startsWith('ratelimit')))).toEqual(
      {
        'ratelimit-limit': '500',
        'ratelimit-remaining': '249',
        'ratelimit-reset': '1',
        'ratelimit-policy':
          '500;w=5;burst=250;comment="token bucket";category="trigger";cost="single";serviceLevel="unlimited"',
      },
    )
    const first = await call(fake, 'POST', '/v1/events/trigger/bulk', bulk(3))
    expect(first.headers.get('ratelimit-remaining')).toBe('149')
    // a second bulk request needs 100 more units: one second at 100 a second
    expect(first.headers.get('ratelimit-reset')).toBe('1')
  })

  it('refuses what the bucket cannot pay for with 429 and Retry-After, charging nothing', async () => {
    const fake = seededFake({ rateLimit: { perSecond: 40, burst: 120 } })
    expect((await call(fake, 'POST', '/v1/events/trigger/bulk', bulk(1))).status).toBe(201)
    const refused = await call(fake, 'POST', '/v1/events/trigger/bulk', bulk(1))
    expect(refused.status).toBe(429)
    // 80 units missing at 40 a second.
    expect(refused.headers.get('retry-after')).toBe('2')
    expect(refused.headers.get('ratelimit-remaining')).toBe('20')
    vi.setSystemTime(START + 2_000)
    expect((await call(fake, 'POST', '/v1/events/trigger/bulk', bulk(1))).status).toBe(201)
  })

  it('refills at perSecond up to the burst, and leaves other operations uncounted', async () => {
    const fake = seededFake({ rateLimit: { perSecond: 10, burst: 5 } })
    for (let i = 0; i < 5; i++) await call(fake, 'POST', '/v1/events/trigger', EVENT)
    expect((await call(fake, 'POST', '/v1/events/trigger', EVENT)).status).toBe(429)
    const read = await call(fake, 'GET', '/v1/notifications/000000000000000000000000')
    expect(read.status).toBe(404)
    expect(read.headers.get('ratelimit-remaining')).toBeNull()
    vi.setSystemTime(START + 10_000)
    const refilled = await call(fake, 'POST', '/v1/events/trigger', EVENT)
    expect(refilled.headers.get('ratelimit-remaining')).toBe('4')
  })

  it('starts full again after reset()', async () => {
    const fake = seededFake({ rateLimit: { perSecond: 1, burst: 1 } })
    await call(fake, 'POST', '/v1/events/trigger', EVENT)
    fake.reset()
    expect((await call(fake, 'POST', '/v1/events/trigger', EVENT)).status).toBe(201)
  })

  it('refuses a bucket that cannot work', () => {
    expect(() => createFakeService({ rateLimit: { perSecond: 0 } })).toThrow(RangeError)
  })
})

describe('faults: { status503, dropAfterApply }', () => {
  it('answers 503 without applying, or applies and drops, as drawn', async () => {
    const fake = seededFake({ faults: { status503: 0.1, dropAfterApply: 0.1 } })
    vi.spyOn(Math, 'random').mockReturnValue(0.05)
    expect((await call(fake, 'POST', '/v1/events/trigger', EVENT)).status).toBe(503)
    expect(fake.notifications).toHaveLength(0)
    vi.spyOn(Math, 'random').mockReturnValue(0.15)
    // fake.handle answers a dropped connection with Response.error(), status 0.
    const dropped = await fake.handle(
      new Request('https://fake.test/v1/events/trigger', {
        method: 'POST',
        headers: { authorization: 'ApiKey test-key', 'content-type': 'application/json' },
        body: JSON.stringify(EVENT),
      }),
    )
    expect(dropped.type).toBe('error')
    expect(fake.notifications).toHaveLength(1)
    vi.spyOn(Math, 'random').mockReturnValue(0.5)
    expect((await call(fake, 'POST', '/v1/events/trigger', EVENT)).status).toBe(201)
  })
})
