// TypeScript ESM consumer (module node16): typed calls against the fake over a real socket.
import assert from 'node:assert/strict'
import {
  type ApiPromise,
  type ClientOptions,
  NotificationClient,
  NotifyKitError,
  RateLimitError,
  type TriggerResult,
} from 'notifykit'
import { createFakeService, type FakeService } from 'notifykit/testing'

interface Workflows {
  welcome: { plan: 'free' | 'pro' }
}

const fake: FakeService = createFakeService({
  apiKey: 'smoke-key',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
})
const server = await fake.listen()
const options: ClientOptions = { apiKey: 'smoke-key', baseUrl: server.baseUrl, logLevel: 'off' }
const client = new NotificationClient<Workflows>(options)

const pending: ApiPromise<TriggerResult> = client.events.trigger({
  name: 'welcome',
  to: 'user-1',
  payload: { plan: 'pro' },
})
const { data, response } = await pending.withResponse()
const attempts: number = response.attempts
assert.equal(data.acknowledged, true)
assert.equal(attempts, 1)

// @ts-expect-error: the payload is checked against the Workflows map
client.events.trigger({ name: 'welcome', to: 'user-1', payload: { plan: 'gold' } }).catch(() => {})

const error: unknown = new RateLimitError(429, {}, { 'retry-after': '2' })
if (error instanceof NotifyKitError) {
  const code: string = error.code
  assert.equal(code, 'NOTIFYKIT_RATE_LIMIT')
}
await client.close()
await server.close()
console.log('TypeScript (node16, ESM) consumer compiled and ran')
