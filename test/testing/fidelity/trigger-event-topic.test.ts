import { describe, expect, it } from 'vitest'
import { fidelityFake, IN_APP_AND_EMAIL } from './setup.js'

const SOURCE = 'apps/api/src/app/events/e2e/trigger-event-topic.e2e.ts'

const topic = (topicKey: string) => ({ type: 'Topic' as const, topicKey })

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'topic-event', steps: IN_APP_AND_EMAIL },
      { identifier: 'topic-sms', steps: [{ type: 'sms' }] },
      {
        identifier: 'topic-digest',
        steps: [{ type: 'digest', amount: 5, digestKey: 'id' }, { type: 'in_app' }],
      },
    ],
    subscribers: ['s1', 's2', 's3', 's4', 's5'].map((subscriberId) => ({
      subscriberId,
      phone: `+1555000${subscriberId}`,
    })),
    topics: [
      { topicKey: 'topic-a', subscribers: ['s1', 's2'] },
      { topicKey: 'topic-b', subscribers: ['s3', 's4'] },
    ],
  })

const reached = (notifications: { subscriber: { subscriberId: string } }[]) =>
  notifications.map((n) => n.subscriber.subscriberId).sort()

describe(`fidelity: ${SOURCE}`, () => {
  it(`answers a topic trigger processed, with a transactionId [${SOURCE}: "Trigger event for a topic": "should trigger an event successfully"]`, async () => {
    const { client } = setup()
    const result = await client.events.trigger({ name: 'topic-event', to: [topic('topic-a')] })
    expect(result).toMatchObject({
      acknowledged: true,
      status: 'processed',
      transactionId: expect.any(String),
    })
  })

  it(`creates one notification and one unseen in-app message per topic subscriber [${SOURCE}: "Trigger event for a topic": "should generate message and notification based on event"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'topic-event',
      to: [topic('topic-a')],
      payload: {
        firstName: 'Testing of User Name',
        urlVariable: '/test/url/path',
        attachments: [{ name: 'a.txt' }],
      },
    })
    expect(reached(fake.notifications)).toEqual(['s1', 's2'])
    for (const id of ['s1', 's2']) {
      const messages = fake.messages(id)
      expect(messages).toHaveLength(1)
      expect(messages[0]).toMatchObject({ seen: false, payload: { firstName: 'Testing of User Name' } })
      expect(messages[0]?.payload.attachments).toBeUndefined()
    }
    expect(fake.notifications[0]?.topics).toEqual([{ _topicId: expect.any(String), topicKey: 'topic-a' }])
  })

  it(`leaves the actor out of a topic's fan-out [${SOURCE}: "should exclude actor from topic events trigger"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'topic-event',
      to: [topic('topic-a')],
      actor: { subscriberId: 's1' },
    })
    expect(reached(fake.notifications)).toEqual(['s2'])
    expect(fake.messages('s1')).toEqual([])
  })

  it(`still notifies the actor when also named directly [${SOURCE}: "should only exclude actor from topic, should send event if actor explicitly included"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'topic-event',
      to: [topic('topic-a'), 's1'],
      actor: { subscriberId: 's1' },
    })
    expect(reached(fake.notifications)).toEqual(['s1', 's2'])
  })

  it(`sends the SMS step to every topic subscriber [${SOURCE}: "Trigger event for a topic": "should trigger SMS notification"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'topic-sms', to: [topic('topic-a')] })
    expect(fake.notifications.map((n) => [n.subscriber.subscriberId, n.jobs[0]?.status])).toEqual([
      ['s1', 'completed'],
      ['s2', 'completed'],
    ])
  })

  it(`reaches every subscriber of several topics and those named, each once [${SOURCE}: "Trigger event for multiple topics and multiple subscribers": "should generate message and notification based on event"]`, async () => {
    const { fake, client } = setup()
    const result = await client.events.trigger({
      name: 'topic-event',
      to: [
        topic('topic-a'),
        topic('topic-b'),
        's5',
        { subscriberId: 's6', firstName: 'Subscribers', lastName: 'Define' },
      ],
    })
    expect(result.status).toBe('processed')
    expect(reached(fake.notifications)).toEqual(['s1', 's2', 's3', 's4', 's5', 's6'])
    for (const id of ['s1', 's2', 's3', 's4', 's5', 's6']) expect(fake.messages(id)).toHaveLength(1)
    expect(fake.subscriber('s6')).toMatchObject({ firstName: 'Subscribers', lastName: 'Define' })
  })

  it(`digests each topic subscriber's triggers by digest key value [${SOURCE}: "should not contain events from a different digestKey "]`, async () => {
    const { fake, client, wait } = setup()
    for (const id of ['key-1', 'key-1', 'key-1', 'key-2', 'key-2', 'key-2']) {
      await client.events.trigger({ name: 'topic-digest', to: [topic('topic-a')], payload: { id } })
    }
    wait(5_000)
    for (const subscriberId of ['s1', 's2']) {
      const messages = fake.messages(subscriberId)
      expect(messages.map((m) => m.payload.id)).toEqual(['key-1', 'key-2'])
      const sent = fake.notifications.filter(
        (n) => n.subscriber.subscriberId === subscriberId && n.jobs[0]?.status === 'completed',
      )
      for (const notification of sent) {
        const events = notification.jobs[0]?.digest?.events ?? []
        expect(events.map((e) => e.id)).toEqual(Array(3).fill(notification.payload.id))
      }
    }
  })
})
