import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  AuthenticationError,
  BadRequestError,
  BulkTriggerError,
  ConflictError,
  NotFoundError,
  NotificationClient,
  type Preferences,
  RateLimitError,
  UnprocessableEntityError,
} from '../../../src/index.js'
import { createFakeService, type FakeService } from '../../../src/testing/index.js'
import { API_KEY, fakeConnection, seededFake } from '../../helpers/fake.js'
import { nodeFetch, TRANSPORTS, type TransportName } from '../../helpers/transport.js'

// The fake through the SDK's real pipeline, over each transport: in memory through fake.dispatcher
// (undici) or a fetch answering from fake.handle, and on a real socket through fake.listen().

function clientOver(transport: TransportName, fake: FakeService, apiKey = API_KEY): NotificationClient {
  return new NotificationClient({
    apiKey,
    baseUrl: 'https://fake.test',
    ...fakeConnection(fake, transport),
    logLevel: 'off',
  })
}

afterEach(() => {
  vi.useRealTimers()
})

describe.each(TRANSPORTS)('over %s', (transport) => {
  const clientFor = (fake: FakeService, apiKey?: string) => clientOver(transport, fake, apiKey)
  const setup = (options?: Parameters<typeof seededFake>[0]) => {
    const fake = seededFake(options)
    return { fake, client: clientFor(fake) }
  }
  /** The fake on 127.0.0.1, and a client over a real socket: its own undici Agent, or Node's fetch. */
  const listening = async () => {
    const fake = seededFake()
    const server = await fake.listen()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: server.baseUrl,
      logLevel: 'off',
      ...(transport === 'fetch' ? { fetch: nodeFetch } : {}),
    })
    return { fake, server, client }
  }

  describe('the fake through the SDK: events', () => {
    it('creates one notification per recipient, with a job per step', async () => {
      const { fake, client } = setup()
      const result = await client.events.trigger({
        name: 'welcome',
        to: ['alice', { subscriberId: 'dave', firstName: 'Dave' }],
        payload: { plan: 'pro' },
      })
      expect(result).toMatchObject({ acknowledged: true, status: 'processed' })
      const notifications = fake.notifications
      expect(notifications.map((n) => [n.subscriber.subscriberId, n.transactionId])).toEqual([
        ['alice', result.transactionId],
        ['dave', result.transactionId],
      ])
      expect(notifications[0]?.jobs.map((j) => [j.type, j.status])).toEqual([
        ['in_app', 'completed'],
        ['email', 'completed'],
      ])
      expect(notifications[1]?.payload).toEqual({ plan: 'pro' })
    })

    it('expands a topic to its subscribers minus exclude', async () => {
      const { fake, client } = setup()
      await client.events.trigger({
        name: 'welcome',
        to: { type: 'Topic', topicKey: 'team', exclude: ['bob'] },
      })
      expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['alice', 'carol'])
      expect(fake.notifications[0]?.topics).toEqual([{ _topicId: expect.any(String), topicKey: 'team' }])
    })

    it('rejects an unknown workflow with UnprocessableEntityError workflow_not_found', async () => {
      const { fake, client } = setup()
      const error = await client.events.trigger({ name: 'missing', to: 'alice' }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UnprocessableEntityError)
      expect(error).toMatchObject({ status: 422, body: { message: 'workflow_not_found' } })
      expect(fake.notifications).toHaveLength(0)
    })

    it('ignores a repeated transactionId', async () => {
      const { fake, client } = setup()
      await client.events.trigger({ name: 'welcome', to: 'alice', transactionId: 'order-1' })
      const again = await client.events.trigger({ name: 'welcome', to: 'bob', transactionId: 'order-1' })
      expect(again).toMatchObject({ acknowledged: true, transactionId: 'order-1' })
      expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['alice'])
    })

    it('leaves digest jobs delayed; cancel answers true, then false', async () => {
      const { fake, client } = setup()
      await client.events.trigger({ name: 'digest', to: 'alice', transactionId: 'tx-digest' })
      expect(fake.notifications[0]?.jobs.map((j) => j.status)).toEqual(['completed', 'delayed', 'pending'])
      expect(await client.events.cancel('tx-digest')).toBe(true)
      expect(await client.events.cancel('tx-digest')).toBe(false)
      expect(fake.notifications[0]?.jobs.map((j) => j.status)).toEqual(['completed', 'canceled', 'canceled'])
    })

    it('processes bulk events one by one; the event of an unknown workflow is not sent, and the call says so', async () => {
      const { fake, client } = setup()
      const error = await client.events
        .triggerBulk([
          { name: 'welcome', to: 'alice', payload: {} },
          { name: 'missing', to: 'alice', payload: {} },
        ])
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(BulkTriggerError)
      const { results, failures } = error as BulkTriggerError
      expect(results).toEqual([expect.objectContaining({ status: 'processed' }), undefined])
      expect(failures).toEqual([
        {
          chunkIndex: 0,
          eventIndexes: [1],
          events: [{ index: 1, to: 'alice' }],
          error: expect.objectContaining({
            result: { acknowledged: true, status: 'error', error: ['workflow_not_found'] },
          }),
        },
      ])
      expect(fake.notifications).toHaveLength(1)
    })

    it('broadcasts to every subscriber', async () => {
      const { fake, client } = setup()
      await client.events.broadcast({ name: 'welcome', payload: { news: 'v2' } })
      expect(fake.notifications).toHaveLength(3)
    })
  })

  describe('the fake through the SDK: messages', () => {
    it('markAll counts the messages that changed, optionally only some feeds', async () => {
      const { fake, client } = setup()
      await client.events.trigger({ name: 'feeds', to: 'alice' })
      expect(
        await client.subscribers.messages.markAll('alice', { markAs: 'read', feedIdentifier: 'news' }),
      ).toBe(1)
      expect(
        await client.subscribers.messages.markAll('alice', {
          markAs: 'read',
          feedIdentifier: ['news', 'alerts'],
        }),
      ).toBe(1)
      expect(await client.subscribers.messages.markAll('alice', { markAs: 'read' })).toBe(1)
      expect(await client.subscribers.messages.markAll('alice', { markAs: 'read' })).toBe(0)
      expect(fake.messages('alice').every((m) => m.read && m.seen)).toBe(true)
    })

    it('markAll for an unknown subscriber is a NotFoundError', async () => {
      const { client } = setup()
      await expect(client.subscribers.messages.markAll('ghost', { markAs: 'seen' })).rejects.toBeInstanceOf(
        NotFoundError,
      )
    })
  })

  describe('the fake through the SDK: preferences', () => {
    it('merges updates, returns the v2 shape and does not store a schedule sent with workflowId', async () => {
      const { fake, client } = setup()
      await client.subscribers.preferences.update('alice', { channels: { email: false } })
      const schedule = {
        isEnabled: true,
        weeklySchedule: { friday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '12:00 PM' }] } },
      }
      // The client refuses a schedule beside workflowId; the fake's answer to one is reached raw.
      const response = await fake.fetch('https://fake.test/v2/subscribers/alice/preferences', {
        method: 'PATCH',
        headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflowId: 'welcome', channels: { in_app: false }, schedule }),
      })
      const prefs = ((await response.json()) as { data: Preferences }).data
      expect(prefs.global).toEqual({ enabled: true, channels: { in_app: true, email: false, sms: true } })
      expect(prefs.workflows?.find((w) => w.workflow?.identifier === 'welcome')).toEqual({
        enabled: true,
        channels: { in_app: false, email: false },
        overrides: [
          { channel: 'in_app', source: 'subscriber' },
          { channel: 'email', source: 'subscriber' },
        ],
        updatedAt: expect.any(String),
        workflow: { slug: 'welcome', identifier: 'welcome', name: 'Welcome', updatedAt: expect.any(String) },
      })
      expect(fake.preferences('alice')).toEqual(prefs)
    })

    it('refuses changes to a critical workflow with BadRequestError', async () => {
      const { client } = setup()
      const error = await client.subscribers.preferences
        .update('alice', { workflowId: 'security', channels: { email: false } })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(BadRequestError)
      expect(error).toMatchObject({ status: 400 })
    })

    it('answers an unknown workflow or subscriber with NotFoundError', async () => {
      const { client } = setup()
      await expect(
        client.subscribers.preferences.update('alice', { workflowId: 'nope' }),
      ).rejects.toBeInstanceOf(NotFoundError)
      await expect(
        client.subscribers.preferences.update('ghost', { channels: { sms: true } }),
      ).rejects.toBeInstanceOf(NotFoundError)
    })
  })

  describe('the fake through the SDK: notifications', () => {
    it('returns the stored notification with its jobs', async () => {
      const { fake, client } = setup()
      await client.events.trigger({ name: 'welcome', to: 'alice' })
      const id = fake.notifications[0]?._id ?? ''
      const notification = await client.notifications.get(id)
      expect(notification).toMatchObject({ _id: id, subscriber: { subscriberId: 'alice' } })
      expect(notification.jobs).toHaveLength(2)
    })

    it('answers a missing notification with NotFoundError, in both server styles', async () => {
      await expect(setup().client.notifications.get('000000000000000000000000')).rejects.toBeInstanceOf(
        NotFoundError,
      )
      await expect(
        setup({ missingNotification: 'null' }).client.notifications.get('000000000000000000000000'),
      ).rejects.toBeInstanceOf(NotFoundError)
    })
  })

  describe('the fake through the SDK: protocol', () => {
    it('replays the same key and body with Idempotency-Replay, and refuses the key with another body', async () => {
      const { fake, client } = setup()
      const event = { name: 'welcome', to: 'alice' }
      const first = await client.events.trigger(event, { idempotencyKey: 'job-42' }).withResponse()
      const replay = await client.events.trigger(event, { idempotencyKey: 'job-42' }).withResponse()
      expect(replay.data).toEqual(first.data)
      expect(replay.response.headers['idempotency-replay']).toBe('true')
      expect(replay.response.headers['idempotency-key']).toBe('job-42')
      expect(fake.notifications).toHaveLength(1)
      await expect(
        client.events.trigger({ ...event, to: 'bob' }, { idempotencyKey: 'job-42' }),
      ).rejects.toBeInstanceOf(UnprocessableEntityError)
    })

    it('answers a key over 255 characters with 400', async () => {
      const fake = seededFake()
      const key = 'k'.repeat(256)
      const response = await fake.handle(
        new Request('https://fake.test/v1/events/trigger', {
          method: 'POST',
          headers: { authorization: `ApiKey ${API_KEY}`, 'idempotency-key': key },
          body: JSON.stringify({ name: 'welcome', to: 'alice' }),
        }),
      )
      // The SDK refuses such a key before sending, so this one is asserted on the fake directly.
      expect(response.status).toBe(400)
    })

    it('answers ConflictError with Retry-After while the first request with the key is in flight', async () => {
      vi.useFakeTimers()
      const { fake, client } = setup()
      fake.delay(1_000)
      const event = { name: 'welcome', to: 'alice' }
      const first = client.events.trigger(event, { idempotencyKey: 'slow' }).withResponse()
      await vi.advanceTimersByTimeAsync(10)
      const second = client.events
        .trigger(event, { idempotencyKey: 'slow', maxRetries: 0 })
        .catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(1_000)
      const error = await second
      expect(error).toBeInstanceOf(ConflictError)
      expect(error).toMatchObject({ status: 409, retryAfterMs: 1_000 })
      expect((await first).response.status).toBe(201)
      expect(fake.notifications).toHaveLength(1)
    })

    it('rate limits with 429 and Retry-After, bulk costing 100', async () => {
      const { fake, client: pacedClient } = setup({ rateLimit: { limit: 101, windowMs: 60_000 } })
      // The fake's answers as they are: the client's pacing would hold the last call for the refill.
      const client = pacedClient.withOptions({ rateLimit: 'off' })
      const { response } = await client.events.trigger({ name: 'welcome', to: 'alice' }).withResponse()
      expect(response.headers['ratelimit-remaining']).toBe('100')
      await client.events.triggerBulk([{ name: 'welcome', to: 'bob', payload: {} }])
      const error = await client.events
        .trigger({ name: 'welcome', to: 'alice' }, { maxRetries: 0 })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(RateLimitError)
      expect(error).toMatchObject({
        status: 429,
        retryAfterMs: 60_000,
        body: { message: 'API rate limit exceeded' },
      })
      expect(fake.notifications).toHaveLength(2)
    })

    it('refuses a wrong key with AuthenticationError', async () => {
      const fake = seededFake()
      await expect(clientFor(fake, 'wrong-key').events.cancel('x')).rejects.toBeInstanceOf(
        AuthenticationError,
      )
      const open = createFakeService()
      expect(await clientFor(open, 'any-key').events.cancel('x')).toBe(false)
    })

    it('fails the next requests with a status; the SDK retries through them', async () => {
      const { fake, client } = setup()
      fake.failNext({ status: 503, times: 2, headers: { 'retry-after': '0' } })
      const { response } = await client.events.trigger({ name: 'welcome', to: 'alice' }).withResponse()
      expect(response.attempts).toBe(3)
      expect(fake.requests).toHaveLength(3)
      expect(fake.notifications).toHaveLength(1)
    })

    it('drops the connection before applying: the retry sends it once', async () => {
      const { fake, client } = setup()
      fake.failNext({ dropConnection: true })
      const { response } = await client.events.trigger({ name: 'welcome', to: 'alice' }).withResponse()
      expect(response.attempts).toBe(2)
      expect(response.headers['idempotency-replay']).toBeUndefined()
      expect(fake.notifications).toHaveLength(1)
    })

    it('drops the connection after applying: the retry is a replay, so the send happens exactly once', async () => {
      const { fake, client } = setup()
      fake.failNext({ dropConnection: true, afterApply: true })
      const { response } = await client.events.trigger({ name: 'welcome', to: 'alice' }).withResponse()
      expect(response.attempts).toBe(2)
      expect(response.headers['idempotency-replay']).toBe('true')
      expect(fake.notifications).toHaveLength(1)
      const keys = fake.requests.map((r) => r.headers['idempotency-key'])
      expect(keys[0]).toBeTruthy()
      expect(keys[1]).toBe(keys[0])
    })

    it('delays answers until the timers say so', async () => {
      vi.useFakeTimers()
      const { fake, client } = setup()
      fake.delay(300)
      let settled = false
      const pending = client.events.cancel('x').then((value) => {
        settled = true
        return value
      })
      await vi.advanceTimersByTimeAsync(299)
      expect(settled).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(await pending).toBe(false)
    })

    it('records requests, and reset forgets them with the state', async () => {
      const { fake, client } = setup()
      await client.events.trigger({ name: 'welcome', to: 'alice' })
      expect(fake.requests).toEqual([
        {
          method: 'POST',
          path: '/v1/events/trigger',
          headers: expect.objectContaining({
            authorization: `ApiKey ${API_KEY}`,
            'idempotency-key': expect.any(String),
          }),
          body: { name: 'welcome', to: 'alice' },
        },
      ])
      fake.reset()
      expect(fake.requests).toEqual([])
      expect(fake.notifications).toEqual([])
      expect(await client.events.trigger({ name: 'welcome', to: 'alice' })).toMatchObject({
        status: 'processed',
      })
    })
  })

  describe('the fake through the SDK: over a real socket', () => {
    it('serves the SDK with its real transport through listen()', async () => {
      const { fake, server, client } = await listening()
      try {
        const result = await client.events.trigger({ name: 'digest', to: 'alice' })
        expect(await client.events.cancel(result.transactionId ?? '')).toBe(true)
        const notification = await client.notifications.get(fake.notifications[0]?._id ?? '')
        expect(notification.jobs?.map((j) => j.status)).toEqual(['completed', 'canceled', 'canceled'])
      } finally {
        await client.close()
        await server.close()
      }
    })

    it('survives a dropped connection after apply over a real socket, sending once', async () => {
      const { fake, server, client } = await listening()
      try {
        fake.failNext({ dropConnection: true, afterApply: true })
        await client.events.trigger({ name: 'welcome', to: 'alice' })
        expect(fake.notifications).toHaveLength(1)
        expect(fake.requests).toHaveLength(2)
      } finally {
        await client.close()
        await server.close()
      }
    })
  })
})
