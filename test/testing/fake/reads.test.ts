import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { createFakeService } from '../../../src/testing/index.js'
import { fakeHandlers } from '../../../src/testing/msw/index.js'
import { API_KEY, call, data, seededFake } from '../../helpers/fake.js'

// The fake's two reads at its door: the query as the server's parser reads it, the buckets the
// reads draw from, and the msw handlers.

const headers = { authorization: `ApiKey ${API_KEY}` }

describe('GET /v1/notifications at the fake', () => {
  it('reads a list filter given once, repeated, or with brackets (channels[]=), as the server’s parser does', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })
    await call(fake, 'POST', '/v1/events/trigger', { name: 'delayed', to: 'alice' })
    const count = async (query: string) =>
      (data(await call(fake, 'GET', `/v1/notifications${query}`)) as { data: unknown[] }).data.length
    expect(await count('?channels=sms')).toBe(1)
    expect(await count('?channels=sms&channels=email')).toBe(2)
    expect(await count('?channels[]=email')).toBe(1)
    // An empty value is no filter.
    expect(await count('?channels=')).toBe(2)
  })

  it('answers the notifications as notifications.get does, jobs included', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice', transactionId: 'tx-1' })
    const listed = data(await call(fake, 'GET', '/v1/notifications?transactionId=tx-1')) as {
      data: { _id: string }[]
    }
    const id = listed.data[0]?._id ?? ''
    expect(listed.data[0]).toEqual(data(await call(fake, 'GET', `/v1/notifications/${id}`)))
  })

  it('finds no notification through a topic subscription, which the fake does not keep', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', {
      name: 'welcome',
      to: { type: 'Topic', topicKey: 'team' },
    })
    const answer = data(await call(fake, 'GET', '/v1/notifications?subscriptionId=s-1')) as {
      data: unknown[]
    }
    expect(answer.data).toEqual([])
  })

  it('search matches a subscriberId exactly or part of an email, in any case', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: ['alice', 'bob'] })
    const found = async (search: string) =>
      (
        data(await call(fake, 'GET', `/v1/notifications?search=${search}`)) as {
          data: { subscriber: { subscriberId: string } }[]
        }
      ).data.map((n) => n.subscriber.subscriberId)
    expect(await found('ALICE%40example')).toEqual(['alice'])
    expect(await found('bob')).toEqual(['bob'])
    expect(await found('bo')).toEqual([])
  })
})

describe('the reads and the rate limit', () => {
  it('a notifications list draws from `global`, a preferences read from `configuration`, neither from `trigger`', async () => {
    const fake = createFakeService({
      apiKey: API_KEY,
      subscribers: [{ subscriberId: 'alice' }],
      workflows: [{ identifier: 'welcome', steps: [{ type: 'email' }] }],
      rateLimit: {
        perSecond: 1,
        burst: 1,
        global: { perSecond: 1, burst: 1 },
        configuration: { perSecond: 1, burst: 1 },
      },
    })
    const policy = async (path: string) => (await call(fake, 'GET', path)).headers.get('ratelimit-policy')
    expect(await policy('/v1/notifications')).toMatch(/category="global"/)
    expect(await policy('/v2/subscribers/alice/preferences')).toMatch(/category="configuration"/)
    expect((await call(fake, 'GET', '/v1/notifications')).status).toBe(429)
    expect((await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })).status).toBe(
      201,
    )
  })
})

describe('the reads through msw', () => {
  it('are among fakeHandlers’ routes, the query reaching the fake', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })
    const response = await getResponse(
      fakeHandlers(fake),
      new Request('https://x.test/v1/notifications?limit=51', { headers }),
    )
    expect(response?.status).toBe(422)
    const preferences = await getResponse(
      fakeHandlers(fake),
      new Request('https://x.test/v2/subscribers/alice/preferences?criticality=all', { headers }),
    )
    const body = (await preferences?.json()) as {
      data: { workflows: { workflow: { identifier: string } }[] }
    }
    expect(body.data.workflows.map((w) => w.workflow.identifier)).toContain('security')
  })
})
