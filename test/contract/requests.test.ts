import { describe, expect, it } from 'vitest'
import type { NotificationClient, Subscriber } from '../../src/index.js'
import type { FakeService } from '../../src/testing/index.js'
import { seededFake } from '../helpers/fake.js'
import { TRANSPORTS } from '../helpers/transport.js'
import { settle } from '../helpers/wire.js'
import { unexplainedProblems } from './deliberate-differences.js'
import {
  formatProblem,
  hasRequestBody,
  OPERATION_IDS,
  queryProblems,
  requestSchemaOf,
  type SdkOperation,
} from './openapi.js'
import { recordingClient } from './wire.js'

// (a) Every request body notifykit puts on the wire for the nine operations conforms to the request
// schema the OpenAPI document gives for that operation; the operations without a request body
// (cancel, the reads) send none; every query string conforms to the operation's query parameters. Bodies are taken from the wire, as the fake received them,
// over both transports. Every request of a scenario is checked, the setup calls' included.

/** A subscriber with every field the document's SubscriberPayloadDto has. */
const everySubscriberField = {
  subscriberId: 'dave',
  email: 'dave@example.com',
  firstName: 'Dave',
  lastName: 'Lee',
  phone: '+15555550100',
  avatar: 'https://example.com/dave.png',
  locale: 'en-US',
  timezone: 'America/New_York',
  data: { plan: 'pro', seats: 3, tags: ['beta'] },
  channels: [
    {
      providerId: 'slack',
      integrationIdentifier: 'slack-main',
      credentials: { webhookUrl: 'https://hooks.example.com/T000', deviceTokens: ['token-1'] },
    },
    { providerId: 'fcm', credentials: { deviceTokens: ['token-2', 'token-3'] } },
  ],
} satisfies Subscriber

/** The actor of a trigger, as a full subscriber object. */
const everyActorField = { ...everySubscriberField, subscriberId: 'erin', email: 'erin@example.com' }

/** Provider overrides keyed by provider, the form of the document's own example. */
const providerOverrides = { fcm: { data: { key: 'value' } }, sendgrid: { templateId: 't-1' } }

/** The document's structured overrides (TriggerOverrides), every key, beside a provider-keyed one. */
const structuredOverrides = {
  steps: { 'welcome-email': { providers: { sendgrid: { ipPoolName: 'tx' } }, layoutId: null } },
  channels: { email: { layoutId: 'brand' } },
  providers: { fcm: { data: { key: 'value' } } },
  email: { from: 'news@example.com' },
  push: { title: 'Hi' },
  sms: { to: '+15555550100' },
  chat: { text: 'Hi' },
  layoutIdentifier: 'brand-v1',
  severity: 'high',
  apns: { badge: 1 },
} as const

/** `context` in both of its forms. */
const everyContextForm = { tenant: 'acme', app: { id: 'jarvis', data: { plan: 'pro' } } }

const everyWeekday = {
  monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] },
  tuesday: {
    isEnabled: true,
    hours: [
      { start: '08:00 AM', end: '12:00 PM' },
      { start: '01:00 PM', end: '06:30 PM' },
    ],
  },
  wednesday: { isEnabled: true },
  thursday: { isEnabled: false, hours: [] },
  friday: { isEnabled: true, hours: [{ start: '10:00 AM', end: '04:00 PM' }] },
  saturday: { isEnabled: false },
  sunday: { isEnabled: false },
}

interface RequestScenario {
  operation: SdkOperation
  name: string
  run(client: NotificationClient, fake: FakeService): PromiseLike<unknown>
}

/** The first notification the fake stored, after a trigger made one. */
function firstNotificationId(fake: FakeService): string {
  const notification = fake.notifications[0]
  if (!notification) throw new Error('the setup trigger made no notification')
  return notification._id
}

const SCENARIOS: RequestScenario[] = [
  // PATCH /v2/subscribers/{subscriberId}/preferences
  {
    operation: 'subscribers.preferences.update',
    name: 'minimal: an empty update',
    run: (client) => client.subscribers.preferences.update('alice', {}),
  },
  {
    operation: 'subscribers.preferences.update',
    name: 'typical: global channels',
    run: (client) =>
      client.subscribers.preferences.update('alice', { channels: { email: false, in_app: true } }),
  },
  {
    operation: 'subscribers.preferences.update',
    name: 'typical: one workflow',
    run: (client) =>
      client.subscribers.preferences.update('alice', { workflowId: 'welcome', channels: { email: false } }),
  },
  {
    operation: 'subscribers.preferences.update',
    name: 'minimal schedule',
    run: (client) => client.subscribers.preferences.update('alice', { schedule: { isEnabled: false } }),
  },
  {
    operation: 'subscribers.preferences.update',
    name: 'every optional field but workflowId (a schedule is global only): all five channels, a schedule on all seven days',
    run: (client) =>
      client.subscribers.preferences.update('alice', {
        channels: { email: true, sms: false, in_app: true, push: false, chat: true },
        schedule: { isEnabled: true, weeklySchedule: everyWeekday },
        context: everyContextForm,
      }),
  },

  // POST /v1/subscribers/{subscriberId}/messages/mark-all
  ...(['read', 'seen', 'unread', 'unseen'] as const).map(
    (markAs): RequestScenario => ({
      operation: 'subscribers.messages.markAll',
      name: `minimal: markAs ${markAs}`,
      run: (client) => client.subscribers.messages.markAll('alice', { markAs }),
    }),
  ),
  {
    operation: 'subscribers.messages.markAll',
    name: 'typical: one feed',
    run: (client) => client.subscribers.messages.markAll('alice', { markAs: 'read', feedIdentifier: 'news' }),
  },
  {
    operation: 'subscribers.messages.markAll',
    name: 'every optional field: a list of feeds',
    run: (client) =>
      client.subscribers.messages.markAll('alice', { markAs: 'seen', feedIdentifier: ['news', 'alerts'] }),
  },

  // POST /v1/events/trigger
  {
    operation: 'events.trigger',
    name: 'minimal: name and a subscriberId',
    run: (client) => client.events.trigger({ name: 'welcome', to: 'bob' }),
  },
  {
    operation: 'events.trigger',
    name: 'typical: a subscriber object and a payload',
    run: (client) =>
      client.events.trigger({
        name: 'welcome',
        to: { subscriberId: 'alice', email: 'alice@example.com' },
        payload: { orderId: 'o-42' },
      }),
  },
  {
    operation: 'events.trigger',
    name: 'a topic with exclusions',
    run: (client) =>
      client.events.trigger({ name: 'welcome', to: { type: 'Topic', topicKey: 'team', exclude: ['bob'] } }),
  },
  {
    operation: 'events.trigger',
    name: 'a list mixing the three recipient forms, actor and tenant as strings',
    run: (client) =>
      client.events.trigger({
        name: 'welcome',
        to: ['bob', { subscriberId: 'carol' }, { type: 'Topic', topicKey: 'team' }],
        actor: 'alice',
        tenant: 'acme',
      }),
  },
  {
    operation: 'events.trigger',
    name: 'every optional field',
    run: (client) =>
      client.events.trigger({
        name: 'welcome',
        to: ['bob', everySubscriberField, { type: 'Topic', topicKey: 'team', exclude: ['carol'] }],
        payload: { orderId: 'o-42', nested: { items: [1, 2, 3], flag: true, none: null } },
        overrides: structuredOverrides,
        transactionId: 'tx-every-field',
        actor: everyActorField,
        tenant: { identifier: 'acme', name: 'Acme Corp', data: { region: 'eu' } },
        context: everyContextForm,
        bridgeUrl: 'https://bridge.example.com/api/novu',
      }),
  },
  {
    operation: 'events.trigger',
    name: 'overrides keyed by provider, the document example’s form',
    run: (client) => client.events.trigger({ name: 'welcome', to: 'bob', overrides: providerOverrides }),
  },
  {
    operation: 'events.trigger',
    name: 'nullable subscriber fields null (SubscriberPayloadDto: each is nullable)',
    run: (client) =>
      client.events.trigger({
        name: 'welcome',
        to: {
          subscriberId: 'frank',
          email: null,
          firstName: null,
          lastName: null,
          phone: null,
          avatar: null,
          locale: null,
          timezone: null,
          data: null,
        },
      }),
  },

  // DELETE /v1/events/trigger/{transactionId}
  {
    operation: 'events.cancel',
    name: 'typical: a digest cancelled',
    run: async (client) => {
      await client.events.trigger({ name: 'digest', to: 'alice', transactionId: 'tx-digest' })
      return client.events.cancel('tx-digest')
    },
  },
  {
    operation: 'events.cancel',
    name: 'minimal: nothing to cancel',
    run: (client) => client.events.cancel('tx-unknown'),
  },

  // GET /v1/notifications/{notificationId}
  {
    operation: 'notifications.get',
    name: 'typical: a notification read after its trigger',
    run: async (client, fake) => {
      await client.events.trigger({ name: 'welcome', to: 'alice' })
      return client.notifications.get(firstNotificationId(fake))
    },
  },

  // POST /v1/events/trigger/bulk
  {
    operation: 'events.triggerBulk',
    name: 'minimal: one event',
    // A bulk event needs its payload: the server fails one without (a single trigger defaults it).
    run: (client) => client.events.triggerBulk([{ name: 'welcome', to: 'bob', payload: {} }]),
  },
  {
    operation: 'events.triggerBulk',
    name: 'typical: a few events',
    run: (client) =>
      client.events.triggerBulk([
        { name: 'welcome', to: 'alice', payload: { n: 1 } },
        { name: 'welcome', to: { subscriberId: 'bob' }, payload: { n: 2 } },
        { name: 'feeds', to: { type: 'Topic', topicKey: 'team' }, payload: {} },
      ]),
  },
  {
    operation: 'events.triggerBulk',
    name: 'every optional field, on each event',
    run: (client) =>
      client.events.triggerBulk([
        {
          name: 'welcome',
          to: [everySubscriberField, { type: 'Topic', topicKey: 'team', exclude: ['bob'] }, 'carol'],
          payload: { orderId: 'o-1' },
          overrides: structuredOverrides,
          transactionId: 'tx-bulk-1',
          actor: everyActorField,
          tenant: { identifier: 'acme', name: 'Acme Corp', data: { region: 'eu' } },
          context: everyContextForm,
          bridgeUrl: 'https://bridge.example.com/api/novu',
        },
        {
          name: 'welcome',
          to: 'bob',
          payload: { orderId: 'o-2' },
          overrides: providerOverrides,
          transactionId: 'tx-bulk-2',
          actor: 'alice',
          tenant: 'acme',
        },
      ]),
  },
  {
    operation: 'events.triggerBulk',
    name: '150 events: two requests of at most 100',
    run: (client) =>
      client.events.triggerBulk(
        Array.from({ length: 150 }, (_, i) => ({ name: 'welcome', to: `user-${i}`, payload: { i } })),
      ),
  },

  // GET /v1/notifications
  {
    operation: 'notifications.list',
    name: 'no filter',
    run: (client) => client.notifications.list(),
  },
  {
    operation: 'notifications.list',
    name: 'the transactionId a trigger returned',
    run: async (client) => {
      const { transactionId } = await client.events.trigger({ name: 'welcome', to: 'alice' })
      return client.notifications.list({ transactionId })
    },
  },
  {
    operation: 'notifications.list',
    name: 'every filter, lists of one and of several values, a page and a limit',
    run: (client) =>
      client.notifications.list({
        transactionId: ['tx-1', 'tx-2'],
        subscriberIds: ['alice', 'bob'],
        channels: ['email', 'in_app'],
        templates: '66f1c0ffee66f1c0ffee66f1',
        emails: ['alice@example.com'],
        severity: ['high', 'none'],
        topicKey: 'team',
        subscriptionId: 'sub-1',
        contextKeys: ['tenant:acme'],
        after: '2026-01-01T00:00:00.000Z',
        before: '2026-12-31T00:00:00.000Z',
        search: 'alice',
        page: 2,
        limit: 50,
      }),
  },
  {
    operation: 'notifications.list',
    name: 'every page of a list, iterated with for await',
    run: async (client) => {
      for (let i = 0; i < 3; i++) await client.events.trigger({ name: 'welcome', to: `user-${i}` })
      const seen: unknown[] = []
      for await (const notification of client.notifications.list({ limit: 2, channels: 'email' }))
        seen.push(notification)
      return seen
    },
  },

  // GET /v2/subscribers/{subscriberId}/preferences
  {
    operation: 'subscribers.preferences.get',
    name: 'no query',
    run: (client) => client.subscribers.preferences.get('alice'),
  },
  {
    operation: 'subscribers.preferences.get',
    name: 'criticality and context keys',
    run: (client) =>
      client.subscribers.preferences.get('alice', { criticality: 'all', contextKeys: ['tenant:acme'] }),
  },

  // POST /v1/events/trigger/broadcast
  {
    operation: 'events.broadcast',
    name: 'minimal: name and an empty payload',
    run: (client) => client.events.broadcast({ name: 'welcome', payload: {} }),
  },
  {
    operation: 'events.broadcast',
    name: 'typical: a payload, actor and tenant as strings',
    run: (client) =>
      client.events.broadcast({
        name: 'welcome',
        payload: { startsAt: '2026-12-01T22:00:00Z' },
        actor: 'alice',
        tenant: 'acme',
      }),
  },
  {
    operation: 'events.broadcast',
    name: 'every optional field',
    run: (client) =>
      client.events.broadcast({
        name: 'welcome',
        payload: { startsAt: '2026-12-01T22:00:00Z', nested: { list: ['a'] } },
        overrides: structuredOverrides,
        transactionId: 'tx-broadcast-every-field',
        actor: everyActorField,
        tenant: { identifier: 'acme', name: 'Acme Corp', data: { region: 'eu' } },
        context: everyContextForm,
      }),
  },
]

describe('request bodies on the wire conform to the OpenAPI request schemas', () => {
  it('covers the nine operations', () => {
    expect(new Set(SCENARIOS.map((scenario) => scenario.operation))).toEqual(
      new Set(Object.keys(OPERATION_IDS)),
    )
  })

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it.each(SCENARIOS.map((scenario) => [`${scenario.operation}: ${scenario.name}`, scenario] as const))(
      '%s',
      async (_, scenario) => {
        const fake = seededFake()
        const { client, exchanges } = recordingClient(fake, transport)
        const outcome = await settle(scenario.run(client, fake))

        const operationId = OPERATION_IDS[scenario.operation]
        const problems = exchanges.flatMap((exchange) => {
          const where = `${exchange.method} ${exchange.pathname}${exchange.search}`
          if (exchange.operationId === undefined) return [`${where}: no operation of the document matches`]
          const inQuery = unexplainedProblems(
            'sdk-query',
            exchange.operationId,
            undefined,
            queryProblems(exchange.operationId, exchange.search),
          ).map((problem) => `${where}: ${formatProblem(problem)}`)
          if (!hasRequestBody(exchange.operationId)) {
            return exchange.requestText === ''
              ? inQuery
              : [...inQuery, `${where}: sent a body, the operation declares none`]
          }
          const found = requestSchemaOf(exchange.operationId).problemsOf(exchange.requestBody)
          return [
            ...inQuery,
            ...unexplainedProblems('sdk-request', exchange.operationId, undefined, found).map(
              (problem) => `${where}: ${formatProblem(problem)}`,
            ),
          ]
        })

        expect({
          sdkRefused: outcome.ok ? undefined : String(outcome.error),
          sent: exchanges.some((exchange) => exchange.operationId === operationId),
          problems,
        }).toEqual({ sdkRefused: undefined, sent: true, problems: [] })
      },
    )
  })

  // A deliberate difference, tested on its own because the document's `to` is a oneOf, whose refusal
  // spreads over every branch: `channels[].credentials` is required by SubscriberChannelDto, yet the
  // server checks the object only when it is present (no presence rule on it), and an entry naming
  // an integration alone is how a subscriber is tied to one. Refusing it locally could block sends
  // the server takes, so notifykit sends it; the document refuses it.
  it.each(TRANSPORTS)(
    'a channel entry without credentials is sent, which the document refuses (%s)',
    async (transport) => {
      const fake = seededFake()
      const { client, exchanges } = recordingClient(fake, transport)
      const channels = [{ providerId: 'slack', integrationIdentifier: 'slack-main' }]
      await client.events.trigger({ name: 'welcome', to: { subscriberId: 'gina', channels } })
      const [exchange] = exchanges
      expect(exchange?.requestBody).toEqual({ name: 'welcome', to: { subscriberId: 'gina', channels } })
      const problems = requestSchemaOf('EventsController_trigger').problemsOf(exchange?.requestBody)
      expect(problems.map(formatProblem)).toContain(
        "/to/channels/0 must have required property 'credentials'",
      )
    },
  )
})
