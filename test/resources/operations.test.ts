import { readFileSync } from 'node:fs'
import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import {
  NotFoundError,
  type Notification,
  NotifyKitError,
  type Preferences,
  RequestValidationError,
  type TriggerResult,
} from '../../src/index.js'
import {
  API_KEY,
  answeringClient,
  json,
  mswClient,
  onlyRequest,
  rejectionOf,
  type SeenRequest,
  UUID,
} from '../helpers/wire.js'

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

/** The headers every request carries, and the two that depend on the operation. */
function expectStandardHeaders(
  request: SeenRequest,
  expected: { body: boolean; idempotent: boolean; idempotencyKey?: RegExp },
) {
  expect(request.headers.authorization).toBe(`ApiKey ${API_KEY}`)
  expect(request.headers.accept).toBe('application/json')
  expect(request.headers['user-agent']).toMatch(
    new RegExp(`^notifykit/${version.replaceAll('.', '\\.')}( |$)`),
  )
  if (expected.body) expect(request.headers['content-type']).toBe('application/json')
  else expect(request.headers['content-type']).toBeUndefined()
  if (expected.idempotent) expect(request.headers['idempotency-key']).toMatch(expected.idempotencyKey ?? UUID)
  else expect(request.headers['idempotency-key']).toBeUndefined()
}

// Response fixtures: wire names, fields the schemas do not know, and content the official SDK drops.
const triggerResult = {
  acknowledged: true,
  status: 'processed',
  transactionId: 'tx-1',
  activityFeedLink: 'https://dashboard.test/activities?transactionId=tx-1',
  jobData: { workflowId: 'welcome' },
}

const preferences = {
  global: {
    enabled: true,
    channels: { email: true, in_app: false },
    schedule: {
      isEnabled: true,
      weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] } },
    },
  },
  workflows: [
    {
      enabled: true,
      channels: { in_app: true, email: false },
      overrides: [{ channel: 'in_app', source: 'subscriber' }],
      workflow: {
        slug: 'welcome_wf',
        identifier: 'welcome',
        name: 'Welcome',
        updatedAt: '2026-01-01T00:00:00Z',
      },
      futureWorkflowField: 'kept',
    },
  ],
  futureTopLevelField: { nested: [1, 2] },
}

const notification = {
  _id: 'n-1',
  _environmentId: 'env-1',
  _organizationId: 'org-1',
  _subscriberId: 'sub-db-1',
  transactionId: 'tx-1',
  _templateId: 'tpl-1',
  _digestedNotificationId: 'n-0',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
  channels: ['in_app', 'email'],
  subscriber: { _id: 'sub-db-1', subscriberId: 'user-1', firstName: 'Ada', email: 'ada@example.com' },
  template: {
    _id: 'tpl-1',
    name: 'Welcome',
    origin: 'novu-cloud',
    triggers: [
      { type: 'event', identifier: 'welcome', variables: [{ name: 'firstName' }], subscriberVariables: [] },
    ],
  },
  jobs: [
    {
      _id: 'job-1',
      type: 'in_app',
      status: 'completed',
      providerId: 'novu',
      updatedAt: '2026-01-01T00:00:01.000Z',
      scheduleExtensionsCount: 0,
      overrides: { workflowId: 'welcome', stepId: 'in-app-step' },
      payload: { firstName: 'Ada' },
      digest: { digestKey: 'k', amount: 5, unit: 'seconds', type: 'regular', events: [{ a: 1 }] },
      executionDetails: [
        { _id: 'ed-1', status: 'Success', source: 'Credentials', detail: 'Message sent', isRetry: false },
      ],
      step: {
        _id: 'step-1',
        _templateId: 'msg-tpl-1',
        active: true,
        name: 'In-app',
        template: { content: 'Hello {{payload.firstName}}', cta: { type: 'redirect', data: { url: '/x' } } },
        filters: [
          {
            isNegated: false,
            type: 'BOOLEAN',
            value: 'AND',
            children: [{ field: 'isOnline', value: 'true', operator: 'LARGER', on: 'subscriber' }],
          },
        ],
        variants: [{ _id: 'variant-1', template: { content: 'Hi' } }],
      },
    },
  ],
  payload: { firstName: 'Ada' },
  tags: ['onboarding'],
  topics: [{ _topicId: 'topic-1', topicKey: 'team' }],
  severity: 'none',
  critical: false,
  futureField: { kept: true },
}

const preferencesUpdate = {
  channels: { email: true, in_app: false },
  schedule: {
    isEnabled: true,
    weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] } },
  },
}

const triggerEvent = {
  name: 'welcome',
  to: [{ subscriberId: 'user-1', email: 'ada@example.com', firstName: 'Ada' }, 'user-2'],
  payload: { firstName: 'Ada', nested: { list: [1, 2] } },
  overrides: { email: { subject: 'Hi' } },
  transactionId: 'tx-1',
  actor: 'user-0',
  tenant: { identifier: 'acme', name: 'Acme' },
}

const broadcastEvent = {
  name: 'maintenance',
  payload: { startsAt: '2026-12-01T22:00:00Z' },
  transactionId: 'tx-b',
}

describe.each([
  ['wrapped in { data }', (data: unknown) => ({ data })],
  ['unwrapped', (data: unknown) => data],
])('the seven operations on the wire, success body %s', (_form, body) => {
  it('subscribers.preferences.update: PATCH /v2/subscribers/{id}/preferences, 200 → preferences', async () => {
    const { client, seen } = mswClient([
      http.patch('https://api.test/v2/subscribers/:id/preferences', () => json(body(preferences), 200)),
    ])
    const result: Preferences = await client.subscribers.preferences.update('user-1', preferencesUpdate)
    const request = onlyRequest(seen)
    expect(request.method).toBe('PATCH')
    expect(request.pathname).toBe('/v2/subscribers/user-1/preferences')
    expect(request.search).toBe('')
    expectStandardHeaders(request, { body: true, idempotent: true })
    expect(request.body).toStrictEqual(preferencesUpdate)
    expect(result).toStrictEqual(preferences)
  })

  it('subscribers.messages.markAll: POST /v1/subscribers/{id}/messages/mark-all, 201 → number', async () => {
    const { client, seen } = mswClient([
      http.post('https://api.test/v1/subscribers/:id/messages/mark-all', () => json(body(5), 201)),
    ])
    const params = { markAs: 'read' as const, feedIdentifier: ['news', 'alerts'] }
    const changed: number = await client.subscribers.messages.markAll('user-1', params)
    const request = onlyRequest(seen)
    expect(request.method).toBe('POST')
    expect(request.pathname).toBe('/v1/subscribers/user-1/messages/mark-all')
    expectStandardHeaders(request, { body: true, idempotent: true })
    expect(request.body).toStrictEqual(params)
    expect(changed).toBe(5)
  })

  it('events.trigger: POST /v1/events/trigger, 201 → trigger result with extra fields kept', async () => {
    const { client, seen } = mswClient([
      http.post('https://api.test/v1/events/trigger', () => json(body(triggerResult), 201)),
    ])
    const result: TriggerResult = await client.events.trigger(triggerEvent)
    const request = onlyRequest(seen)
    expect(request.method).toBe('POST')
    expect(request.pathname).toBe('/v1/events/trigger')
    expectStandardHeaders(request, { body: true, idempotent: true })
    expect(request.body).toStrictEqual(triggerEvent)
    expect(result).toStrictEqual(triggerResult)
  })

  it('events.cancel: DELETE /v1/events/trigger/{transactionId}, 200 → boolean, no body', async () => {
    const { client, seen } = mswClient([
      http.delete('https://api.test/v1/events/trigger/:tx', ({ params }) =>
        json(body(params.tx === 'tx-1'), 200),
      ),
    ])
    await expect(client.events.cancel('tx-1')).resolves.toBe(true)
    await expect(client.events.cancel('tx-unknown')).resolves.toBe(false)
    expect(seen).toHaveLength(2)
    const request = seen[0] as SeenRequest
    expect(request.method).toBe('DELETE')
    expect(request.pathname).toBe('/v1/events/trigger/tx-1')
    expectStandardHeaders(request, { body: false, idempotent: false })
    expect(request.text).toBe('')
  })

  it('events.triggerBulk: POST /v1/events/trigger/bulk with { events }, 201 → results in order', async () => {
    const results = [triggerResult, { ...triggerResult, transactionId: 'tx-2' }]
    const { client, seen } = mswClient([
      http.post('https://api.test/v1/events/trigger/bulk', () => json(body(results), 201)),
    ])
    const events = [triggerEvent, { name: 'order-shipped', to: 'user-3' }]
    const data: TriggerResult[] = await client.events.triggerBulk(events)
    const request = onlyRequest(seen)
    expect(request.method).toBe('POST')
    expect(request.pathname).toBe('/v1/events/trigger/bulk')
    // Bulk keys are `<call key>:<chunk index>`, so the one request of a small bulk call gets `<uuid>:0`.
    expectStandardHeaders(request, { body: true, idempotent: true, idempotencyKey: /^[0-9a-f-]{36}:0$/ })
    // An event without payload goes out with `payload: {}`: the server refuses a bulk event without one.
    expect(request.body).toStrictEqual({ events: [triggerEvent, { ...events[1], payload: {} }] })
    expect(data).toStrictEqual(results)
  })

  it.each([200, 201])(
    'events.broadcast: POST /v1/events/trigger/broadcast, %i → trigger result',
    async (status) => {
      const { client, seen } = mswClient([
        http.post('https://api.test/v1/events/trigger/broadcast', () => json(body(triggerResult), status)),
      ])
      const result: TriggerResult = await client.events.broadcast(broadcastEvent)
      const request = onlyRequest(seen)
      expect(request.method).toBe('POST')
      expect(request.pathname).toBe('/v1/events/trigger/broadcast')
      expectStandardHeaders(request, { body: true, idempotent: true })
      expect(request.body).toStrictEqual(broadcastEvent)
      expect(result).toStrictEqual(triggerResult)
    },
  )

  it('notifications.get: GET /v1/notifications/{id}, 200 → notification, wire names and step.template kept', async () => {
    const { client, seen } = mswClient([
      http.get('https://api.test/v1/notifications/:id', () => json(body(notification), 200)),
    ])
    const result: Notification = await client.notifications.get('n-1')
    const request = onlyRequest(seen)
    expect(request.method).toBe('GET')
    expect(request.pathname).toBe('/v1/notifications/n-1')
    expectStandardHeaders(request, { body: false, idempotent: false })
    expect(request.text).toBe('')
    expect(result).toStrictEqual(notification)
    // The fields other SDKs rename or empty, read through the typed result.
    expect(result._id).toBe('n-1')
    expect(result.jobs?.[0]?.step?.template).toStrictEqual(notification.jobs[0]?.step.template)
    expect(result.jobs?.[0]?.step?._templateId).toBe('msg-tpl-1')
    expect(result).not.toHaveProperty('id')
  })
})

describe('idempotency-key', () => {
  const routes = [
    http.patch('https://api.test/v2/subscribers/:id/preferences', () => json({ data: preferences })),
    http.post('https://api.test/v1/subscribers/:id/messages/mark-all', () => json({ data: 1 }, 201)),
    http.post('https://api.test/v1/events/trigger', () => json({ data: triggerResult }, 201)),
    http.post('https://api.test/v1/events/trigger/broadcast', () => json({ data: triggerResult }, 201)),
    http.delete('https://api.test/v1/events/trigger/:tx', () => json({ data: true })),
    http.get('https://api.test/v1/notifications/:id', () => json({ data: notification })),
  ]

  it("sends the caller's key unchanged on POST and PATCH", async () => {
    const { client, seen } = mswClient(routes)
    await client.subscribers.preferences.update(
      'u',
      { channels: { sms: true } },
      { idempotencyKey: 'prefs-1' },
    )
    await client.subscribers.messages.markAll('u', { markAs: 'seen' }, { idempotencyKey: 'mark-1' })
    await client.events.trigger({ name: 'w', to: 'u' }, { idempotencyKey: 'order-42-shipped' })
    await client.events.broadcast({ name: 'w', payload: {} }, { idempotencyKey: 'broadcast-1' })
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual([
      'prefs-1',
      'mark-1',
      'order-42-shipped',
      'broadcast-1',
    ])
  })

  it('makes a different UUID for each call when the caller gives none', async () => {
    const { client, seen } = mswClient(routes)
    await client.events.trigger({ name: 'w', to: 'u' })
    await client.events.trigger({ name: 'w', to: 'u' })
    const [first, second] = seen.map((request) => request.headers['idempotency-key'])
    expect(first).toMatch(UUID)
    expect(second).toMatch(UUID)
    expect(first).not.toBe(second)
  })

  it('is never sent on GET and DELETE, even when the caller gives one', async () => {
    const { client, seen } = mswClient(routes)
    await client.events.cancel('tx-1', { idempotencyKey: 'ignored-1' })
    await client.notifications.get('n-1', { idempotencyKey: 'ignored-2' })
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual([undefined, undefined])
  })
})

describe('withResponse()', () => {
  it('gives status, headers, requestId from x-request-id, the idempotency key the server saw and attempts', async () => {
    const { client, seen } = mswClient([
      http.post('https://api.test/v1/events/trigger', () =>
        json({ data: triggerResult }, 201, { 'x-request-id': 'req-123', 'ratelimit-remaining': '99' }),
      ),
    ])
    const { data, response } = await client.events.trigger({ name: 'w', to: 'u' }).withResponse()
    expect(data).toStrictEqual(triggerResult)
    expect(response.status).toBe(201)
    expect(response.headers['ratelimit-remaining']).toBe('99')
    expect(response.requestId).toBe('req-123')
    expect(response.idempotencyKey).toMatch(UUID)
    expect(response.idempotencyKey).toBe(onlyRequest(seen).headers['idempotency-key'])
    expect(response.attempts).toBe(1)
  })

  it('reads requestId from request-id when x-request-id is absent, and has no key on GET', async () => {
    const { client } = answeringClient(() => json({ data: notification }, 200, { 'request-id': 'req-456' }))
    const { response } = await client.notifications.get('n-1').withResponse()
    expect(response.requestId).toBe('req-456')
    expect(response.idempotencyKey).toBeUndefined()
  })

  it("gives the caller's key and no requestId when the server sends none", async () => {
    const { client } = answeringClient(() => json({ data: 3 }, 201))
    const { data, response } = await client.subscribers.messages
      .markAll('u', { markAs: 'unread' }, { idempotencyKey: 'mine' })
      .withResponse()
    expect(data).toBe(3)
    expect(response.idempotencyKey).toBe('mine')
    expect(response.requestId).toBeUndefined()
  })
})

describe('path parameters', () => {
  it('sends a subscriberId with reserved characters as one percent-encoded segment', async () => {
    const { client, seen } = mswClient([
      http.post('https://api.test/v1/subscribers/:id/messages/mark-all', ({ params }) =>
        json({ data: params.id === 'a/b c?d' ? 1 : 0 }, 201),
      ),
      http.patch('https://api.test/v2/subscribers/:id/preferences', () => json({ data: preferences })),
    ])
    // The handler's decoded route parameter proves the server sees one segment with the original value.
    await expect(client.subscribers.messages.markAll('a/b c?d', { markAs: 'read' })).resolves.toBe(1)
    await client.subscribers.preferences.update('a/b c?d', {})
    expect(seen.map((request) => request.pathname)).toEqual([
      '/v1/subscribers/a%2Fb%20c%3Fd/messages/mark-all',
      '/v2/subscribers/a%2Fb%20c%3Fd/preferences',
    ])
    expect(seen.map((request) => request.search)).toEqual(['', ''])
  })

  it('encodes transaction and notification ids too, % and # included', async () => {
    const { client, seen } = answeringClient(() => json({ data: notification }))
    await client.notifications.get('n#1%2F')
    const cancel = mswClient([
      http.delete('https://api.test/v1/events/trigger/:tx', () => json({ data: true })),
    ])
    await cancel.client.events.cancel('tx/../1')
    expect(onlyRequest(seen).pathname).toBe('/v1/notifications/n%231%252F')
    expect(onlyRequest(cancel.seen).pathname).toBe('/v1/events/trigger/tx%2F..%2F1')
  })

  it.each([
    ['subscribers.preferences.update', (c: WireClientLike) => c.subscribers.preferences.update('', {})],
    [
      'subscribers.messages.markAll',
      (c: WireClientLike) => c.subscribers.messages.markAll('', { markAs: 'read' }),
    ],
    ['events.cancel', (c: WireClientLike) => c.events.cancel('')],
    ['notifications.get', (c: WireClientLike) => c.notifications.get('')],
  ])('%s with an empty id is a RequestValidationError and sends nothing', async (_name, call) => {
    const { client, seen } = answeringClient(() => json({ data: true }))
    const error = await rejectionOf(call(client))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]?.path).toHaveLength(1)
    expect((error as RequestValidationError).attempts).toBe(0)
    expect(seen).toHaveLength(0)
  })
})

type WireClientLike = ReturnType<typeof mswClient>['client']

describe('notifications.get and a null record', () => {
  it('turns 200 {"data": null} into a NotFoundError, not a null notification', async () => {
    const { client, seen } = answeringClient(() => json({ data: null }, 200, { 'x-request-id': 'req-null' }))
    const error = await rejectionOf(client.notifications.get('n-gone'))
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).status).toBe(200)
    expect((error as NotFoundError).requestId).toBe('req-null')
    expect(seen).toHaveLength(1)
  })
})

describe('base URL and extra headers', () => {
  it('prepends the base URL path prefix to every operation path', async () => {
    const { client, seen } = mswClient(
      [
        http.post('https://api.test/notify/v1/events/trigger', () => json({ data: triggerResult }, 201)),
        http.get('https://api.test/notify/v1/notifications/:id', () => json({ data: notification })),
      ],
      { baseUrl: 'https://api.test/notify/' },
    )
    await client.events.trigger({ name: 'w', to: 'u' })
    await client.notifications.get('n-1')
    expect(seen.map((request) => request.url)).toEqual([
      'https://api.test/notify/v1/events/trigger',
      'https://api.test/notify/v1/notifications/n-1',
    ])
  })

  it('sends defaultHeaders on every call and per-request headers on that call only', async () => {
    const { client, seen } = answeringClient(() => json({ data: true }), {
      defaultHeaders: { 'X-Team': 'growth', 'x-shared': 'client' },
    })
    await client.events.cancel('tx-1', { headers: { 'X-Trace-Id': 'trace-1', 'x-shared': 'call' } })
    await client.events.cancel('tx-2')
    const [first, second] = seen as [SeenRequest, SeenRequest]
    expect(first.headers['x-team']).toBe('growth')
    expect(first.headers['x-trace-id']).toBe('trace-1')
    expect(first.headers['x-shared']).toBe('call')
    expect(second.headers['x-team']).toBe('growth')
    expect(second.headers['x-trace-id']).toBeUndefined()
    expect(second.headers['x-shared']).toBe('client')
  })

  it('refuses defaultHeaders that would override authorization or idempotency-key', () => {
    for (const name of ['Authorization', 'idempotency-key']) {
      expect(() => answeringClient(() => json({}), { defaultHeaders: { [name]: 'x' } })).toThrow(
        NotifyKitError,
      )
    }
  })

  it('refuses per-request headers that would override authorization or idempotency-key, sending nothing', async () => {
    const { client, seen } = answeringClient(() => json({ data: triggerResult }, 201))
    for (const name of ['authorization', 'Idempotency-Key']) {
      const error = await rejectionOf(
        client.events.trigger({ name: 'w', to: 'u' }, { headers: { [name]: 'attacker-value' } }),
      )
      expect(error).toBeInstanceOf(RequestValidationError)
    }
    expect(seen).toHaveLength(0)
  })

  it('does not let a per-request content-type, accept or user-agent replace the SDK’s own', async () => {
    const { client, seen } = answeringClient(() => json({ data: triggerResult }, 201))
    await client.events.trigger(
      { name: 'w', to: 'u' },
      { headers: { 'content-type': 'text/plain', accept: 'text/html' } },
    )
    const request = onlyRequest(seen)
    expect(request.headers['content-type']).toBe('application/json')
    expect(request.headers.accept).toBe('application/json')
  })
})

describe('falsy unwrapped results', () => {
  it('returns a bare false from cancel and a bare 0 from markAll as they are', async () => {
    const { client } = mswClient([
      http.delete('https://api.test/v1/events/trigger/:tx', () =>
        HttpResponse.text('false', { headers: { 'content-type': 'application/json' } }),
      ),
      http.post('https://api.test/v1/subscribers/:id/messages/mark-all', () =>
        HttpResponse.text('0', { status: 201, headers: { 'content-type': 'application/json' } }),
      ),
    ])
    await expect(client.events.cancel('tx')).resolves.toBe(false)
    await expect(client.subscribers.messages.markAll('u', { markAs: 'read' })).resolves.toBe(0)
  })
})
