'use strict'
// Shared by main-only.cjs and main-only.mjs: with msw absent, the test kit still loads, its fake
// answers through fake.fetch, and only the msw plug-ins fail, naming the package to install.
const assert = require('node:assert/strict')

async function checkTestKitWithoutMsw(notifykit, testing) {
  const fake = testing.createFakeService({
    apiKey: 'smoke-key',
    workflows: [{ identifier: 'welcome', steps: [] }],
  })
  const viaFetch = new notifykit.NotificationClient({
    apiKey: 'smoke-key',
    baseUrl: 'https://fake.test',
    fetch: fake.fetch,
  })
  await viaFetch.events.trigger({ name: 'welcome', to: 'user-1' })
  assert.equal(fake.requests.length, 1)
  assert.throws(
    () => fake.handlers,
    (error) =>
      error.code === 'NOTIFYKIT_CONFIGURATION' &&
      /needs the msw package: npm install --save-dev msw/.test(error.message),
  )
  return 'notifykit/testing works through fake.fetch and names msw for its msw handlers'
}

module.exports = { checkTestKitWithoutMsw }
