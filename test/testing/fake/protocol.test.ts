import { afterEach, describe, expect, it, vi } from 'vitest'
import { API_KEY, call, data, seededFake } from '../../helpers/fake.js'

const trigger = { name: 'welcome', to: 'alice' }

describe('idempotency keys', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('replays the stored response for the same key and body, without applying again', async () => {
    const fake = seededFake()
    const key = { 'idempotency-key': 'k-1' }
    const first = await call(fake, 'POST', '/v1/events/trigger', trigger, key)
    const replay = await call(fake, 'POST', '/v1/events/trigger', trigger, key)
    expect(first.headers.get('idempotency-replay')).toBeNull()
    expect(first.headers.get('idempotency-key')).toBe('k-1')
    expect(replay.status).toBe(201)
    expect(replay.body).toEqual(first.body)
    expect(replay.headers.get('idempotency-key')).toBe('k-1')
    expect(replay.headers.get('idempotency-replay')).toBe('true')
    expect(fake.notifications).toHaveLength(1)
  })

  it('remembers an error too, and answers its key 503 from then on, even once the cause is gone', async () => {
    const fake = seededFake()
    const key = { 'idempotency-key': 'k-err' }
    const first = await call(fake, 'POST', '/v1/events/trigger', { name: 'nope', to: 'alice' }, key)
    fake.addWorkflow({ identifier: 'nope', steps: [{ type: 'email' }] })
    const replay = await call(fake, 'POST', '/v1/events/trigger', { name: 'nope', to: 'alice' }, key)
    expect([first.status, replay.status]).toEqual([422, 503])
    expect(first.headers.get('idempotency-key')).toBe('k-err')
    expect(first.headers.get('idempotency-replay')).toBeNull()
    expect(replay.body).toEqual({
      statusCode: 503,
      timestamp: expect.any(String),
      path: '/v1/events/trigger',
      message: 'Service Unavailable',
      ctx: { statusCode: 503 },
    })
    expect(replay.headers.get('idempotency-key')).toBe('k-err')
    expect(replay.headers.get('idempotency-replay')).toBe('true')
    expect(fake.notifications).toHaveLength(0)
    // Another key is another request: it runs.
    const fresh = await call(
      fake,
      'POST',
      '/v1/events/trigger',
      { name: 'nope', to: 'alice' },
      {
        'idempotency-key': 'k-new',
      },
    )
    expect(fresh.status).toBe(201)
  })

  it('answers 422 for the same key with another body, and 400 for a key over 255 characters', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', trigger, { 'idempotency-key': 'k-2' })
    const other = await call(
      fake,
      'POST',
      '/v1/events/trigger',
      { ...trigger, to: 'bob' },
      { 'idempotency-key': 'k-2' },
    )
    expect(other.status).toBe(422)
    expect(other.body).not.toHaveProperty('errors')
    const long = await call(fake, 'POST', '/v1/events/trigger', trigger, {
      'idempotency-key': 'x'.repeat(256),
    })
    expect(long.status).toBe(400)
    const longest = await call(fake, 'POST', '/v1/events/trigger', trigger, {
      'idempotency-key': 'y'.repeat(255),
    })
    expect(longest.status).toBe(201)
    expect(fake.notifications).toHaveLength(2)
  })

  it("keeps a key's answer, error or success, for 24 hours, then runs the request anew", async () => {
    vi.useFakeTimers()
    const fake = seededFake()
    const failed = { 'idempotency-key': 'k-ttl-err' }
    const done = { 'idempotency-key': 'k-ttl-ok' }
    const bad = { name: 'nope', to: 'alice' }
    await call(fake, 'POST', '/v1/events/trigger', bad, failed)
    await call(fake, 'POST', '/v1/events/trigger', trigger, done)
    fake.addWorkflow({ identifier: 'nope', steps: [{ type: 'email' }] })
    vi.advanceTimersByTime(24 * 60 * 60 * 1000 - 1)
    expect((await call(fake, 'POST', '/v1/events/trigger', bad, failed)).status).toBe(503)
    expect(
      (await call(fake, 'POST', '/v1/events/trigger', trigger, done)).headers.get('idempotency-replay'),
    ).toBe('true')
    vi.advanceTimersByTime(1)
    const rerun = await call(fake, 'POST', '/v1/events/trigger', bad, failed)
    expect([rerun.status, rerun.headers.get('idempotency-replay')]).toEqual([201, null])
    expect(
      (await call(fake, 'POST', '/v1/events/trigger', trigger, done)).headers.get('idempotency-replay'),
    ).toBeNull()
    expect(fake.notifications).toHaveLength(3)
  })

  it('ignores keys on GET and DELETE', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'digest', to: 'alice', transactionId: 't' })
    const key = { 'idempotency-key': 'k-del' }
    expect(data(await call(fake, 'DELETE', '/v1/events/trigger/t', undefined, key))).toBe(true)
    const again = await call(fake, 'DELETE', '/v1/events/trigger/t', undefined, key)
    expect(data(again)).toBe(false)
    expect(again.headers.get('idempotency-replay')).toBeNull()
  })

  describe('while the first request is in flight', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('answers 409 with Retry-After: 1 to the same key', async () => {
      vi.useFakeTimers()
      const fake = seededFake()
      fake.delay(1000)
      const key = { 'idempotency-key': 'k-slow' }
      const first = call(fake, 'POST', '/v1/events/trigger', trigger, key)
      await vi.advanceTimersByTimeAsync(10)
      const second = call(fake, 'POST', '/v1/events/trigger', trigger, key)
      await vi.advanceTimersByTimeAsync(1000)
      const [a, b] = await Promise.all([first, second])
      expect(a.status).toBe(201)
      expect(b.status).toBe(409)
      expect(b.headers.get('retry-after')).toBe('1')
      const third = call(fake, 'POST', '/v1/events/trigger', trigger, key)
      await vi.advanceTimersByTimeAsync(1000)
      expect((await third).headers.get('idempotency-replay')).toBe('true')
      expect(fake.notifications).toHaveLength(1)
    })
  })
})

describe('rate limiting', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('is off by default', async () => {
    const result = await call(seededFake(), 'POST', '/v1/events/trigger', trigger)
    expect(result.headers.get('ratelimit-limit')).toBeNull()
  })

  it('sends RateLimit headers and answers 429 with Retry-After once the window is spent', async () => {
    vi.useFakeTimers()
    const fake = seededFake({ rateLimit: { limit: 3, windowMs: 10_000 } })
    const results = []
    for (let i = 0; i < 4; i++) results.push(await call(fake, 'POST', '/v1/events/trigger', trigger))
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 429])
    expect(results[0]?.headers.get('ratelimit-limit')).toBe('3')
    expect(results.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0'])
    expect(results[0]?.headers.get('ratelimit-reset')).toBe('10')
    expect(results[0]?.headers.get('ratelimit-policy')).toBe('3;w=10')
    expect(results[3]?.body).toMatchObject({ statusCode: 429, message: 'API rate limit exceeded' })
    expect(results[3]?.headers.get('retry-after')).toBe('10')
    expect(fake.notifications).toHaveLength(3)

    vi.advanceTimersByTime(10_000)
    expect((await call(fake, 'POST', '/v1/events/trigger', trigger)).status).toBe(201)
  })

  it('reports whole tokens: RateLimit-Remaining rounds a partial token down, Reset rounds the wait up', async () => {
    vi.useFakeTimers()
    const fake = seededFake({ rateLimit: { perSecond: 10, burst: 2 } })
    const send = () => call(fake, 'POST', '/v1/events/trigger', trigger)
    const remaining = (r: { headers: Headers }) => r.headers.get('ratelimit-remaining')
    expect(remaining(await send())).toBe('1')
    expect(remaining(await send())).toBe('0')
    vi.advanceTimersByTime(50) // half a token
    const refused = await send()
    expect([refused.status, remaining(refused), refused.headers.get('retry-after')]).toEqual([429, '0', '1'])
    vi.advanceTimersByTime(100) // 1.5 tokens: one request, half a token left
    const passed = await send()
    expect([passed.status, remaining(passed), passed.headers.get('ratelimit-reset')]).toEqual([201, '0', '1'])
    vi.advanceTimersByTime(60) // 1.1 tokens
    expect(remaining(await send())).toBe('0')
    vi.advanceTimersByTime(200) // 2 tokens, the burst
    expect(remaining(await send())).toBe('1')
  })

  it('counts a request the route refuses (with its headers), not one the auth guard refuses', async () => {
    const fake = seededFake({ rateLimit: { perSecond: 1, burst: 5 } })
    const invalid = await call(fake, 'POST', '/v1/events/trigger', { name: 'nope', to: 'alice' })
    expect([invalid.status, invalid.headers.get('ratelimit-remaining')]).toEqual([422, '4'])
    const unauthorized = await call(fake, 'POST', '/v1/events/trigger', trigger, {
      authorization: 'ApiKey no',
    })
    expect([unauthorized.status, unauthorized.headers.get('ratelimit-remaining')]).toEqual([401, null])
    const next = await call(fake, 'POST', '/v1/events/trigger', trigger)
    expect(next.headers.get('ratelimit-remaining')).toBe('3')
  })

  it('charges 100 units for bulk and broadcast', async () => {
    const fake = seededFake({ rateLimit: { limit: 150, windowMs: 60_000 } })
    const bulk = await call(fake, 'POST', '/v1/events/trigger/bulk', { events: [trigger] })
    expect(bulk.headers.get('ratelimit-remaining')).toBe('50')
    const broadcast = await call(fake, 'POST', '/v1/events/trigger/broadcast', {
      name: 'welcome',
      payload: {},
    })
    expect(broadcast.status).toBe(429)
    expect((await call(fake, 'POST', '/v1/events/trigger', trigger)).headers.get('ratelimit-remaining')).toBe(
      '49',
    )
  })
})

describe('fault injection', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('fails the next requests with a status, without applying them', async () => {
    const fake = seededFake()
    fake.failNext({ status: 503, times: 2 })
    const statuses = []
    for (let i = 0; i < 3; i++)
      statuses.push((await call(fake, 'POST', '/v1/events/trigger', trigger)).status)
    expect(statuses).toEqual([503, 503, 201])
    expect(fake.notifications).toHaveLength(1)
    expect(fake.requests).toHaveLength(3)
  })

  it('sends a custom body and headers, a string body as text', async () => {
    const fake = seededFake()
    fake.failNext({ status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } })
    const response = await fake.handle(
      new Request('https://fake.test/v1/notifications/000000000000000000000000'),
    )
    expect(response.status).toBe(502)
    expect(response.headers.get('content-type')).toBe('text/html')
    expect(await response.text()).toBe('<html>Bad gateway</html>')
  })

  it('drops the connection before or after applying', async () => {
    const fake = seededFake()
    fake.failNext({ dropConnection: true })
    fake.failNext({ dropConnection: true, afterApply: true })
    const request = () =>
      fake.handle(
        new Request('https://fake.test/v1/events/trigger', {
          method: 'POST',
          headers: { authorization: `ApiKey ${API_KEY}`, 'idempotency-key': 'k-drop' },
          body: JSON.stringify(trigger),
        }),
      )
    expect((await request()).type).toBe('error')
    expect(fake.notifications).toHaveLength(0)
    expect((await request()).type).toBe('error')
    expect(fake.notifications).toHaveLength(1)
    const retry = await request()
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotency-replay')).toBe('true')
    expect(fake.notifications).toHaveLength(1)
  })

  it('delays answers on timers', async () => {
    vi.useFakeTimers()
    const fake = seededFake()
    fake.delay(500)
    let done = false
    const pending = call(fake, 'POST', '/v1/events/trigger', trigger).then((r) => {
      done = true
      return r
    })
    await vi.advanceTimersByTimeAsync(499)
    expect(done).toBe(false)
    expect(fake.notifications).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect((await pending).status).toBe(201)
    fake.delay(0)
    expect((await call(fake, 'GET', '/v1/notifications/000000000000000000000000')).status).toBe(404)
  })
})

describe('inspection', () => {
  it('records requests with lowercase headers and parsed bodies, and reset forgets everything but the seeds', async () => {
    const fake = seededFake()
    fake.addWorkflow({ identifier: 'later', steps: [{ type: 'email' }] })
    await call(fake, 'POST', '/v1/events/trigger', trigger, { 'X-Custom': 'yes' })
    await call(fake, 'GET', '/v1/notifications/000000000000000000000000')
    expect(fake.requests).toEqual([
      {
        method: 'POST',
        path: '/v1/events/trigger',
        headers: expect.objectContaining({ 'x-custom': 'yes', authorization: `ApiKey ${API_KEY}` }),
        body: trigger,
      },
      {
        method: 'GET',
        path: '/v1/notifications/000000000000000000000000',
        headers: expect.any(Object),
        body: undefined,
      },
    ])
    fake.failNext({ status: 500 })
    fake.reset()
    expect(fake.requests).toEqual([])
    expect(fake.notifications).toEqual([])
    expect(fake.messages('alice')).toEqual([])
    expect((await call(fake, 'POST', '/v1/events/trigger', trigger)).status).toBe(201)
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'later', to: 'alice' })).status).toBe(201)
    fake.reset({ keepAdded: false })
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'later', to: 'alice' })).status).toBe(422)
    expect((await call(fake, 'POST', '/v1/events/trigger', trigger)).status).toBe(201)
  })

  it('returns copies, so callers cannot change the state', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', trigger)
    const [notification] = fake.notifications
    if (notification) notification.payload.changed = true
    expect(fake.notifications[0]?.payload).toEqual({})
    expect(fake.preferences('ghost')).toBeUndefined()
  })
})
