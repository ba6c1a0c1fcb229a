import { describe, expect, it } from 'vitest'
import { fakeWithClient as setup } from '../../helpers/fake.js'

// What a test reads to check the subscribers an app created or updated through its triggers.

describe('fake.subscribers and fake.subscriber(id)', () => {
  it('lists seeded subscribers, then those triggers created, in order of appearance', async () => {
    const { fake, client } = setup()
    // seededFake: alice and bob, then carol through the topic.
    expect(fake.subscribers.map((s) => s.subscriberId)).toEqual(['alice', 'bob', 'carol'])
    await client.events.trigger({
      name: 'welcome',
      to: ['dave', { subscriberId: 'erin', email: 'erin@example.com', data: { plan: 'pro' } }],
    })
    expect(fake.subscribers.map((s) => s.subscriberId)).toEqual(['alice', 'bob', 'carol', 'dave', 'erin'])
    expect(fake.subscriber('erin')).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      subscriberId: 'erin',
      email: 'erin@example.com',
      data: { plan: 'pro' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
  })

  it('shows the fields a trigger updated', async () => {
    const { fake, client } = setup()
    const before = fake.subscriber('alice')
    expect(before).toMatchObject({ email: 'alice@example.com', firstName: 'Alice' })
    await client.events.trigger({
      name: 'welcome',
      to: { subscriberId: 'alice', lastName: 'Liddell', phone: '+15550100' },
    })
    expect(fake.subscriber('alice')).toMatchObject({
      _id: before?._id,
      email: 'alice@example.com',
      firstName: 'Alice',
      lastName: 'Liddell',
      phone: '+15550100',
    })
  })

  it('is undefined for an unknown id', () => {
    expect(setup().fake.subscriber('nobody')).toBeUndefined()
  })

  it('gives copies: changing one does not change the fake', () => {
    const { fake } = setup()
    const copy = fake.subscriber('alice') as { email?: string | null }
    copy.email = 'changed@example.com'
    const list = fake.subscribers as unknown as unknown[]
    list.pop()
    expect(fake.subscriber('alice')?.email).toBe('alice@example.com')
    expect(fake.subscribers).toHaveLength(3)
  })
})
