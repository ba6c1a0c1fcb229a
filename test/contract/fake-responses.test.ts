import { describe, expect, it } from 'vitest'
import { BulkTriggerError, type NotificationClient, TriggerNotSentError } from '../../src/index.js'
import type { FakeService, FakeServiceOptions } from '../../src/testing/index.js'
import { API_KEY, seededFake } from '../helpers/fake.js'
import { TRANSPORTS } from '../helpers/transport.js'
import { unexplainedProblems } from './deliberate-differences.js'
import { formatProblem, OPERATION_IDS, responseSchemaOf, type SdkOperation, unwrapData } from './openapi.js'
import { BASE_URL, type Exchange, recordingClient } from './wire.js'

// (b) Every body the fake answers for the nine operations conforms to the OpenAPI document's schema
// for that operation and status (a success body once its `{ data }` envelope is removed; an error
// body as it is), and every status it answers is one the document lists for the operation. The fake
// is driven through the SDK over both transports (and, for bodies the SDK would refuse to send,
// straight at its door), in states that make it return each shape it has: notifications with jobs of
// every step type, digests and delays waiting and cancelled, topics, preferences with workflows and a
// schedule, each trigger status, and the errors of each operation.

interface Tools {
  client: NotificationClient
  fake: FakeService
  /** A request straight to the fake (recorded like the SDK's), for what the SDK would not send. */
  raw(method: string, path: string, body?: unknown): Promise<Response>
  /** A client of the same fake with another API key. */
  clientWithKey(apiKey: string): NotificationClient
}

interface ResponseScenario {
  name: string
  fake?: FakeServiceOptions
  run(tools: Tools): Promise<void>
  /** The operation and status of each exchange, in order: the scenario did what it says. */
  expected: [SdkOperation, number][]
}

/** Runs a call whose failure is the point (an error status), or does not matter here. */
async function anyOutcome(promise: PromiseLike<unknown>): Promise<void> {
  try {
    await promise
  } catch {
    // The exchange is recorded; its body is what is checked.
  }
}

function notificationIds(fake: FakeService): string[] {
  return fake.notifications.map((notification) => notification._id)
}

async function getAll(client: NotificationClient, fake: FakeService): Promise<void> {
  for (const id of notificationIds(fake)) await client.notifications.get(id)
}

/** Workflows beyond the seeded ones: every step type, a payload schema, inactive, empty. */
const extraWorkflows: FakeServiceOptions['workflows'] = [
  {
    identifier: 'every-step',
    name: 'Every step type',
    tags: ['billing', 'weekly'],
    severity: 'high',
    payloadSchema: {
      required: ['orderId'],
      properties: { orderId: { type: 'string' }, total: { type: 'number' } },
    },
    steps: [
      { type: 'in_app', stepId: 'inbox', feedIdentifier: 'news' },
      { type: 'email', providerId: 'postmark' },
      { type: 'sms' },
      { type: 'chat' },
      { type: 'push' },
      { type: 'custom' },
      { type: 'http_request' },
      { type: 'throttle' },
      { type: 'trigger' },
      { type: 'digest', amount: 2, unit: 'minutes', digestKey: 'orderId' },
      { type: 'email', stepId: 'after-digest' },
    ],
  },
  { identifier: 'inactive', active: false, steps: [{ type: 'email' }] },
  { identifier: 'empty', steps: [] },
]

const SCENARIOS: ResponseScenario[] = [
  {
    name: 'a processed trigger and its notification (in_app and email completed)',
    run: async ({ client, fake }) => {
      await client.events.trigger({ name: 'welcome', to: 'alice', payload: { orderId: 'o-1' } })
      await getAll(client, fake)
    },
    expected: [
      ['events.trigger', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'a digest waiting, cancelled, then nothing left to cancel; its notification at each stage',
    run: async ({ client, fake }) => {
      await client.events.trigger({ name: 'digest', to: 'alice', transactionId: 'tx-digest' })
      await getAll(client, fake)
      await client.events.cancel('tx-digest')
      await getAll(client, fake)
      await client.events.cancel('tx-digest')
    },
    expected: [
      ['events.trigger', 201],
      ['notifications.get', 200],
      ['events.cancel', 200],
      ['notifications.get', 200],
      ['events.cancel', 200],
    ],
  },
  {
    name: 'a delay waiting and its notification',
    run: async ({ client, fake }) => {
      await client.events.trigger({ name: 'delayed', to: 'bob' })
      await getAll(client, fake)
    },
    expected: [
      ['events.trigger', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'a topic with an actor: notifications with topics',
    run: async ({ client, fake }) => {
      await client.events.trigger({
        name: 'feeds',
        to: { type: 'Topic', topicKey: 'team', exclude: ['carol'] },
        actor: 'alice',
      })
      await getAll(client, fake)
    },
    expected: [
      ['events.trigger', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'a subscriber object with every field: its notification',
    fake: { tenants: [{ identifier: 'acme' }] },
    run: async ({ client, fake }) => {
      await client.events.trigger({
        name: 'welcome',
        to: {
          subscriberId: 'dave',
          email: 'dave@example.com',
          firstName: 'Dave',
          lastName: 'Lee',
          phone: '+15555550100',
          avatar: 'https://example.com/dave.png',
          locale: 'en-US',
          timezone: 'America/New_York',
          data: { plan: 'pro' },
          channels: [{ providerId: 'slack', credentials: { webhookUrl: 'https://hooks.example.com/T000' } }],
        },
        tenant: { identifier: 'acme' },
      })
      await getAll(client, fake)
    },
    expected: [
      ['events.trigger', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'a channel switched off: preferences, then a notification with a skipped job',
    run: async ({ client, fake }) => {
      await client.subscribers.preferences.update('alice', { channels: { email: false } })
      await client.events.trigger({ name: 'welcome', to: 'alice' })
      await getAll(client, fake)
    },
    expected: [
      ['subscribers.preferences.update', 200],
      ['events.trigger', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'every step type, tags, severity, payload variables, a digest with a key: the notification',
    fake: { workflows: extraWorkflows },
    run: async ({ client, fake }) => {
      await client.events.trigger({
        name: 'every-step',
        to: 'alice',
        payload: { orderId: 'o-7', total: 12.5 },
      })
      await getAll(client, fake)
    },
    expected: [
      ['events.trigger', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'a critical workflow: the notification',
    run: async ({ client, fake }) => {
      await client.events.trigger({ name: 'security', to: 'bob' })
      await getAll(client, fake)
    },
    expected: [
      ['events.trigger', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'trigger statuses: trigger_not_active, a workflow without steps (processed), a repeated transactionId',
    fake: { workflows: extraWorkflows },
    run: async ({ client }) => {
      // Answered 201 with a status that says nothing was sent: the SDK rejects, the body is recorded.
      await expect(client.events.trigger({ name: 'inactive', to: 'alice' })).rejects.toBeInstanceOf(
        TriggerNotSentError,
      )
      await client.events.trigger({ name: 'empty', to: 'alice' })
      await client.events.trigger({
        name: 'every-step',
        to: 'alice',
        payload: { orderId: 'o' },
        transactionId: 'tx-1',
      })
      await client.events.trigger({
        name: 'every-step',
        to: 'bob',
        payload: { orderId: 'o' },
        transactionId: 'tx-1',
      })
    },
    expected: [
      ['events.trigger', 201],
      ['events.trigger', 201],
      ['events.trigger', 201],
      ['events.trigger', 201],
    ],
  },
  {
    name: 'a bulk trigger: processed events and one for an unknown workflow',
    run: async ({ client }) => {
      const bulk = client.events.triggerBulk([
        { name: 'welcome', to: 'alice', payload: {} },
        { name: 'no-such-workflow', to: 'bob', payload: {} },
        { name: 'digest', to: { type: 'Topic', topicKey: 'team' }, payload: {} },
        // Without a payload, the event fails on its own.
        { name: 'welcome', to: 'alice' },
      ])
      await expect(bulk).rejects.toBeInstanceOf(BulkTriggerError)
    },
    expected: [['events.triggerBulk', 201]],
  },
  {
    name: 'a broadcast',
    run: async ({ client, fake }) => {
      await client.events.broadcast({ name: 'welcome', payload: { startsAt: 'now' } })
      await client.notifications.get(notificationIds(fake)[0] ?? 'none')
    },
    expected: [
      ['events.broadcast', 201],
      ['notifications.get', 200],
    ],
  },
  {
    name: 'preferences: untouched, global channels, per workflow, a weekly schedule',
    run: async ({ client }) => {
      await client.subscribers.preferences.update('bob', {})
      await client.subscribers.preferences.update('alice', { channels: { sms: false, chat: true } })
      await client.subscribers.preferences.update('alice', {
        workflowId: 'welcome',
        channels: { in_app: false, email: true },
      })
      await client.subscribers.preferences.update('alice', {
        schedule: {
          isEnabled: true,
          weeklySchedule: {
            monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] },
            saturday: { isEnabled: false },
          },
        },
      })
    },
    expected: [
      ['subscribers.preferences.update', 200],
      ['subscribers.preferences.update', 200],
      ['subscribers.preferences.update', 200],
      ['subscribers.preferences.update', 200],
    ],
  },
  {
    name: 'mark-all: messages changed, then none',
    run: async ({ client }) => {
      await client.events.trigger({ name: 'feeds', to: 'alice' })
      await client.subscribers.messages.markAll('alice', {
        markAs: 'read',
        feedIdentifier: ['news', 'alerts'],
      })
      await client.subscribers.messages.markAll('alice', {
        markAs: 'read',
        feedIdentifier: ['news', 'alerts'],
      })
    },
    expected: [
      ['events.trigger', 201],
      ['subscribers.messages.markAll', 201],
      ['subscribers.messages.markAll', 201],
    ],
  },

  {
    name: 'reading back: notifications listed by transactionId, subscriber and channel, every page, an empty page',
    run: async ({ client }) => {
      const { transactionId } = await client.events.trigger({ name: 'welcome', to: ['alice', 'bob'] })
      await client.events.trigger({ name: 'delayed', to: 'alice' })
      await client.events.trigger({ name: 'feeds', to: { type: 'Topic', topicKey: 'team' } })
      await client.notifications.list({ transactionId })
      for await (const _ of client.notifications.list({ subscriberIds: ['alice'], limit: 1 })) {
        // every page
      }
      await client.notifications.list({ channels: ['sms'], severity: 'none' })
      await client.notifications.list({ subscriberIds: 'nobody' })
      await client.notifications.list({ topicKey: 'team', page: 3 })
    },
    expected: [
      ['events.trigger', 201],
      ['events.trigger', 201],
      ['events.trigger', 201],
      ['notifications.list', 200],
      ['notifications.list', 200],
      ['notifications.list', 200],
      ['notifications.list', 200],
      ['notifications.list', 200],
      ['notifications.list', 200],
      ['notifications.list', 200],
      ['notifications.list', 200],
    ],
  },
  {
    name: 'reading preferences: untouched, after an update, every criticality',
    run: async ({ client }) => {
      await client.subscribers.preferences.get('bob')
      await client.subscribers.preferences.update('alice', {
        channels: { sms: false },
        schedule: { isEnabled: true, weeklySchedule: { monday: { isEnabled: true } } },
      })
      await client.subscribers.preferences.get('alice')
      await client.subscribers.preferences.get('alice', { criticality: 'critical' })
      await client.subscribers.preferences.get('alice', { criticality: 'all', contextKeys: 'tenant:acme' })
    },
    expected: [
      ['subscribers.preferences.get', 200],
      ['subscribers.preferences.update', 200],
      ['subscribers.preferences.get', 200],
      ['subscribers.preferences.get', 200],
      ['subscribers.preferences.get', 200],
    ],
  },

  // Errors of each operation.
  {
    name: 'errors: unknown notification, subscriber, workflow; a critical workflow’s preferences',
    run: async ({ client }) => {
      await anyOutcome(client.notifications.get('000000000000000000000000'))
      await anyOutcome(client.notifications.get('no-such-notification'))
      await anyOutcome(client.subscribers.preferences.update('nobody', { channels: { email: true } }))
      await anyOutcome(client.subscribers.preferences.update('alice', { workflowId: 'no-such-workflow' }))
      await anyOutcome(client.subscribers.preferences.update('alice', { workflowId: 'security' }))
      await anyOutcome(client.subscribers.messages.markAll('nobody', { markAs: 'read' }))
    },
    expected: [
      ['notifications.get', 404],
      ['notifications.get', 422],
      ['subscribers.preferences.update', 404],
      ['subscribers.preferences.update', 404],
      ['subscribers.preferences.update', 400],
      ['subscribers.messages.markAll', 404],
    ],
  },
  {
    name: 'errors: a trigger and a broadcast of an unknown workflow, a payload the workflow’s schema refuses',
    fake: { workflows: extraWorkflows },
    run: async ({ client }) => {
      await anyOutcome(client.events.trigger({ name: 'no-such-workflow', to: 'alice' }))
      await anyOutcome(client.events.broadcast({ name: 'no-such-workflow', payload: {} }))
      await anyOutcome(client.events.trigger({ name: 'every-step', to: 'alice', payload: { total: 'x' } }))
    },
    expected: [
      ['events.trigger', 422],
      ['events.broadcast', 422],
      ['events.trigger', 400],
    ],
  },
  {
    name: 'errors: bodies the server’s validation refuses (sent straight to the fake)',
    run: async ({ raw }) => {
      await raw('POST', '/v1/events/trigger', { name: 'welcome' })
      await raw('POST', '/v1/events/trigger/bulk', { events: [] })
      await raw('POST', '/v1/events/trigger/broadcast', { name: 'welcome' })
      await raw('POST', '/v1/subscribers/alice/messages/mark-all', { markAs: 'archived' })
      await raw('PATCH', '/v2/subscribers/alice/preferences', { channels: { email: 'no' } })
      await raw('PATCH', '/v2/subscribers/alice/preferences', {
        schedule: { isEnabled: true, weeklySchedule: {} },
      })
      await raw('GET', '/v1/notifications/not-an-id')
      await raw('GET', '/v1/notifications?limit=51&page=-1')
      await raw('GET', '/v1/notifications?channels=fax&templates=welcome')
      await raw('GET', '/v1/notifications?after=yesterday')
      await raw('GET', '/v1/notifications?after=2026-02-01&before=2026-01-01')
      await raw('GET', '/v2/subscribers/alice/preferences?criticality=high')
    },
    expected: [
      ['events.trigger', 422],
      ['events.triggerBulk', 422],
      ['events.broadcast', 422],
      ['subscribers.messages.markAll', 422],
      ['subscribers.preferences.update', 422],
      ['subscribers.preferences.update', 422],
      ['notifications.get', 422],
      ['notifications.list', 422],
      ['notifications.list', 422],
      ['notifications.list', 400],
      ['notifications.list', 400],
      ['subscribers.preferences.get', 422],
    ],
  },
  {
    name: 'errors: preferences of an unknown subscriber',
    run: async ({ client }) => {
      await anyOutcome(client.subscribers.preferences.get('nobody'))
    },
    expected: [['subscribers.preferences.get', 404]],
  },
  {
    name: 'errors: a wrong API key',
    run: async ({ clientWithKey }) => {
      await anyOutcome(clientWithKey('wrong-key').events.trigger({ name: 'welcome', to: 'alice' }))
    },
    expected: [['events.trigger', 401]],
  },
  {
    name: "a missing notification, the fake in `missingNotification: 'null'` mode",
    fake: { missingNotification: 'null' },
    run: async ({ client }) => {
      await anyOutcome(client.notifications.get('000000000000000000000000'))
    },
    expected: [['notifications.get', 200]],
  },
]

/** The problems of one exchange's response against the document. */
function responseProblems(exchange: Exchange): string[] {
  const where = `${exchange.method} ${exchange.pathname} → ${exchange.status}`
  if (exchange.operationId === undefined) return [`${where}: no operation of the document matches`]
  let validator: ReturnType<typeof responseSchemaOf>
  try {
    validator = responseSchemaOf(exchange.operationId, exchange.status)
  } catch (error) {
    return [`${where}: ${(error as Error).message}`]
  }
  let body = exchange.responseBody
  if (exchange.status >= 200 && exchange.status < 300) {
    try {
      body = unwrapData(body)
    } catch (error) {
      return [`${where}: ${(error as Error).message}`]
    }
  }
  const problems = validator.problemsOf(body)
  return unexplainedProblems('fake-response', exchange.operationId, exchange.status, problems).map(
    (problem) => `${where}: ${formatProblem(problem)}`,
  )
}

const operationOfId = Object.fromEntries(
  Object.entries(OPERATION_IDS).map(([operation, operationId]) => [operationId, operation]),
) as Record<string, SdkOperation>

describe('bodies the fake answers conform to the OpenAPI response schemas', () => {
  it('covers the nine operations', () => {
    expect(
      new Set(SCENARIOS.flatMap((scenario) => scenario.expected.map(([operation]) => operation))),
    ).toEqual(new Set(Object.keys(OPERATION_IDS)))
  })

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it.each(SCENARIOS.map((scenario) => [scenario.name, scenario] as const))('%s', async (_, scenario) => {
      const fake = seededFake(scenario.fake)
      const { client, exchanges, handle } = recordingClient(fake, transport)
      await scenario.run({
        client,
        fake,
        raw: (method, path, body) =>
          handle(
            new Request(`${BASE_URL}${path}`, {
              method,
              headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' },
              body: body === undefined ? undefined : JSON.stringify(body),
            }),
          ),
        clientWithKey: (apiKey) => recordingClient(fake, transport, { apiKey }, exchanges).client,
      })

      expect({
        exchanges: exchanges.map((exchange) => [
          exchange.operationId && operationOfId[exchange.operationId],
          exchange.status,
        ]),
        problems: exchanges.flatMap(responseProblems),
      }).toEqual({ exchanges: scenario.expected, problems: [] })
    })
  })
})
