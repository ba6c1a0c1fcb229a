import { NotificationClient } from '../../src/index.js'
import { createFakeService, type FakeService, type FakeServiceOptions } from '../../src/testing/index.js'
import type { TransportName } from './transport.js'
import type { Connection } from './wire.js'

export const API_KEY = 'test-key'

/** The workflows most tests need: plain channels, a digest, a delay, a critical one and feeds. */
export function seededFake(overrides: FakeServiceOptions = {}): FakeService {
  return createFakeService({
    apiKey: API_KEY,
    workflows: [
      { identifier: 'welcome', name: 'Welcome', steps: [{ type: 'in_app' }, { type: 'email' }] },
      {
        identifier: 'feeds',
        steps: [
          { type: 'in_app', stepId: 'news', feedIdentifier: 'news' },
          { type: 'in_app', stepId: 'alerts', feedIdentifier: 'alerts' },
          { type: 'in_app', stepId: 'plain' },
        ],
      },
      {
        identifier: 'digest',
        steps: [{ type: 'in_app' }, { type: 'digest', amount: 10 }, { type: 'email' }],
      },
      { identifier: 'delayed', steps: [{ type: 'delay', amount: 5 }, { type: 'sms' }] },
      { identifier: 'security', name: 'Security alert', critical: true, steps: [{ type: 'email' }] },
    ],
    subscribers: [
      { subscriberId: 'alice', email: 'alice@example.com', firstName: 'Alice' },
      { subscriberId: 'bob' },
    ],
    topics: [{ topicKey: 'team', subscribers: ['alice', 'bob', 'carol'] }],
    tenants: [{ identifier: 'acme', name: 'Acme Corp' }],
    ...overrides,
  })
}

/** How the SDK reaches `fake` in memory over the named transport: the fake's own fetch, or its dispatcher. */
export function fakeConnection(fake: FakeService, transport: TransportName): Connection {
  return transport === 'fetch' ? { fetch: fake.fetch } : { dispatcher: fake.dispatcher }
}

export interface CallResult {
  status: number
  headers: Headers
  body: unknown
}

/** Sends one request straight to `fake.handle`, authenticated unless headers say otherwise. */
export async function call(
  fake: FakeService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<CallResult> {
  const response = await fake.handle(
    new Request(`https://fake.test${path}`, {
      method,
      headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
  const text = await response.text()
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as unknown) : undefined,
  }
}

/** The `data` of a `{ data }` body. */
export function data(result: CallResult): unknown {
  return (result.body as { data: unknown }).data
}

/** The seeded fake and the SDK over its `fake.fetch`, as a user's test builds them. */
export function fakeWithClient(options?: FakeServiceOptions): {
  fake: FakeService
  client: NotificationClient
} {
  const fake = seededFake(options)
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://fake.test',
    fetch: fake.fetch,
    logLevel: 'off',
  })
  return { fake, client }
}
