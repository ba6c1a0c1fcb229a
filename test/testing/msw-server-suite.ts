import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { InternalServerError, NotificationClient } from 'notifykit'
import type { FakeService } from 'notifykit/testing'
import { fakeHandlers } from 'notifykit/testing/msw'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'

/**
 * The way many apps already test: msw's own server (msw/node, imported as an ES module) intercepting
 * the global fetch, with the fake's handlers among its own, and `server.use()` overrides on top.
 */
export function mswServerSuite(createFake: () => FakeService): void {
  const fake = createFake()
  const server = setupServer(...fakeHandlers(fake))
  const client = new NotificationClient({
    apiKey: 'k',
    baseUrl: 'https://fake.test',
    fetch: (url, init) => fetch(url, init),
    maxRetries: 0,
  })

  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
  afterEach(() => {
    server.resetHandlers()
    fake.reset()
  })
  afterAll(() => server.close())

  it('answers the calls from the fake', async () => {
    const { transactionId } = await client.events.trigger({ name: 'welcome', to: 'alice' })
    const [stored] = fake.notifications
    expect(stored?.transactionId).toBe(transactionId)
    expect((await client.notifications.get(stored?._id ?? '')).transactionId).toBe(transactionId)
  })

  it('lets a server.use() override answer instead', async () => {
    server.use(
      http.post('*/v1/events/trigger', () =>
        HttpResponse.json({ statusCode: 503, message: 'down for maintenance' }, { status: 503 }),
      ),
    )
    await expect(client.events.trigger({ name: 'welcome', to: 'alice' })).rejects.toBeInstanceOf(
      InternalServerError,
    )
    expect(fake.requests).toEqual([])
    // The other routes still reach the fake.
    await expect(client.notifications.get('000000000000000000000000')).rejects.toMatchObject({ status: 404 })
    expect(fake.requests).toHaveLength(1)
  })
}

export const welcomeOptions = {
  apiKey: 'k',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' as const }] }],
}
