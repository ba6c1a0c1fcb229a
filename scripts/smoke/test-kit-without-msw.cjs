'use strict'
// Shared by main-only.cjs and main-only.mjs: with msw absent, the test kit still loads, its fake
// answers through fake.fetch, and only the msw plug-ins' entry fails, naming msw.
const assert = require('node:assert/strict')

/**
 * @param loadMswPlugins Loads notifykit/testing/msw as the caller does: `require()`, or `import()`,
 *   whose own error for a missing package names it.
 */
async function checkTestKitWithoutMsw(notifykit, testing, loadMswPlugins) {
  const fake = testing.createFakeService({
    apiKey: 'smoke-key',
    workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
  })
  const viaFetch = new notifykit.NotificationClient({
    apiKey: 'smoke-key',
    baseUrl: 'https://fake.test',
    fetch: fake.fetch,
  })
  await viaFetch.events.trigger({ name: 'welcome', to: 'user-1' })
  assert.equal(fake.requests.length, 1)
  await assert.rejects(
    async () => loadMswPlugins(),
    (error) =>
      /^notifykit\/testing\/msw needs the msw package: npm install --save-dev msw$/.test(error.message) ||
      (error.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package 'msw'/.test(error.message)),
  )
  return 'notifykit/testing works through fake.fetch; notifykit/testing/msw names msw'
}

module.exports = { checkTestKitWithoutMsw }
