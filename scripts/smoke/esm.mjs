// An ESM consumer: import both entries from the tarball, and make a call over a real socket.
import assert from 'node:assert/strict'
import { ApiError, NotificationClient, NotifyKitError, VERSION } from 'notifykit'
import { createFakeService } from 'notifykit/testing'

assert.match(import.meta.resolve('notifykit'), /dist\/index\.js$/)
assert.match(import.meta.resolve('notifykit/testing'), /dist\/testing\.js$/)
assert.match(VERSION, /^\d+\.\d+\.\d+/)
assert.ok(new ApiError(500, {}, {}) instanceof NotifyKitError)

const fake = createFakeService({
  apiKey: 'smoke-key',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
})
const server = await fake.listen()
assert.match(server.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
const client = new NotificationClient({ apiKey: 'smoke-key', baseUrl: server.baseUrl })
try {
  const { data, response } = await client.events
    .trigger({ name: 'welcome', to: 'user-1', payload: { plan: 'pro' } })
    .withResponse()
  assert.equal(data.acknowledged, true)
  assert.equal(response.status, 201)
  assert.equal(response.attempts, 1)
  assert.equal(fake.notifications.length, 1)
  const wrongKey = client.withOptions({ apiKey: 'not-the-key' })
  const error = await wrongKey.events.trigger({ name: 'welcome', to: 'user-1' }).then(
    () => assert.fail('a wrong key must fail'),
    (failure) => failure,
  )
  assert.equal(error.name, 'AuthenticationError')
  assert.equal(error.status, 401)
} finally {
  await client.close()
  await server.close()
}
console.log(`import of notifykit and notifykit/testing, calls over 127.0.0.1 (${server.baseUrl})`)
