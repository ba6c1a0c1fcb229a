import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { NotificationClient, RateLimitError } from 'notifykit'
import { createFakeService } from 'notifykit/testing'
import { fakeHandlers } from 'notifykit/testing/msw'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'

// Your application code: its client sends through the global fetch, which msw intercepts.
const client = new NotificationClient({
  apiKey: 'test-key',
  baseUrl: 'https://notify.example.com',
  fetch: globalThis.fetch,
})

async function onSignup(user: { id: string; email: string }) {
  return client.events.trigger({ name: 'welcome', to: { subscriberId: user.id, email: user.email } })
}

// Your tests: the fake service behind msw, and msw's own overrides per test.
const fake = createFakeService({
  apiKey: 'test-key',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] }],
})
const server = setupServer(...fakeHandlers(fake))

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => {
  server.resetHandlers()
  fake.reset()
})
afterAll(() => server.close())

it('sends the welcome notification on signup', async () => {
  await onSignup({ id: 'u1', email: 'u1@example.com' })

  expect(fake.notifications).toHaveLength(1)
  expect(fake.notifications[0]?.subscriber).toMatchObject({ subscriberId: 'u1', email: 'u1@example.com' })
})

it('reports the rate limit, and sends nothing', async () => {
  server.use(
    http.post('*/v1/events/trigger', () =>
      HttpResponse.json(
        { message: 'API rate limit exceeded' },
        { status: 429, headers: { 'retry-after': '120' } },
      ),
    ),
  )

  await expect(onSignup({ id: 'u2', email: 'u2@example.com' })).rejects.toBeInstanceOf(RateLimitError)
  expect(fake.notifications).toHaveLength(0)
})

it('retries a 503, and the retry sends the notification once', async () => {
  // The 429 override above is gone (server.resetHandlers); this one answers the first attempt only.
  server.use(http.post('*/v1/events/trigger', () => HttpResponse.json({}, { status: 503 }), { once: true }))

  const result = await onSignup({ id: 'u3', email: 'u3@example.com' })

  expect(result.status).toBe('processed')
  expect(fake.notifications).toHaveLength(1)
  expect(fake.requests).toHaveLength(1) // the 503 never reached the fake; the retry did
})
