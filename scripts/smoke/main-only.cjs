'use strict'
// Runs with msw absent from node_modules: `notifykit` must not need it, and must do no work on load.
const assert = require('node:assert/strict')

const realEnv = process.env
const envReads = []
const otherReads = new Set()
// Only reads made by notifykit's own files count: undici and Node itself read a few on load.
process.env = new Proxy(realEnv, {
  get(target, key, receiver) {
    if (typeof key === 'string') {
      if (/node_modules[\\/]notifykit[\\/]/.test(new Error().stack ?? '')) envReads.push(key)
      else otherReads.add(key)
    }
    return Reflect.get(target, key, receiver)
  },
})
const handlesBefore = process.getActiveResourcesInfo().length
const notifykit = require('notifykit')
const handlesAfter = process.getActiveResourcesInfo().length
const readsOnLoad = [...envReads]
// The probe works: constructing a client is what reads NOTIFYKIT_LOG (the other settings are given).
const client = new notifykit.NotificationClient({ apiKey: 'smoke-key', baseUrl: 'https://api.example.com' })
process.env = realEnv
assert.deepEqual(envReads, ['NOTIFYKIT_LOG'], 'the env probe missed the read made by the constructor')
client.close()

assert.deepEqual(readsOnLoad, [], 'require("notifykit") read the environment')
assert.equal(handlesAfter, handlesBefore, 'require("notifykit") left a handle (timer, socket) behind')
assert.equal(typeof notifykit.NotificationClient, 'function')

main().then(
  (summary) => console.log(summary),
  (error) => {
    console.error(error)
    process.exitCode = 1
  },
)

// The test kit loads without msw: the fake answers through fetch and its dispatcher, and only the msw
// plug-ins fail, naming the package to install.
async function main() {
  const { createFakeService } = require('notifykit/testing')
  const fake = createFakeService({ apiKey: 'smoke-key', workflows: [{ identifier: 'welcome', steps: [] }] })
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
  return `require("notifykit") without msw installed: notifykit read no env var (Node and undici did: ${[...otherReads].join(' ') || 'none'}), made no handle; notifykit/testing works through fake.fetch and names msw for its msw handlers`
}
