import { describe, expect, it } from 'vitest'
import { NotFoundError, type NotificationClient } from '../../../src/index.js'
import type { FakeService } from '../../../src/testing/index.js'
import { changedBy, rawFetch, fakeWithClient as setup } from './setup.js'

// POST /v1/subscribers/:subscriberId/messages/mark-all, checked against the server's
// apps/api/src/app/subscribers/e2e/mark-all-subscriber-messages.e2e.ts and the code it runs
// (MarkAllMessagesAs use case, MessageRepository.markAllMessagesAs, the controller's toArray).

const E2E = 'mark-all-subscriber-messages.e2e.ts'
const REPOSITORY = 'libs/dal/src/repositories/message/message.repository.ts (markAllMessagesAs)'
const CONTROLLER = 'apps/api/src/app/subscribers/subscribers.controller.ts (markAllUnreadAsRead, toArray)'

/** Five in-app messages for alice, as the e2e tests' five triggers of a one-in-app-step template. */
async function fiveMessages(client: NotificationClient): Promise<void> {
  for (let i = 0; i < 5; i++) await client.events.trigger({ name: 'welcome', to: 'alice' })
}

const flags = (fake: FakeService) => fake.messages('alice').map((m) => ({ read: m.read, seen: m.seen }))
const all = (read: boolean, seen: boolean) => Array.from({ length: 5 }, () => ({ read, seen }))

describe(`mark-all, as ${E2E}`, () => {
  it(`${E2E}: "should throw not found when subscriberId doesn't exist"`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    const environmentId = fake.notifications[0]?._environmentId
    const error = await client.subscribers.messages
      .markAll('fake-subscriber-id', { markAs: 'read' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).message).toContain(
      `Subscriber fake-subscriber-id does not exist in environment ${environmentId}, please provide a valid subscriber identifier`,
    )
  })

  it(`${E2E}: "should mark all the subscriber messages as read"`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'read' })).toBe(5)
    expect(flags(fake)).toEqual(all(true, true))
  })

  it(`${E2E}: "should not mark all the messages as read if they are already read"`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    await client.subscribers.messages.markAll('alice', { markAs: 'read' })
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'read' })).toBe(0)
    expect(flags(fake)).toEqual(all(true, true))
  })

  it(`${E2E}: "should mark all the subscriber messages as unread" (read and seen become unread, still seen)`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    await client.subscribers.messages.markAll('alice', { markAs: 'read' })
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'unread' })).toBe(5)
    expect(flags(fake)).toEqual(all(false, true))
  })

  it(`${E2E}: "should mark all the subscriber messages as seen" (read untouched)`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'seen' })).toBe(5)
    expect(flags(fake)).toEqual(all(false, true))
  })

  it(`${E2E}: "should mark all the subscriber messages as unseen"`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    await client.subscribers.messages.markAll('alice', { markAs: 'seen' })
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'unseen' })).toBe(5)
    expect(flags(fake)).toEqual(all(false, false))
  })
})

describe('mark-all, as the code the e2e tests run', () => {
  it(`${REPOSITORY}: unseen sets only seen: false, so read messages stay read`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    await client.subscribers.messages.markAll('alice', { markAs: 'read' })
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'unseen' })).toBe(5)
    expect(flags(fake)).toEqual(all(true, false))
  })

  it(`${REPOSITORY}: unread matches read messages only and marks them seen`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    // Unread and unseen: nothing is read, so nothing matches and nothing changes.
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'unread' })).toBe(0)
    expect(flags(fake)).toEqual(all(false, false))
  })

  it(`${REPOSITORY}: unread sets seen: true on the read messages it matches`, async () => {
    const { fake, client } = setup()
    await fiveMessages(client)
    await client.subscribers.messages.markAll('alice', { markAs: 'read' })
    await client.subscribers.messages.markAll('alice', { markAs: 'unseen' })
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'unread' })).toBe(5)
    expect(flags(fake)).toEqual(all(false, true))
  })

  it(`${REPOSITORY}: the count is what the query matched (messages in the other state)`, async () => {
    const { client } = setup()
    await fiveMessages(client)
    await client.subscribers.messages.markAll('alice', { markAs: 'seen' })
    await client.events.trigger({ name: 'welcome', to: 'alice' })
    // Six messages, five of them already seen: unseen matches those five.
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'unseen' })).toBe(5)
    expect(await client.subscribers.messages.markAll('alice', { markAs: 'seen' })).toBe(6)
  })

  it(`${CONTROLLER}: a feedIdentifier given as one comma-separated string names several feeds`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'feeds', to: 'alice' })
    expect(
      await client.subscribers.messages.markAll('alice', { markAs: 'read', feedIdentifier: 'news,alerts' }),
    ).toBe(2)
    expect(fake.messages('alice').map((m) => [m.feedIdentifier, m.read])).toEqual([
      ['news', true],
      ['alerts', true],
      [null, false],
    ])
  })

  it(`${CONTROLLER}: a feedIdentifier array names those feeds; an empty string names none, so all count`, async () => {
    const { client } = setup()
    await client.events.trigger({ name: 'feeds', to: 'alice' })
    expect(
      await client.subscribers.messages.markAll('alice', { markAs: 'seen', feedIdentifier: ['alerts'] }),
    ).toBe(1)
    const { fake } = setup()
    await rawFetch(fake, 'POST', '/v1/events/trigger', { name: 'feeds', to: 'alice' })
    const unfiltered = await rawFetch(fake, 'POST', '/v1/subscribers/alice/messages/mark-all', {
      markAs: 'seen',
      feedIdentifier: '',
    })
    expect(unfiltered.body).toEqual({ data: 3 })
  })

  it(`apps/api/src/app/widgets/usecases/mark-all-messages-as/mark-all-messages-as.command.ts: a missing markAs is the command's 422, before the subscriber is looked up ${changedBy('commandValidation422')} ${changedBy('commandValidationMessage')}`, async () => {
    const { fake } = setup()
    for (const subscriber of ['alice', 'nobody']) {
      const answer = await rawFetch(fake, 'POST', `/v1/subscribers/${subscriber}/messages/mark-all`, {})
      expect(answer.status).toBe(422)
      expect(answer.body).toEqual({
        statusCode: 422,
        timestamp: expect.any(String),
        path: `/v1/subscribers/${subscriber}/messages/mark-all`,
        message:
          'Validation failed for MarkAllMessagesAsCommand: markAs: markAs should not be null or undefined',
        ctx: {},
        errors: { markAs: { messages: ['markAs should not be null or undefined'] } },
      })
    }
  })
})
