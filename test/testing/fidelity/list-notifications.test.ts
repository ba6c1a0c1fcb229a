import { describe, expect, it } from 'vitest'
import { BadRequestError, type Notification, UnprocessableEntityError } from '../../../src/index.js'
import { fidelityFake, IN_APP_AND_EMAIL } from './setup.js'

// GET /v1/notifications as the server answers it: the controller and DTO
// (apps/api/src/app/notifications/notification.controller.ts, dtos/activities-request.dto.ts), the
// use case (usecases/get-activity-feed/get-activity-feed.usecase.ts), the repository's feed query
// (libs/dal/src/repositories/notification/notification.repository.ts, getFeed) and the e2e tests.

const E2E = 'apps/api/src/app/notifications/e2e/get-activity-feed.e2e.ts'
const USE_CASE = 'notifications/usecases/get-activity-feed/get-activity-feed.usecase.ts'
const REPOSITORY = 'libs/dal/src/repositories/notification/notification.repository.ts'
const DTO = 'notifications/dtos/activities-request.dto.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'welcome', name: 'Welcome', steps: IN_APP_AND_EMAIL },
      { identifier: 'sms-only', name: 'SMS only', severity: 'high', steps: [{ type: 'sms' }] },
    ],
    subscribers: [{ subscriberId: 'alice', email: 'alice@example.com', firstName: 'Alice' }],
    topics: [{ topicKey: 'team', subscribers: ['alice', 'bob'] }],
  })

const ids = (notifications: readonly Notification[]) => notifications.map((n) => n.transactionId)

describe(`fidelity: listing notifications [${E2E}]`, () => {
  it(`${E2E}: "should get the current activity feed of user" (every notification, its template and subscriber)`, async () => {
    const { client } = setup()
    await client.events.trigger({ name: 'welcome', to: 'alice', payload: { firstName: 'Test' } })
    await client.events.trigger({ name: 'welcome', to: 'alice', payload: { firstName: 'Test' } })
    const page = await client.notifications.list({ page: 0 })
    expect(page.hasMore).toBe(false)
    expect(page.data).toHaveLength(2)
    expect(page.data[0]?.template?.name).toBe('Welcome')
    expect(page.data[0]?.subscriber?.firstName).toBe('Alice')
    expect(page.data[0]?.channels).toEqual(['in_app', 'email'])
  })

  it(`${E2E}: "should filter by channel"`, async () => {
    const { client } = setup()
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    await client.events.trigger({ name: 'sms-only', to: 'alice' })
    await client.events.trigger({ name: 'sms-only', to: 'alice' })
    const page = await client.notifications.list({ page: 0, channels: ['sms'] })
    expect(page.hasMore).toBe(false)
    expect(page.data.map((n) => n.template?.name)).toEqual(['SMS only', 'SMS only'])
  })

  it(`${E2E}: "should filter by templateId" (the workflow's _id)`, async () => {
    const { client, fake } = setup()
    await client.events.trigger({ name: 'sms-only', to: 'alice' })
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    const welcome = fake.notifications.find((n) => n.template.triggers[0]?.identifier === 'welcome')
    const page = await client.notifications.list({ templates: [welcome?._templateId ?? ''] })
    expect(page.data.map((n) => n._templateId)).toEqual([welcome?._templateId, welcome?._templateId])
  })

  it(`${E2E}: "should filter by email" (subscribers with that email)`, async () => {
    const { client } = setup()
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'erin', email: 'test@email.coms' } })
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'frank' } })
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    const page = await client.notifications.list({ emails: ['test@email.coms'] })
    expect(page.data.map((n) => n.subscriber?.subscriberId)).toEqual(['erin'])
  })

  it(`${E2E}: "should filter by subscriberId" (the subscriberId the app uses, not the internal _id)`, async () => {
    const { client } = setup()
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'user-some-test', email: 'x@y.z' } })
    await client.events.trigger({ name: 'welcome', to: 'bob' })
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    const page = await client.notifications.list({ subscriberIds: ['user-some-test'] })
    expect(page.data.map((n) => n.subscriber?.subscriberId)).toEqual(['user-some-test'])
  })

  it(`finds the notifications of one trigger by its transactionId, one per subscriber; several transactionIds match any [${REPOSITORY}: transactionId $in]`, async () => {
    const { client } = setup()
    const first = await client.events.trigger({ name: 'welcome', to: ['alice', 'bob'] })
    const second = await client.events.trigger({ name: 'welcome', to: 'alice' })
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    const one = await client.notifications.list({ transactionId: first.transactionId })
    expect(one.data.map((n) => n.subscriber?.subscriberId).sort()).toEqual(['alice', 'bob'])
    const both = await client.notifications.list({
      transactionId: [String(first.transactionId), String(second.transactionId)],
    })
    expect(both.data).toHaveLength(3)
  })

  it(`a subscriber filter that matches no subscriber answers an empty page 0, whatever page was asked [${USE_CASE}]`, async () => {
    const { client, send } = setup()
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    const answer = await send('GET', '/v1/notifications?subscriberIds=nobody&page=3&limit=5')
    expect([answer.status, answer.body]).toEqual([
      200,
      { data: { page: 0, hasMore: false, pageSize: 5, data: [] } },
    ])
  })

  it(`pages newest first, hasMore when a page comes back full, so the page after a full last page is empty [${USE_CASE}; ${REPOSITORY}: sort -createdAt]`, async () => {
    const { client, wait } = setup()
    for (let i = 0; i < 4; i++) {
      await client.events.trigger({ name: 'welcome', to: 'alice', transactionId: `tx-${i}` })
      wait(1000)
    }
    const first = await client.notifications.list({ limit: 2 })
    expect([ids(first.data), first.page, first.pageSize, first.hasMore]).toEqual([
      ['tx-3', 'tx-2'],
      0,
      2,
      true,
    ])
    const second = await first.getNextPage()
    expect([ids(second.data), second.hasMore]).toEqual([['tx-1', 'tx-0'], true])
    const third = await second.getNextPage()
    expect([ids(third.data), third.page, third.hasMore]).toEqual([[], 2, false])
    const all: string[] = []
    for await (const notification of client.notifications.list({ limit: 3 }))
      all.push(notification.transactionId)
    expect(all).toEqual(['tx-3', 'tx-2', 'tx-1', 'tx-0'])
  })

  it(`ten to a page without a limit [${DTO}: limit default 10]`, async () => {
    const { client } = setup()
    for (let i = 0; i < 11; i++) await client.events.trigger({ name: 'welcome', to: 'alice' })
    const page = await client.notifications.list()
    expect([page.data.length, page.pageSize, page.hasMore]).toEqual([10, 10, true])
  })

  it(`filters by severity (none matching a workflow without one), topic, and a time window [${REPOSITORY}]`, async () => {
    const { client, wait } = setup()
    await client.events.trigger({ name: 'welcome', to: 'alice', transactionId: 'plain' })
    wait(60_000)
    await client.events.trigger({
      name: 'sms-only',
      to: { type: 'Topic', topicKey: 'team' },
      transactionId: 'team',
    })
    expect(ids((await client.notifications.list({ severity: 'high' })).data)).toEqual(['team', 'team'])
    expect(ids((await client.notifications.list({ severity: ['none'] })).data)).toEqual(['plain'])
    expect(ids((await client.notifications.list({ topicKey: 'team' })).data)).toEqual(['team', 'team'])
    expect(ids((await client.notifications.list({ before: '2026-01-05T12:00:30Z' })).data)).toEqual(['plain'])
    expect((await client.notifications.list({ after: '2026-01-05T12:00:30Z' })).data).toHaveLength(2)
  })

  it(`contextKeys: an empty list matches notifications without context, a key matches none of them [${REPOSITORY}: buildContextExactMatchQuery]`, async () => {
    const { client } = setup()
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    expect((await client.notifications.list({ contextKeys: [] })).data).toHaveLength(1)
    expect((await client.notifications.list({ contextKeys: ['tenant:acme'] })).data).toHaveLength(0)
  })

  it(`refuses what the DTO refuses with 422 "Validation Error", and bad dates with 400 [${DTO}; ${USE_CASE}]`, async () => {
    const { send } = setup()
    const tooMany = await send('GET', '/v1/notifications?limit=51')
    expect(tooMany.status).toBe(422)
    expect(tooMany.body).toMatchObject({
      message: 'Validation Error',
      errors: { general: { messages: ['limit must not be greater than 50'] } },
    })
    const command = await send('GET', '/v1/notifications?channels=fax')
    expect(command.status).toBe(422)
    expect(command.body.message).toMatch(/^Validation failed for GetActivityFeedCommand: channels: /)
    expect((await send('GET', '/v1/notifications?templates=welcome')).status).toBe(422)
    const date = await send('GET', '/v1/notifications?after=yesterday')
    expect(date).toMatchObject({
      status: 400,
      body: {
        message:
          "Invalid date format for parameter 'after': yesterday. Please provide a valid ISO 8601 date string.",
      },
    })
    const range = await send('GET', '/v1/notifications?after=2026-02-01&before=2026-01-01')
    expect(range.status).toBe(400)
    expect(range.body.message).toMatch(/^Invalid date range/)
  })

  it('the SDK refuses the same values before sending', async () => {
    const { client, fake } = setup()
    const before = fake.requests.length
    await expect(client.notifications.list({ limit: 51 })).rejects.not.toBeInstanceOf(
      UnprocessableEntityError,
    )
    await expect(client.notifications.list({ after: 'yesterday' })).rejects.not.toBeInstanceOf(
      BadRequestError,
    )
    expect(fake.requests.length).toBe(before)
  })
})
