import { InternalServerError, NotificationClient } from 'notifykit'
import { createFakeService } from 'notifykit/testing'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'

const fake = createFakeService({
  apiKey: 'test-key',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'email' }] }],
})
// Your application's one client, shared by every test of the file.
const client = new NotificationClient({ apiKey: 'test-key', baseUrl: 'https://fake.test', fetch: fake.fetch })

beforeEach(() => {
  vi.useFakeTimers() // the waits between attempts run on the fake clock
})
afterEach(() => {
  fake.reset() // the fake's state, and the client's retry budget and pacing
  vi.useRealTimers()
})

/** Starts a call and runs the fake clock through its waits; resolves with its result or its error. */
async function settled<T>(call: Promise<T>): Promise<T | unknown> {
  const outcome = call.catch((error: unknown) => error)
  await vi.runAllTimersAsync()
  return outcome
}

it('retries a 503, and the notification goes out once', async () => {
  fake.failNext({ status: 503 })
  const sent = await settled(client.events.trigger({ name: 'welcome', to: 'u1' }).withResponse())
  expect(sent).toMatchObject({ response: { attempts: 2 } })
  expect(fake.notifications).toHaveLength(1)
})

it('fails after 3 attempts while the service is down', async () => {
  fake.failNext({ status: 503, times: 3 })
  const error = await settled(client.events.trigger({ name: 'welcome', to: 'u1' }))
  expect(error).toBeInstanceOf(InternalServerError)
  expect(error).toMatchObject({ status: 503, attempts: 3 })
})

it('stops retrying when the outage lasts', async () => {
  fake.failNext({ status: 503, times: 100 })
  for (let call = 0; call < 3; call++) await settled(client.events.trigger({ name: 'welcome', to: 'u1' }))
  const error = await settled(client.events.trigger({ name: 'welcome', to: 'u1' }))
  expect(error).toMatchObject({ attempts: 1, retryBudgetSpent: true })
})

it('after the outage tests, retries again: the reset renewed the budget', async () => {
  fake.failNext({ status: 503 })
  const sent = await settled(client.events.trigger({ name: 'welcome', to: 'u2' }).withResponse())
  expect(sent).toMatchObject({ response: { attempts: 2 } })
})
