'use strict'
// A CommonJS consumer (a NestJS app, a plain Node script): require() the entries from the tarball.
const assert = require('node:assert/strict')
const { sep } = require('node:path')
const { MockAgent } = require('undici')

const notifykit = require('notifykit')
const { NotificationClient, NotifyKitError, ApiError, RateLimitError, VERSION } = notifykit

assert.match(require.resolve('notifykit'), /dist[\\/]index\.cjs$/)
assert.equal(VERSION, require('notifykit/package.json').version)
assert.ok(new RateLimitError(429, {}, {}) instanceof ApiError)
assert.ok(new RateLimitError(429, {}, {}) instanceof NotifyKitError)
const loadedMsw = Object.keys(require.cache).filter((file) => file.includes(`${sep}msw${sep}`))
assert.deepEqual(loadedMsw, [], 'require("notifykit") loaded msw')

const TRIGGER_RESULT = { data: { acknowledged: true, status: 'processed', transactionId: 'tx-1' } }

// The application's own undici (a MockAgent here) works as the client's dispatcher.
async function callThroughMockAgent() {
  const agent = new MockAgent()
  agent.disableNetConnect()
  agent
    .get('https://api.example.com')
    .intercept({ path: '/v1/events/trigger', method: 'POST' })
    .reply(201, TRIGGER_RESULT, { headers: { 'content-type': 'application/json' } })
  const client = new NotificationClient({
    apiKey: 'smoke-key',
    baseUrl: 'https://api.example.com',
    dispatcher: agent,
  })
  const result = await client.events.trigger({ name: 'welcome', to: 'user-1' })
  assert.deepEqual(result, TRIGGER_RESULT.data)
  await agent.close()
}

/** The fake both calls go through: the smoke key, one `welcome` workflow. */
function welcomeFake() {
  const { createFakeService } = require('notifykit/testing')
  return createFakeService({
    apiKey: 'smoke-key',
    workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
  })
}

async function callThroughFake() {
  assert.match(require.resolve('notifykit/testing'), /dist[\\/]testing\.cjs$/)
  const fake = welcomeFake()
  const client = new NotificationClient({
    apiKey: 'smoke-key',
    baseUrl: 'https://fake.test',
    dispatcher: fake.dispatcher,
  })
  const result = await client.events.trigger({ name: 'welcome', to: 'user-1', payload: { plan: 'pro' } })
  assert.equal(result.status, 'processed')
  assert.equal(fake.notifications.length, 1)
  await client.close()
}

async function callThroughMsw() {
  const { createMswDispatcher, fakeHandlers } = require('notifykit/testing/msw')
  assert.match(require.resolve('notifykit/testing/msw'), /dist[\\/]testing[\\/]msw\.cjs$/)
  const fake = welcomeFake()
  const client = new NotificationClient({
    apiKey: 'smoke-key',
    baseUrl: 'https://fake.test',
    dispatcher: createMswDispatcher(fakeHandlers(fake), { onUnhandledRequest: 'error' }),
  })
  const result = await client.events.trigger({ name: 'welcome', to: 'user-1' })
  assert.equal(result.status, 'processed')
  assert.equal(fake.notifications.length, 1)
}

async function main() {
  await callThroughMockAgent()
  await callThroughFake()
  if (process.features.require_module) {
    await callThroughMsw()
    return 'require() of notifykit (call through a MockAgent), notifykit/testing (call through the fake) and notifykit/testing/msw (the fake through msw)'
  }
  // msw's CommonJS build requires an ESM-only package (rettime), which needs require(esm): Node
  // 20.19+ / 22.12+. Before that, only the msw plug-ins' entry fails, and says why.
  assert.throws(
    () => require('notifykit/testing/msw'),
    (error) => error.code === 'NOTIFYKIT_CONFIGURATION' && /Node 20\.19\+/.test(error.message),
  )
  return 'require() of notifykit (call through a MockAgent) and notifykit/testing (call through the fake); notifykit/testing/msw needs require(esm) (Node 20.19+)'
}

main().then(
  (summary) => console.log(summary),
  (error) => {
    console.error(error)
    process.exitCode = 1
  },
)
