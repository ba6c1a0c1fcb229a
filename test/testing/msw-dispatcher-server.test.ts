import { HttpResponse, http, ws } from 'msw'
import { setupServer } from 'msw/node'
import { InternalServerError, NotificationClient } from 'notifykit'
import { createFakeService } from 'notifykit/testing'
import { createMswDispatcher, fakeHandlers } from 'notifykit/testing/msw'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { welcomeOptions } from './msw-server-suite.js'

// Apps on the default undici transport, which msw does not intercept: createMswDispatcher(server)
// reads the server's handlers on every request, so msw's per-test overrides reach the client too.
describe('createMswDispatcher(server): msw overrides through undici', () => {
  const fake = createFakeService(welcomeOptions)
  // A WebSocket handler in the same server, as apps with one have: it is not an HTTP answer.
  const chat = ws.link('wss://chat.test').addEventListener('connection', () => {})
  const server = setupServer(chat, ...fakeHandlers(fake))
  const client = new NotificationClient({
    apiKey: 'k',
    baseUrl: 'https://fake.test',
    dispatcher: createMswDispatcher(server, { onUnhandledRequest: 'error' }),
    maxRetries: 0,
    logLevel: 'off',
  })

  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
  afterEach(() => {
    server.resetHandlers()
    fake.reset()
  })
  afterAll(() => server.close())

  it('answers from the fake', async () => {
    const { transactionId } = await client.events.trigger({ name: 'welcome', to: 'alice' })
    expect(fake.notifications.map((n) => n.transactionId)).toEqual([transactionId])
  })

  it('lets a server.use() override answer for this test', async () => {
    server.use(http.post('*/v1/events/trigger', () => HttpResponse.json({}, { status: 503 })))
    await expect(client.events.trigger({ name: 'welcome', to: 'alice' })).rejects.toBeInstanceOf(
      InternalServerError,
    )
    expect(fake.requests).toEqual([])
    await expect(client.notifications.get('000000000000000000000000')).rejects.toMatchObject({ status: 404 })
    expect(fake.requests).toHaveLength(1)
  })

  it('answers from the fake again after server.resetHandlers()', async () => {
    await client.events.trigger({ name: 'welcome', to: 'bob' })
    expect(fake.notifications).toHaveLength(1)
  })
})
