// TypeScript CommonJS consumer (module node16): `import` compiles to require() of the CJS build.
import assert = require('node:assert/strict')

import { type Logger, NotificationClient, type RequestOptions } from 'notifykit'
import type { FakeService } from 'notifykit/testing'
import { MockAgent } from 'undici'

const lines: string[] = []
const logger: Logger = {
  debug: (message) => lines.push(message),
  info: (message) => lines.push(message),
  warn: (message) => lines.push(message),
  error: (message) => lines.push(message),
}

// The testing entry's CommonJS types resolve too (type-only: nothing is loaded at run time).
export type Recorded = FakeService['requests']

async function main(): Promise<void> {
  const agent = new MockAgent()
  agent.disableNetConnect()
  agent
    .get('https://api.example.com')
    .intercept({ path: '/v1/events/trigger', method: 'POST' })
    .reply(
      201,
      { data: { acknowledged: true, status: 'processed' } },
      { headers: { 'x-request-id': 'req-1' } },
    )
  const client = new NotificationClient({
    apiKey: 'smoke-key',
    baseUrl: 'https://api.example.com',
    dispatcher: agent,
    logger,
    logLevel: 'debug',
  })
  const options: RequestOptions = { idempotencyKey: 'smoke-welcome-user-1', deadlineMs: 5_000 }
  const result = await client.events.trigger({ name: 'welcome', to: 'user-1' }, options)
  assert.equal(result.acknowledged, true)
  assert.equal(lines.length, 1)
  assert.match(
    lines[0] ?? '',
    /^notifykit: POST \/v1\/events\/trigger 201 in \d+ ms \(attempt 1, request req-1\)$/,
  )
  // @ts-expect-error: maxRetries is a number
  const invalid: RequestOptions = { maxRetries: 'twice' }
  assert.ok(invalid)
  await agent.close()
}

main().then(
  () => console.log('TypeScript (node16, CommonJS) consumer compiled and ran'),
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  },
)
