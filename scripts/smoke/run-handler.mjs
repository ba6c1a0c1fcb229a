// Runs the esbuild bundle of handler.mjs against the fake service listening on 127.0.0.1.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createFakeService } from 'notifykit/testing'

const bundlePath = process.argv[2]
const bundle = readFileSync(bundlePath, 'utf8')
assert.doesNotMatch(bundle, /require\(["']notifykit/, 'the bundle should inline notifykit')
assert.doesNotMatch(bundle, /\bmsw\b/, 'the bundle of a handler that imports notifykit must not contain msw')
// The package imports zod the ordinary way, so a bundler sees the import and the bundle holds zod.
assert.doesNotMatch(bundle, /require\(["']zod/, 'the bundle should inline zod')

const fake = createFakeService({
  apiKey: 'smoke-key',
  workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
})
const server = await fake.listen()
process.env.NOTIFYKIT_API_KEY = 'smoke-key'
process.env.NOTIFYKIT_BASE_URL = server.baseUrl
const { handler, shutdown } = createRequire(import.meta.url)(bundlePath)
try {
  for (const userId of ['user-1', 'user-2']) {
    const result = await handler({ userId, plan: 'pro' })
    assert.equal(result.statusCode, 200, result.body)
    assert.equal(JSON.parse(result.body).attempts, 1)
  }
  // A refused event: zod's message, from the zod inside the bundle.
  const refused = await handler({ userId: '', plan: 'pro' })
  assert.deepEqual([refused.statusCode, JSON.parse(refused.body).code], [502, 'NOTIFYKIT_REQUEST_VALIDATION'])
  assert.equal(fake.notifications.length, 2)
  assert.deepEqual(
    fake.requests.map((request) => `${request.method} ${request.path}`),
    ['POST /v1/events/trigger', 'POST /v1/events/trigger'],
  )
} finally {
  await shutdown()
  await server.close()
}
console.log(
  `esbuild bundle (${Math.round(bundle.length / 1024)} KiB) ran twice and refused once against ${server.baseUrl}`,
)
