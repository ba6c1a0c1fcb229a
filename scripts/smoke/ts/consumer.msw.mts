// TypeScript ESM consumer (module node16) of notifykit/testing/msw: the client on undici, answered by
// the fake through msw. msw's own types need lib DOM (smoke.sh allows errors inside them alone); an
// ES module import of msw works on every supported Node, 20.18.1 included.
import assert from 'node:assert/strict'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { NotificationClient } from 'notifykit'
import { createFakeService } from 'notifykit/testing'
import { createMswDispatcher, fakeHandlers, type MswDispatcherOptions } from 'notifykit/testing/msw'

const fake = createFakeService({
  apiKey: 'smoke-key',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
})
const server = setupServer(...fakeHandlers(fake))
const options: MswDispatcherOptions = { onUnhandledRequest: 'error' }
const client = new NotificationClient({
  apiKey: 'smoke-key',
  baseUrl: 'https://fake.test',
  dispatcher: createMswDispatcher(server, options),
  logLevel: 'off',
})

assert.equal((await client.events.trigger({ name: 'welcome', to: 'user-1' })).status, 'processed')
server.use(http.post('*/v1/events/trigger', () => HttpResponse.json({}, { status: 400 })))
await assert.rejects(client.events.trigger({ name: 'welcome', to: 'user-2' }), { name: 'BadRequestError' })
assert.equal(fake.notifications.length, 1)
console.log('TypeScript (node16, ESM) consumer of notifykit/testing/msw compiled and ran, msw included')
