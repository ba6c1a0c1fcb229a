import { getResponse } from 'msw'
import { NotificationClient } from 'notifykit'
import { describe, expect, it, vi } from 'vitest'

// What the portable build does: every `platform/node.js` import resolved to its sibling fetch.ts
// (tsup.config.ts). Here in the sources, so the fake's behaviour there is tested without a build.
vi.mock('../../src/testing/platform/node.js', () => import('../../src/testing/platform/fetch.js'))
vi.mock('../../src/testing/msw/platform/node.js', () => import('../../src/testing/msw/platform/fetch.js'))

const testing = await import('notifykit/testing')
const mswPlugins = await import('notifykit/testing/msw')

const fake = testing.createFakeService({
  apiKey: 'k',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
})
const WORKS_EVERYWHERE = /needs Node .*: use fake\.fetch, which works everywhere/

describe('the test kit without Node sockets', () => {
  it('keeps the fake whole: state, routes, faults and fake.fetch', async () => {
    const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch })
    fake.failNext({ dropConnection: true })
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    expect(fake.notifications).toHaveLength(1)
    expect(fake.messages('alice')).toHaveLength(1)
  })

  it('refuses the Node-only plug-ins, naming what they need and pointing at fake.fetch', async () => {
    expect(() => fake.dispatcher).toThrow(/fake\.dispatcher .*needs Node \(undici\)/)
    await expect(fake.listen()).rejects.toThrow(/fake\.listen\(\) .*needs Node \(node:http\)/)
    expect(() => new testing.FetchHandlerDispatcher(fake.handle)).toThrow(WORKS_EVERYWHERE)
    await expect(testing.serveFetchHandler(fake.handle)).rejects.toThrow(WORKS_EVERYWHERE)
    expect(() => mswPlugins.createMswDispatcher([])).toThrow(
      /^createMswDispatcher needs Node \(undici\), which this build of notifykit\/testing\/msw/,
    )
    expect(() => mswPlugins.createMswDispatcher([])).toThrow(WORKS_EVERYWHERE)
    expect(() => fake.dispatcher).toThrow(expect.objectContaining({ code: 'NOTIFYKIT_CONFIGURATION' }))
  })

  it("makes the fake's msw handlers, which need msw alone (Bun, Deno and browsers have it)", async () => {
    const request = new Request('https://fake.test/v1/events/trigger', {
      method: 'POST',
      headers: { authorization: 'ApiKey k', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'welcome', to: 'bob' }),
    })
    const response = await getResponse(mswPlugins.fakeHandlers(fake), request)
    expect(response?.status).toBe(201)
    expect(fake.messages('bob')).toHaveLength(1)
  })
})
