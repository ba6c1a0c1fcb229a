import { describe, expect, it } from 'vitest'
import { BadRequestError, UnprocessableEntityError } from '../../../src/index.js'
import { changedBy, fidelityFake, IN_APP_AND_EMAIL, notSent } from './setup.js'

const SOURCE = 'apps/api/src/app/events/e2e/trigger-event.e2e.ts'

const setup = () =>
  fidelityFake({
    workflows: [{ identifier: 'test-event', steps: IN_APP_AND_EMAIL }],
    subscribers: [{ subscriberId: 'sub-1', email: 'sub-1@example.com' }],
    tenants: [{ identifier: 'known-tenant' }],
  })

describe(`fidelity: ${SOURCE}`, () => {
  it(`acknowledges a trigger for an unknown tenant with no_tenant_found and sends nothing [${SOURCE}: "should return correct status when using a non existing tenant"]`, async () => {
    const { fake, client } = setup()
    const result = await notSent(client.events.trigger({ name: 'test-event', to: 'sub-1', tenant: 'test1' }))
    expect(result).toMatchObject({ acknowledged: true, status: 'no_tenant_found' })
    expect(fake.notifications).toEqual([])
    expect(fake.messages('sub-1')).toEqual([])
    const known = await client.events.trigger({ name: 'test-event', to: 'sub-1', tenant: 'known-tenant' })
    expect(known).toMatchObject({ status: 'processed' })
  })

  it(`answers a trigger processed and acknowledged [${SOURCE}: "should trigger an event successfully"]`, async () => {
    const { client } = setup()
    const result = await client.events.trigger({
      name: 'test-event',
      to: 'sub-1',
      payload: { firstName: 'Testing of User Name', urlVariable: '/test/url/path' },
    })
    expect(result).toMatchObject({
      acknowledged: true,
      status: 'processed',
      transactionId: expect.any(String),
    })
  })

  it(`records the provider of each job [${SOURCE}: "should store jobs & message provider id successfully"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'test-event', to: 'sub-1' })
    expect(fake.notifications[0]?.jobs.map((job) => [job.type, job.providerId])).toEqual([
      ['in_app', 'novu'],
      ['email', 'sendgrid'],
    ])
  })

  it(`creates the subscriber a trigger defines, with its fields [${SOURCE}: "should create a subscriber based on event"]`, async () => {
    const { fake, client } = setup()
    const defined = {
      subscriberId: 'new-sub',
      firstName: 'Test Name',
      lastName: 'Last of name',
      email: 'test@email.novu',
      locale: 'en',
      data: { custom1: 'custom value1', custom2: 'custom value2' },
    }
    await client.events.trigger({ name: 'test-event', to: defined, payload: { urlVar: '/test/url/path' } })
    expect(fake.subscriber('new-sub')).toMatchObject(defined)
  })

  it(`sets an email a later trigger gives and keeps the other fields [${SOURCE}: "should update a subscribers email if one dont exists"]`, async () => {
    const { fake, client } = setup()
    const defined = {
      subscriberId: 'new-sub',
      firstName: 'Test Name',
      lastName: 'Last of name',
      locale: 'en',
    }
    await client.events.trigger({ name: 'test-event', to: defined })
    expect(fake.subscriber('new-sub')?.email).toBeUndefined()
    await client.events.trigger({ name: 'test-event', to: { ...defined, email: 'hello@world.com' } })
    expect(fake.subscriber('new-sub')).toMatchObject({ ...defined, email: 'hello@world.com' })
  })

  it(`keeps the email when a later trigger leaves it out [${SOURCE}: "should not unset a subscriber email"]`, async () => {
    const { fake, client } = setup()
    const defined = {
      subscriberId: 'new-sub',
      firstName: 'Test Name',
      email: 'hello@world.com',
      locale: 'en',
    }
    await client.events.trigger({ name: 'test-event', to: defined })
    const { email: _email, ...withoutEmail } = defined
    await client.events.trigger({ name: 'test-event', to: withoutEmail })
    expect(fake.subscriber('new-sub')).toMatchObject(defined)
  })

  it(`stores a new subscriber's channels [${SOURCE}: "should set a new subscriber with channels array"]`, async () => {
    const { fake, client } = setup()
    const channels = [
      {
        providerId: 'slack',
        credentials: { webhookUrl: 'https://slack.com/webhook/test', deviceTokens: ['1', '2'] },
      },
    ]
    await client.events.trigger({ name: 'test-event', to: { subscriberId: 'new-sub', channels } })
    expect(fake.subscriber('new-sub')?.channels).toEqual(channels)
  })

  it(`replaces a subscriber's channels with those a later trigger gives [${SOURCE}: "should update a subscribers channels array"]`, async () => {
    const { fake, client } = setup()
    const channel = (url: string) => [{ providerId: 'slack', credentials: { webhookUrl: url } }]
    await client.events.trigger({
      name: 'test-event',
      to: { subscriberId: 'new-sub', channels: channel('https://slack.com/webhook/test') },
    })
    await client.events.trigger({
      name: 'test-event',
      to: { subscriberId: 'new-sub', channels: channel('https://slack.com/webhook/test2') },
    })
    expect(fake.subscriber('new-sub')?.channels).toEqual(channel('https://slack.com/webhook/test2'))
  })

  it(`completes every job for each subscriber given inline [${SOURCE}: "should override subscriber email based on event data"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'test-event',
      transactionId: 'tx-override',
      to: [
        { subscriberId: 'sub-1', email: 'gg@ff.com' },
        { subscriberId: 'other', email: 'gg@ff.com' },
      ],
      payload: { email: 'new-test-email@gmail.com' },
    })
    const statuses = fake.notifications.flatMap((n) => n.jobs.map((job) => job.status))
    expect(statuses).toEqual(['completed', 'completed', 'completed', 'completed'])
  })

  it(`creates one notification and one unseen in-app message, without the payload's attachments [${SOURCE}: "should generate message and notification based on event"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'test-event',
      to: { subscriberId: 'sub-1' },
      payload: {
        firstName: 'Testing of User Name',
        urlVar: '/test/url/path',
        attachments: [{ name: 'text1.txt', file: 'aGVsbG8gd29ybGQh', mime: 'text/plain' }],
      },
    })
    const notifications = fake.notifications
    expect(notifications).toHaveLength(1)
    expect(notifications[0]?._templateId).toBe(notifications[0]?.template._id)
    const messages = fake.messages('sub-1')
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatchObject({ seen: false, read: false })
    expect(messages[0]?.payload).toEqual({ firstName: 'Testing of User Name', urlVar: '/test/url/path' })
  })

  it(`refuses an unknown workflow with 422 workflow_not_found [${SOURCE}: "should throw an error when workflow identifier provided is not in the database"]`, async () => {
    const { client } = setup()
    const error = await client.events
      .trigger({
        name: 'non-existent-template-identifier',
        to: 'sub-1',
        payload: { myUser: { lastName: 'Test' } },
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect(error).toMatchObject({
      status: 422,
      body: { statusCode: 422, message: 'workflow_not_found', error: 'Unprocessable Entity' },
    })
  })

  it(`acknowledges a workflow without steps as processed and records its notification, without jobs [${SOURCE}: "should handle empty workflow scenario", removed with the no_workflow_steps_defined answer by ef0bd3cd45, #9647]`, async () => {
    const { fake, client } = fidelityFake({ workflows: [{ identifier: 'empty', steps: [] }] })
    const result = await client.events.trigger({ name: 'empty', to: 'sub-1' })
    expect(result).toMatchObject({ acknowledged: true, status: 'processed' })
    expect(fake.notifications.map((n) => [n.subscriber.subscriberId, n.jobs, n.channels])).toEqual([
      ['sub-1', [], []],
    ])
  })

  it(`refuses a payload missing required keys (named root.<key>, the payload as value) or of the wrong types with 400, and takes one that has them [apps/api/src/app/events/usecases/parse-event-request/parse-event-request.e2e.ts: "should validate payload against schema when validatePayload is enabled"] ${changedBy('payloadSchema')}`, async () => {
    const { fake, client } = fidelityFake({
      workflows: [
        {
          identifier: 'typed',
          steps: [{ type: 'email' }],
          payloadSchema: {
            required: ['lastName', 'list', 'flag'],
            properties: { lastName: { type: 'string' }, list: { type: 'array' }, flag: { type: 'boolean' } },
          },
        },
      ],
    })
    const missing = await client.events
      .trigger({ name: 'typed', to: 'sub-1', payload: {} })
      .catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(BadRequestError)
    expect(missing).toMatchObject({
      status: 400,
      body: {
        type: 'PAYLOAD_VALIDATION_ERROR',
        message:
          "Payload validation failed: root.lastName: must have required property 'lastName'; root.list: must have required property 'list'; root.flag: must have required property 'flag'",
        errors: ['lastName', 'list', 'flag'].map((key) => ({
          field: `root.${key}`,
          message: `must have required property '${key}'`,
          value: {},
          schemaPath: '#/required',
        })),
        ctx: { type: 'PAYLOAD_VALIDATION_ERROR', errors: expect.any(Array), schema: expect.any(Object) },
      },
    })
    const wrongTypes = await client.events
      .trigger({ name: 'typed', to: 'sub-1', payload: { lastName: true, list: 'John Doe', flag: 0 } })
      .catch((e: unknown) => e)
    expect(wrongTypes).toMatchObject({
      status: 400,
      body: {
        errors: [
          { field: 'lastName', value: true, schemaPath: '#/properties/lastName/type' },
          { field: 'list', value: 'John Doe', schemaPath: '#/properties/list/type' },
          { field: 'flag', value: 0, schemaPath: '#/properties/flag/type' },
        ],
      },
    })
    expect(fake.notifications).toEqual([])
    const valid = await client.events.trigger({
      name: 'typed',
      to: 'sub-1',
      payload: { lastName: '', list: [], flag: true },
    })
    expect(valid.status).toBe('processed')
  })

  it(`takes a trigger with the required variables [${SOURCE}: "should trigger with given required variables"]`, async () => {
    const { fake, client } = fidelityFake({
      workflows: [
        { identifier: 'typed', steps: [{ type: 'email' }], payloadSchema: { required: ['myUser'] } },
      ],
    })
    await client.events.trigger({ name: 'typed', to: 'sub-1', payload: { myUser: { lastName: 'Test' } } })
    expect(fake.notifications).toHaveLength(1)
  })

  it(`broadcasts to every subscriber of the environment [${SOURCE}: "should broadcast trigger to all subscribers"]`, async () => {
    const { fake, client } = fidelityFake({
      workflows: [{ identifier: 'all', steps: [{ type: 'in_app' }] }],
      subscribers: ['s1', 's2', 's3', 's4'].map((subscriberId) => ({ subscriberId })),
    })
    await client.events.broadcast({ name: 'all', payload: { organizationName: 'Umbrella Corp' } })
    const messages = ['s1', 's2', 's3', 's4'].flatMap((id) => fake.messages(id))
    expect(messages).toHaveLength(4)
    expect(new Set(messages.map((m) => m.subscriberId)).size).toBe(4)
  })
})
