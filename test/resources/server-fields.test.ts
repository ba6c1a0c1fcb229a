import { describe, expect, it } from 'vitest'
import {
  NotificationClient,
  type NotificationClientOptions,
  RequestValidationError,
  type TriggerEventRequest,
} from '../../src/index.js'
import type { FakeService } from '../../src/testing/index.js'
import { API_KEY, call, data, fakeConnection, seededFake } from '../helpers/fake.js'
import { TRANSPORTS, type TransportName } from '../helpers/transport.js'
import { answeringClient, json, rejectionOf } from '../helpers/wire.js'

// Fields the service takes beyond the basic trigger: `context`, `bridgeUrl`, the structured
// `overrides`, `data: null` on a subscriber; and `extraFields`, for the fields notifykit does not type yet.

function clientOf(fake: FakeService, transport: TransportName, options: NotificationClientOptions = {}) {
  return new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://api.test',
    maxRetries: 0,
    ...fakeConnection(fake, transport),
    ...options,
  })
}

const FULL_TRIGGER = {
  name: 'welcome',
  to: [{ subscriberId: 'dana', email: 'dana@example.com', data: null }, 'alice'],
  actor: { subscriberId: 'erin', data: null },
  payload: { orderId: 'o-1' },
  context: { tenant: 'acme', app: { id: 'jarvis', data: { plan: 'pro' } } },
  bridgeUrl: 'https://bridge.example.com/api/novu',
  overrides: {
    severity: 'high',
    steps: { 'welcome-email': { providers: { sendgrid: { ipPoolName: 'transactional' } }, layoutId: null } },
    channels: { email: { layoutId: 'brand' } },
    providers: { fcm: { data: { deepLink: '/orders/o-1' } } },
    // The provider-keyed form, beside the structured keys.
    apns: { badge: 1 },
  },
} satisfies TriggerEventRequest

describe.each(TRANSPORTS)('fields the service takes (%s)', (transport) => {
  it('sends context, bridgeUrl, structured overrides and data: null as given, and the fake takes them', async () => {
    const fake = seededFake()
    const result = await clientOf(fake, transport).events.trigger(FULL_TRIGGER)
    expect(result.acknowledged).toBe(true)
    const [request] = fake.requests
    expect(request?.method).toBe('POST')
    expect(request?.path).toBe('/v1/events/trigger')
    expect(request?.body).toEqual(FULL_TRIGGER)
    expect(fake.subscriber('dana')?.data).toBeNull()
  })

  it('takes context on bulk events, broadcasts and preference updates', async () => {
    const fake = seededFake()
    const client = clientOf(fake, transport)
    const context = { tenant: { id: 'acme' } }
    await client.events.triggerBulk([
      { name: 'welcome', to: 'alice', context, bridgeUrl: 'https://b.example.com' },
    ])
    await client.events.broadcast({ name: 'welcome', payload: {}, context })
    await client.subscribers.preferences.update('alice', { channels: { email: false }, context })
    expect(fake.requests.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/v1/events/trigger/bulk'],
      ['POST', '/v1/events/trigger/broadcast'],
      ['PATCH', '/v2/subscribers/alice/preferences'],
    ])
    expect(fake.requests.map((r) => r.body)).toEqual([
      {
        events: [{ name: 'welcome', to: 'alice', context, bridgeUrl: 'https://b.example.com', payload: {} }],
      },
      { name: 'welcome', payload: {}, context },
      { channels: { email: false }, context },
    ])
  })

  it.each([
    ['a misspelt structured key holding a string', { overrides: { severty: 'high' } }, 'overrides.severty'],
    ['a severity the server does not know', { overrides: { severity: 'urgent' } }, 'overrides.severity'],
    ['a provider override that is no object', { overrides: { fcm: 'x' } }, 'overrides.fcm'],
    [
      'an unknown key of a step override',
      { overrides: { steps: { s: { layout: 'x' } } } },
      'overrides.steps.s',
    ],
    ['a context entry that is a number', { context: { tenant: 7 } }, 'context.tenant'],
    ['a context object without its id', { context: { tenant: { data: {} } } }, 'context.tenant.id'],
    ['bridgeUrl that is no string', { bridgeUrl: 1 }, 'bridgeUrl'],
  ])('refuses %s before sending', async (_, fields, path) => {
    const fake = seededFake()
    const event = { name: 'welcome', to: 'alice', ...fields } as unknown as TriggerEventRequest
    const error = await rejectionOf(clientOf(fake, transport).events.trigger(event))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues.map((issue) => issue.path.join('.'))).toContain(path)
    expect(fake.requests).toEqual([])
  })

  it('refuses bridgeUrl on a broadcast, which has none', async () => {
    const fake = seededFake()
    const broadcast = { name: 'welcome', payload: {}, bridgeUrl: 'https://b.example.com' }
    const error = await rejectionOf(clientOf(fake, transport).events.broadcast(broadcast))
    expect(error).toBeInstanceOf(RequestValidationError)
    expect(fake.requests).toEqual([])
  })
})

describe.each(TRANSPORTS)('extraFields: fields notifykit does not type yet (%s)', (transport) => {
  it('adds them to the body after the request is checked, leaving the caller’s object as it was', async () => {
    const fake = seededFake()
    const event = { name: 'welcome', to: 'alice' }
    await clientOf(fake, transport).events.trigger(event, {
      extraFields: { futureField: { level: 2 } },
      idempotencyKey: 'k-1',
    })
    const [request] = fake.requests
    expect(request?.body).toEqual({ name: 'welcome', to: 'alice', futureField: { level: 2 } })
    expect(request?.headers['idempotency-key']).toBe('k-1')
    expect(event).toEqual({ name: 'welcome', to: 'alice' })
  })

  it('adds them to each event of a bulk call, in every request', async () => {
    const fake = seededFake()
    const events = Array.from({ length: 150 }, (_, i) => ({ name: 'welcome', to: `s-${i}` }))
    await clientOf(fake, transport).events.triggerBulk(events, { extraFields: { futureField: true } })
    const bodies = fake.requests.map((r) => r.body as { events: Record<string, unknown>[] })
    expect(bodies.map((body) => body.events.length)).toEqual([100, 50])
    expect(bodies.flatMap((body) => body.events).every((event) => event.futureField === true)).toBe(true)
  })

  it('adds them to preference updates, mark-all and broadcasts', async () => {
    const fake = seededFake()
    const client = clientOf(fake, transport)
    const extraFields = { futureField: 'x' }
    await client.subscribers.preferences.update('alice', { channels: { sms: false } }, { extraFields })
    await client.subscribers.messages.markAll('alice', { markAs: 'read' }, { extraFields })
    await client.events.broadcast({ name: 'welcome', payload: {} }, { extraFields })
    expect(fake.requests.map((r) => (r.body as Record<string, unknown>).futureField)).toEqual(['x', 'x', 'x'])
  })

  it('refuses a field notifykit types, so it is set where it is checked; nothing is sent', async () => {
    const fake = seededFake()
    const client = clientOf(fake, transport)
    const error = await rejectionOf(
      client.events.trigger(
        { name: 'welcome', to: 'alice' },
        { extraFields: { payload: { a: 1 }, context: {} } },
      ),
    )
    expect(error).toBeInstanceOf(RequestValidationError)
    const issues = (error as RequestValidationError).issues
    expect(issues.map((issue) => issue.path)).toEqual([
      ['extraFields', 'payload'],
      ['extraFields', 'context'],
    ])
    expect(issues[0]?.message).toMatch(/notifykit types/)
    // A typo in the request itself is still refused, extraFields or not.
    const typo = { name: 'welcome', to: 'alice', payloadd: {} } as unknown as TriggerEventRequest
    await expect(client.events.trigger(typo, { extraFields: { futureField: 1 } })).rejects.toThrow(/payloadd/)
    // In a bulk call, before the first request.
    await expect(
      client.events.triggerBulk([{ name: 'welcome', to: 'alice' }], { extraFields: { to: 'bob' } }),
    ).rejects.toBeInstanceOf(RequestValidationError)
    expect(fake.requests).toEqual([])
  })

  it('refuses them on calls without a body, and when they are no object', async () => {
    const fake = seededFake()
    const client = clientOf(fake, transport)
    const noBody = await rejectionOf(client.events.cancel('t-1', { extraFields: { x: 1 } }))
    expect((noBody as RequestValidationError).issues).toEqual([
      { path: ['extraFields'], message: 'this request has no body to add fields to' },
    ])
    const notObject = await rejectionOf(
      client.events.trigger(
        { name: 'welcome', to: 'alice' },
        // @ts-expect-error -- extraFields is an object of fields
        { extraFields: ['x'] },
      ),
    )
    expect(notObject).toBeInstanceOf(RequestValidationError)
    expect(fake.requests).toEqual([])
  })
})

describe.each(TRANSPORTS)('responses the server may send (%s)', (transport) => {
  it('reads a notification without _id in strict mode', async () => {
    const body = { _environmentId: 'e', _organizationId: 'o', _subscriberId: 's', transactionId: 't' }
    const { client } = answeringClient(
      () => json({ data: body }),
      { responseValidation: 'strict' },
      transport,
    )
    await expect(client.notifications.get('n-1')).resolves.toEqual(body)
  })
})

describe('the fake, where the SDK cannot reach', () => {
  it('marks nothing for an empty feedIdentifier list, as the server (which finds no feed for it)', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'feeds', to: 'alice' })
    const none = await call(fake, 'POST', '/v1/subscribers/alice/messages/mark-all', {
      markAs: 'read',
      feedIdentifier: [],
    })
    expect(none.status).toBe(201)
    expect(data(none)).toBe(0)
    const all = await call(fake, 'POST', '/v1/subscribers/alice/messages/mark-all', { markAs: 'read' })
    expect(data(all)).toBe(3)
  })

  it('answers 422 to a bridgeUrl that is not https, and to a malformed context', async () => {
    const fake = seededFake()
    const http = await call(fake, 'POST', '/v1/events/trigger', {
      name: 'welcome',
      to: 'alice',
      bridgeUrl: 'http://bridge.example.com',
    })
    expect(http.status).toBe(422)
    expect(JSON.stringify(http.body)).toContain('bridgeUrl must be an https URL')
    const context = await call(fake, 'POST', '/v1/events/trigger', {
      name: 'welcome',
      to: 'alice',
      context: { tenant: { data: {} } },
    })
    expect(context.status).toBe(422)
    expect(JSON.stringify(context.body)).toContain('Invalid context payload structure')
  })
})
