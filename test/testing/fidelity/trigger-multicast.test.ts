import { describe, expect, it } from 'vitest'
import { fidelityFake } from './setup.js'

const SOURCE = 'apps/api/src/app/events/e2e/trigger-multicast.e2e.ts'

const topic = (topicKey: string) => ({ type: 'Topic' as const, topicKey })

const setup = () =>
  fidelityFake({
    workflows: [{ identifier: 'multicast', steps: [{ type: 'in_app' }] }],
    topics: [
      { topicKey: 'first', subscribers: ['a', 'b'] },
      { topicKey: 'second', subscribers: ['b', 'c'] },
    ],
  })

const reached = (notifications: { subscriber: { subscriberId: string } }[]) =>
  notifications.map((n) => n.subscriber.subscriberId)

describe(`fidelity: ${SOURCE}`, () => {
  // The server's worker fails such a trigger after acknowledging it; over HTTP the trigger is
  // `processed` and nothing reaches the subscribers of the unknown topic.
  it(`reaches no one through a topic that does not exist [${SOURCE}: "should fail on if provided topic key is not exists"]`, async () => {
    const { fake, client } = setup()
    const result = await client.events.trigger({ name: 'multicast', to: [topic('none_existing_topic_key')] })
    expect(result.status).toBe('processed')
    expect(fake.notifications).toEqual([])
  })

  it(`sends to the subscribers named, no topic involved [${SOURCE}: "should send only single subscribers forward to processing"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'multicast', to: ['a', 'b'] })
    expect(reached(fake.notifications)).toEqual(['a', 'b'])
    expect(fake.notifications.every((n) => n.topics.length === 0)).toBe(true)
  })

  it(`fans out to a topic's subscribers [${SOURCE}: "should fan-out only subscriber from topic to processing"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'multicast', to: [topic('first')] })
    expect(reached(fake.notifications)).toEqual(['a', 'b'])
  })

  it(`sends to the subscribers named and fans out to the topic's [${SOURCE}: "should send single subscribers and fan-out subscriber from topic forward to to processing"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'multicast', to: ['z', topic('first')] })
    expect(reached(fake.notifications)).toEqual(['z', 'a', 'b'])
  })

  it(`leaves the actor out of the fan-out [${SOURCE}: "should exclude the actor from the topic fan-out"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'multicast', to: [topic('first')], actor: 'a' })
    expect(reached(fake.notifications)).toEqual(['b'])
  })

  it(`sends once to a subscriber named and in the topic [${SOURCE}: "should deduplicate single subscriber from topic fan-out"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'multicast', to: ['a', 'b', topic('first')] })
    expect(reached(fake.notifications)).toEqual(['a', 'b'])
    expect(fake.notifications.map((n) => n.topics)).toEqual([[], []])
  })

  it(`sends once to a subscriber of two topics [${SOURCE}: "should deduplicate subscribers across topics"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'multicast', to: [topic('first'), topic('second')] })
    expect(reached(fake.notifications)).toEqual(['a', 'b', 'c'])
    expect(fake.notifications.map((n) => n.topics[0]?.topicKey)).toEqual(['first', 'first', 'second'])
  })

  it(`sends once across subscribers named and topics [${SOURCE}: "should deduplicate subscribers across single subscribers and topics"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'multicast', to: ['c', topic('first'), topic('second')] })
    expect(reached(fake.notifications)).toEqual(['c', 'a', 'b'])
  })
})
