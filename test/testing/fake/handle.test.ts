import { describe, expect, it } from 'vitest'
import { createFakeService } from '../../../src/testing/index.js'
import { API_KEY, call, data, seededFake } from '../../helpers/fake.js'

describe('fake.handle: envelope, statuses and errors', () => {
  it('answers a trigger with 201, the { data } envelope, JSON, a txn_ id and the request in activityFeedLink', async () => {
    const fake = seededFake()
    const first = await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })
    const second = await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })
    expect(first.status).toBe(201)
    expect(first.headers.get('content-type')).toMatch(/^application\/json/)
    expect(data(first)).toEqual({
      acknowledged: true,
      status: 'processed',
      transactionId: expect.stringMatching(/^txn_[0-9a-f]{8}[0-9a-z]{12}$/),
      activityFeedLink: expect.stringMatching(
        /^https:\/\/dashboard\.novu\.co\/env\/[0-9a-f]{24}\/activity\/requests\?selectedLogId=req_[0-9a-f]{8}[0-9a-z]{12}$/,
      ),
    })
    const link = (result: typeof first) => (data(result) as { activityFeedLink: string }).activityFeedLink
    expect(link(first)).not.toBe(link(second))
    // The server sends no request id header: the request's id is only inside activityFeedLink.
    expect(first.headers.get('x-request-id')).toBeNull()
    expect(first.headers.get('request-id')).toBeNull()
  })

  it('gives error bodies the server shape, never wrapped', async () => {
    const fake = seededFake()
    const result = await call(fake, 'GET', '/v1/notifications/000000000000000000000000')
    expect(result.status).toBe(404)
    expect(result.body).toEqual({
      statusCode: 404,
      timestamp: expect.any(String),
      path: '/v1/notifications/000000000000000000000000',
      message: 'Notification not found',
      error: 'Not Found',
      ctx: { error: 'Not Found', statusCode: 404 },
    })
  })

  it('answers an id that is not a MongoDB id with the command check, 422', async () => {
    const result = await call(seededFake(), 'GET', '/v1/notifications/abc')
    expect(result.status).toBe(422)
    expect(result.body).toEqual({
      statusCode: 422,
      timestamp: expect.any(String),
      path: '/v1/notifications/abc',
      message:
        'Validation failed for GetActivityCommand: notificationId: notificationId must be a mongodb id',
      ctx: {},
      errors: { notificationId: { messages: ['notificationId must be a mongodb id'], value: 'abc' } },
    })
  })

  it('answers an unknown route with 404', async () => {
    const result = await call(seededFake(), 'GET', '/v1/unknown')
    expect(result.status).toBe(404)
    expect(result.body).toMatchObject({ statusCode: 404, message: 'Cannot GET /v1/unknown' })
  })

  it('matches routes on the pathname whatever the origin, decoding each segment once', async () => {
    const fake = seededFake()
    const id = 'a/b c?d'
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: id })
    const response = await fake.handle(
      new Request(`http://other.example:8080/v1/subscribers/${encodeURIComponent(id)}/messages/mark-all`, {
        method: 'POST',
        headers: { authorization: `ApiKey ${API_KEY}` },
        body: JSON.stringify({ markAs: 'read' }),
      }),
    )
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({ data: 1 })
    expect(fake.requests[1]?.path).toBe('/v1/subscribers/a%2Fb%20c%3Fd/messages/mark-all')
  })

  it('refuses a body that is not JSON with 400', async () => {
    const fake = seededFake()
    const response = await fake.handle(
      new Request('https://fake.test/v1/events/trigger', {
        method: 'POST',
        headers: { authorization: `ApiKey ${API_KEY}` },
        body: '{not json',
      }),
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.stringContaining('JSON'),
    })
  })

  it('refuses a JSON body that is neither an object nor an array with 400, as the strict parser does', async () => {
    const response = await call(seededFake(), 'POST', '/v1/subscribers/alice/messages/mark-all', 'read')
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({ message: expect.stringContaining('"read"') })
  })
})

describe('fake.handle: authentication', () => {
  it.each([
    ['missing', undefined, 'Missing authorization header'],
    ['a session token', `Bearer ${API_KEY}`, 'Unauthorized'],
    ['another scheme', `Token ${API_KEY}`, 'Invalid authentication scheme: "Token"'],
    ['an empty key', 'ApiKey ', 'Unauthorized'],
    ['a wrong key', 'ApiKey other', 'API Key not found'],
  ])('refuses %s with 401', async (_label, authorization, message) => {
    const fake = seededFake()
    const headers = new Headers({ 'content-type': 'application/json' })
    if (authorization !== undefined) headers.set('authorization', authorization)
    const response = await fake.handle(
      new Request('https://fake.test/v1/events/trigger', {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'welcome', to: 'alice' }),
      }),
    )
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ statusCode: 401, message })
    expect(fake.notifications).toHaveLength(0)
  })

  it('accepts any non-empty key when no apiKey is configured', async () => {
    const fake = createFakeService({ workflows: [{ identifier: 'w', steps: [{ type: 'email' }] }] })
    const result = await call(
      fake,
      'POST',
      '/v1/events/trigger',
      { name: 'w', to: 'x' },
      { authorization: 'ApiKey whatever' },
    )
    expect(result.status).toBe(201)
  })
})

describe('fake.handle: triggers', () => {
  it('creates one notification per recipient with a job per step and creates unknown subscribers', async () => {
    const fake = seededFake()
    const result = await call(fake, 'POST', '/v1/events/trigger', {
      name: 'welcome',
      to: ['alice', { subscriberId: 'dave', email: 'dave@example.com' }, 'erin'],
      payload: { greeting: 'hi' },
    })
    const { transactionId } = data(result) as { transactionId: string }
    const notifications = fake.notifications
    expect(notifications.map((n) => n.subscriber.subscriberId)).toEqual(['alice', 'dave', 'erin'])
    const dave = notifications[1]
    expect(dave).toMatchObject({
      transactionId,
      payload: { greeting: 'hi' },
      to: { subscriberId: 'dave', email: 'dave@example.com' },
      subscriber: { subscriberId: 'dave', email: 'dave@example.com' },
      channels: ['in_app', 'email'],
      template: { name: 'Welcome', triggers: [{ type: 'event', identifier: 'welcome' }] },
      critical: false,
    })
    expect(dave?.jobs.map((j) => [j.type, j.status])).toEqual([
      ['in_app', 'completed'],
      ['email', 'completed'],
    ])
    expect(dave?.jobs[0]?.executionDetails.at(-1)).toMatchObject({
      status: 'Success',
      detail: 'Message sent',
    })
    expect(fake.messages('erin')).toHaveLength(1)
    expect(fake.preferences('erin')).toBeDefined()
  })

  it('expands a topic to its subscribers minus exclude, the actor, and those named directly', async () => {
    const fake = seededFake()
    fake.addTopic({ topicKey: 'team', subscribers: ['dave'] })
    await call(fake, 'POST', '/v1/events/trigger', {
      name: 'welcome',
      to: ['bob', { type: 'Topic', topicKey: 'team', exclude: ['carol'] }],
      actor: 'dave',
    })
    const notifications = fake.notifications
    expect(notifications.map((n) => n.subscriber.subscriberId)).toEqual(['bob', 'alice'])
    expect(notifications[0]?.topics).toEqual([])
    expect(notifications[1]?.topics).toEqual([{ _topicId: expect.any(String), topicKey: 'team' }])
  })

  it('answers an unknown workflow with 422 workflow_not_found, without errors', async () => {
    const result = await call(seededFake(), 'POST', '/v1/events/trigger', { name: 'nope', to: 'alice' })
    expect(result.status).toBe(422)
    expect(result.body).toMatchObject({ statusCode: 422, message: 'workflow_not_found' })
    expect(result.body).not.toHaveProperty('errors')
  })

  it('answers an invalid body with the DTO check: 422 Validation Error, its messages under errors.general', async () => {
    const result = await call(seededFake(), 'POST', '/v1/events/trigger', { name: 5, payload: [] })
    expect(result.status).toBe(422)
    expect(result.body).toEqual({
      statusCode: 422,
      timestamp: expect.any(String),
      path: '/v1/events/trigger',
      message: 'Validation Error',
      ctx: {},
      errors: {
        general: {
          messages: [
            'name must be a string',
            'payload must be an object',
            'to should not be null or undefined',
          ],
          value: 'No Value Recorded',
        },
      },
    })
  })

  it('checks the payload against the workflow payload schema with 400 PAYLOAD_VALIDATION_ERROR', async () => {
    const fake = createFakeService({
      workflows: [
        {
          identifier: 'order',
          steps: [{ type: 'email' }],
          payloadSchema: { required: ['orderId'], properties: { total: { type: 'number' } } },
        },
      ],
    })
    const result = await call(fake, 'POST', '/v1/events/trigger', {
      name: 'order',
      to: 'x',
      payload: { total: 'ten' },
    })
    expect(result.status).toBe(400)
    const errors = [
      {
        field: 'root.orderId',
        message: "must have required property 'orderId'",
        value: { total: 'ten' },
        schemaPath: '#/required',
      },
      { field: 'total', message: 'must be number', value: 'ten', schemaPath: '#/properties/total/type' },
    ]
    const schema = { required: ['orderId'], properties: { total: { type: 'number' } } }
    const context = { errors, schema, type: 'PAYLOAD_VALIDATION_ERROR' }
    expect(result.body).toEqual({
      ...context,
      statusCode: 400,
      timestamp: expect.any(String),
      path: '/v1/events/trigger',
      message:
        "Payload validation failed: root.orderId: must have required property 'orderId'; total: must be number",
      ctx: context,
    })
  })

  it('ignores a repeated transactionId: acknowledged again, nothing created', async () => {
    const fake = seededFake()
    const body = { name: 'welcome', to: 'alice', transactionId: 'tx-1' }
    const first = await call(fake, 'POST', '/v1/events/trigger', body)
    const second = await call(fake, 'POST', '/v1/events/trigger', { ...body, to: 'bob' })
    expect(second.status).toBe(201)
    expect(data(second)).toMatchObject({ acknowledged: true, status: 'processed', transactionId: 'tx-1' })
    expect(data(first)).toMatchObject({ acknowledged: true, status: 'processed', transactionId: 'tx-1' })
    expect(fake.notifications).toHaveLength(1)
  })

  it('acknowledges an inactive workflow with trigger_not_active, and one without steps as processed', async () => {
    const fake = createFakeService({
      workflows: [{ identifier: 'off', active: false, steps: [{ type: 'email' }] }, { identifier: 'empty' }],
    })
    const off = await call(
      fake,
      'POST',
      '/v1/events/trigger',
      { name: 'off', to: 'x' },
      { authorization: 'ApiKey k' },
    )
    const empty = await call(
      fake,
      'POST',
      '/v1/events/trigger',
      { name: 'empty', to: 'x' },
      { authorization: 'ApiKey k' },
    )
    expect(data(off)).toEqual({
      acknowledged: true,
      status: 'trigger_not_active',
      transactionId: expect.stringMatching(/^txn_/),
    })
    expect(data(empty)).toMatchObject({ acknowledged: true, status: 'processed' })
    expect(fake.notifications.map((n) => [n.to, n.jobs, n.channels])).toEqual([
      [{ subscriberId: 'x' }, [], []],
    ])
  })

  it('leaves a digest delayed with later steps pending, cancels them once, then answers false', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'digest', to: 'alice', transactionId: 'tx-d' })
    expect(fake.notifications[0]?.jobs.map((j) => j.status)).toEqual(['completed', 'delayed', 'pending'])
    expect(fake.notifications[0]?.jobs[1]?.digest).toMatchObject({
      amount: 10,
      unit: 'seconds',
      type: 'regular',
    })

    const first = await call(fake, 'DELETE', '/v1/events/trigger/tx-d')
    const second = await call(fake, 'DELETE', '/v1/events/trigger/tx-d')
    expect([first.status, first.body]).toEqual([200, { data: true }])
    expect([second.status, second.body]).toEqual([200, { data: false }])
    expect(fake.notifications[0]?.jobs.map((j) => j.status)).toEqual(['completed', 'canceled', 'canceled'])
  })

  it('answers false when canceling a transaction with nothing delayed', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice', transactionId: 'tx-w' })
    expect((await call(fake, 'DELETE', '/v1/events/trigger/tx-w')).body).toEqual({ data: false })
    expect((await call(fake, 'DELETE', '/v1/events/trigger/unknown')).body).toEqual({ data: false })
  })

  it('processes each bulk event on its own, in order', async () => {
    const fake = seededFake()
    const result = await call(fake, 'POST', '/v1/events/trigger/bulk', {
      events: [
        { name: 'welcome', to: 'alice', payload: {} },
        { name: 'nope', to: 'alice', payload: {} },
        { name: 'welcome', to: 'bob', payload: {} },
      ],
    })
    expect(result.status).toBe(201)
    const processed = {
      acknowledged: true,
      status: 'processed',
      transactionId: expect.stringMatching(/^txn_/),
      activityFeedLink: expect.any(String),
    }
    expect(data(result)).toEqual([
      processed,
      { acknowledged: true, status: 'error', error: ['workflow_not_found'] },
      processed,
    ])
    const [first, , third] = data(result) as { activityFeedLink: string }[]
    // One request, one request id: every event of a bulk links to the same page.
    expect(first?.activityFeedLink).toBe(third?.activityFeedLink)
    expect(fake.notifications).toHaveLength(2)
  })

  it.each([0, 101])('refuses a bulk of %i events with 422', async (count) => {
    const events = Array.from({ length: count }, () => ({ name: 'welcome', to: 'alice' }))
    const result = await call(seededFake(), 'POST', '/v1/events/trigger/bulk', { events })
    expect(result.status).toBe(422)
    expect(result.body).toHaveProperty('errors.events')
  })

  it('broadcasts to every subscriber and requires a payload object', async () => {
    const fake = seededFake()
    const result = await call(fake, 'POST', '/v1/events/trigger/broadcast', { name: 'welcome', payload: {} })
    expect(result.status).toBe(201)
    expect(fake.notifications.map((n) => n.subscriber.subscriberId).sort()).toEqual(['alice', 'bob', 'carol'])
    const missing = await call(fake, 'POST', '/v1/events/trigger/broadcast', { name: 'welcome' })
    expect(missing.status).toBe(422)
    expect(missing.body).toMatchObject({
      message: 'Validation Error',
      errors: { general: { messages: ['payload must be an object'] } },
    })
  })

  it('returns the stored notification, or 404, or 200 null when configured like older servers', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })
    const id = fake.notifications[0]?._id
    const found = await call(fake, 'GET', `/v1/notifications/${id}`)
    expect(found.status).toBe(200)
    expect(data(found)).toEqual(fake.notifications[0])
    const nullFake = seededFake({ missingNotification: 'null' })
    expect((await call(nullFake, 'GET', '/v1/notifications/000000000000000000000000')).body).toEqual({
      data: null,
    })
  })
})

describe('fake.handle: messages', () => {
  it('marks in-app messages and counts only those that changed', async () => {
    const fake = seededFake()
    await call(fake, 'POST', '/v1/events/trigger', { name: 'feeds', to: 'alice' })
    const mark = (body: unknown) => call(fake, 'POST', '/v1/subscribers/alice/messages/mark-all', body)
    const seen = await mark({ markAs: 'seen', feedIdentifier: 'news' })
    expect([seen.status, seen.body]).toEqual([201, { data: 1 }])
    expect(data(await mark({ markAs: 'read', feedIdentifier: ['news', 'alerts'] }))).toBe(2)
    expect(data(await mark({ markAs: 'read' }))).toBe(1)
    expect(data(await mark({ markAs: 'read' }))).toBe(0)
    expect(data(await mark({ markAs: 'unseen' }))).toBe(3)
    // unseen leaves read alone
    expect(fake.messages('alice').map((m) => [m.feedIdentifier, m.read, m.seen])).toEqual([
      ['news', true, false],
      ['alerts', true, false],
      [null, true, false],
    ])
  })

  it('answers 404 for an unknown subscriber and 422 for an unknown markAs', async () => {
    const fake = seededFake()
    expect(
      (await call(fake, 'POST', '/v1/subscribers/ghost/messages/mark-all', { markAs: 'read' })).status,
    ).toBe(404)
    const invalid = await call(fake, 'POST', '/v1/subscribers/alice/messages/mark-all', {
      markAs: 'archived',
    })
    expect(invalid.status).toBe(422)
    expect(invalid.body).toMatchObject({ errors: { markAs: { value: 'archived' } } })
  })
})

describe('fake.handle: preferences', () => {
  const path = '/v2/subscribers/alice/preferences'

  it('merges global channels and returns the v2 shape', async () => {
    const fake = seededFake()
    await call(fake, 'PATCH', path, { channels: { email: false } })
    const result = await call(fake, 'PATCH', path, { channels: { sms: false } })
    expect(result.status).toBe(200)
    const prefs = data(result) as {
      global: unknown
      workflows: { workflow: { identifier: string }; channels: unknown }[]
    }
    expect(prefs.global).toEqual({ enabled: true, channels: { in_app: true, email: false, sms: false } })
    expect(prefs.workflows.map((w) => w.workflow.identifier)).toEqual([
      'welcome',
      'feeds',
      'digest',
      'delayed',
    ])
    expect(prefs.workflows[0]).toEqual({
      enabled: true,
      channels: { in_app: true, email: false },
      overrides: [
        { channel: 'in_app', source: 'subscriber' },
        { channel: 'email', source: 'subscriber' },
      ],
      workflow: { slug: 'welcome', identifier: 'welcome', name: 'Welcome', updatedAt: expect.any(String) },
    })
  })

  it('updates one workflow and does not store a schedule sent with it (schedules are global only)', async () => {
    const fake = seededFake()
    const schedule = {
      isEnabled: true,
      weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] } },
    }
    const result = await call(fake, 'PATCH', path, {
      workflowId: 'welcome',
      channels: { in_app: false },
      schedule,
    })
    const prefs = data(result) as {
      global: { schedule: unknown }
      workflows: { channels: unknown; overrides: unknown }[]
    }
    expect(prefs.global).not.toHaveProperty('schedule')
    expect(prefs.workflows[0]).toMatchObject({
      channels: { in_app: false, email: true },
      updatedAt: expect.any(String),
    })
    expect(fake.preferences('alice')).toEqual(prefs)
  })

  it('cancels the step of a channel the subscriber switched off, unless the workflow is critical', async () => {
    const fake = seededFake()
    await call(fake, 'PATCH', path, { channels: { email: false } })
    await call(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })
    await call(fake, 'POST', '/v1/events/trigger', { name: 'security', to: 'alice' })
    expect(fake.notifications.map((n) => n.jobs.map((j) => j.status))).toEqual([
      ['completed', 'canceled'],
      ['completed'],
    ])
  })

  it('refuses a critical workflow with 400, an unknown one with 404, an unknown subscriber with 404', async () => {
    const fake = seededFake()
    expect(
      (await call(fake, 'PATCH', path, { workflowId: 'security', channels: { email: false } })).status,
    ).toBe(400)
    expect((await call(fake, 'PATCH', path, { workflowId: 'nope' })).status).toBe(404)
    expect((await call(fake, 'PATCH', '/v2/subscribers/ghost/preferences', {})).status).toBe(404)
  })

  it('refuses a malformed schedule with the DTO check, then a switch that is not a boolean with the command check', async () => {
    const fake = seededFake()
    const result = await call(fake, 'PATCH', path, {
      channels: { fax: true, email: 'no' },
      schedule: {
        isEnabled: true,
        weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '9am', end: '5pm' }] } },
      },
    })
    expect(result.status).toBe(422)
    const format = 'must be in 12-hour format (e.g., 09:00 AM or 9:00 AM)'
    expect(result.body).toMatchObject({
      message: 'Validation Error',
      errors: {
        general: {
          messages: [
            `schedule.weeklySchedule.monday.hours.0.start ${format}`,
            `schedule.weeklySchedule.monday.hours.0.end ${format}`,
          ],
        },
      },
    })
    const channel = await call(fake, 'PATCH', path, { channels: { fax: true, email: 'no' } })
    expect(channel.status).toBe(422)
    expect(channel.body).toMatchObject({
      message: 'Validation failed for UpdatePreferencesCommand: email: email must be a boolean value',
      errors: { email: { messages: ['email must be a boolean value'], value: 'no' } },
    })
    // A channel the server does not know is ignored.
    expect((await call(fake, 'PATCH', path, { channels: { fax: true } })).status).toBe(200)
  })
})
