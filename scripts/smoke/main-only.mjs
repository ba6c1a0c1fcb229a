// Runs with msw absent from node_modules: `notifykit` must not need it, and must do no work on load.
import assert from 'node:assert/strict'

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
// Timers and sockets; not the file requests Node's own module loader has in flight (a \`CloseReq\` of
// the file it just read may end during the import, or not).
const lastingHandles = () => process.getActiveResourcesInfo().filter((name) => !/Req(Callback)?$/.test(name))
const handlesBefore = lastingHandles()
const notifykit = await import('notifykit')
const handlesAfter = lastingHandles()
const readsOnLoad = [...envReads]
// The probe works: constructing a client is what reads NOTIFYKIT_LOG (the other settings are given).
const client = new notifykit.NotificationClient({ apiKey: 'smoke-key', baseUrl: 'https://api.example.com' })
process.env = realEnv
assert.deepEqual(envReads, ['NOTIFYKIT_LOG'], 'the env probe missed the read made by the constructor')
await client.close()

assert.deepEqual(readsOnLoad, [], 'import("notifykit") read the environment')
assert.deepEqual(handlesAfter, handlesBefore, 'import("notifykit") left a handle (timer, socket) behind')
assert.equal(typeof notifykit.NotificationClient, 'function')

const { checkTestKitWithoutMsw } = await import('./test-kit-without-msw.cjs')
const testKit = await checkTestKitWithoutMsw(
  notifykit,
  await import('notifykit/testing'),
  () => import('notifykit/testing/msw'),
)
console.log(
  `import("notifykit") without msw installed: notifykit read no env var (Node and undici did: ${[...otherReads].join(' ') || 'none'}), made no handle; ${testKit}`,
)
