import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { NotificationClient } from '../../../src/index.js'
import { createFakeService } from '../../../src/testing/index.js'

// The setup an app's suite writes: one fake for the file, seeded in beforeAll, reset after each test.
// Before `reset()` kept `add*()` seeds, the second test here got 422 workflow_not_found.

const fake = createFakeService({ apiKey: 'test-key', subscribers: [{ subscriberId: 'seeded-by-options' }] })
const client = new NotificationClient({
  apiKey: 'test-key',
  baseUrl: 'https://fake.test',
  fetch: fake.fetch,
  logLevel: 'off',
})

beforeAll(() => {
  fake.addWorkflow({ identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] })
  fake.addSubscriber({ subscriberId: 'ada', email: 'ada@example.com', firstName: 'Ada' })
  fake.addTopic({ topicKey: 'team', subscribers: ['ada', 'bob'] })
})
afterEach(() => fake.reset())

describe('beforeAll(add*) + afterEach(reset)', () => {
  it('first test: the seeded workflow, subscriber and topic are there', async () => {
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Changed' } })
    await client.events.trigger({ name: 'welcome', to: 'newcomer' })
    expect(fake.notifications).toHaveLength(2)
    expect(fake.subscriber('ada')?.firstName).toBe('Changed')
  })

  it('second test: still there, and what the first test did is gone', async () => {
    expect(fake.notifications).toEqual([])
    expect(fake.requests).toEqual([])
    expect(fake.subscriber('newcomer')).toBeUndefined()
    expect(fake.subscriber('ada')).toMatchObject({ email: 'ada@example.com', firstName: 'Ada' })
    const result = await client.events.trigger({ name: 'welcome', to: { type: 'Topic', topicKey: 'team' } })
    expect(result).toMatchObject({ acknowledged: true, status: 'processed' })
    expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['ada', 'bob'])
  })

  it('keeps the seeds as they were added, not as the test later edited its objects', async () => {
    const workflow: { identifier: string; steps: { type: string }[] } = {
      identifier: 'alert',
      steps: [{ type: 'sms' }],
    }
    fake.addWorkflow(workflow)
    workflow.steps.push({ type: 'email' })
    fake.reset()
    expect(fake.subscribers.map((s) => s.subscriberId)).toEqual(['seeded-by-options', 'ada', 'bob'])
    await client.events.trigger({ name: 'alert', to: 'ada' })
    expect(fake.notifications[0]?.jobs.map((j) => j.type)).toEqual(['sms'])
  })

  it('reset({ keepAdded: false }) goes back to what createFakeService was given', async () => {
    fake.reset({ keepAdded: false })
    expect(fake.subscribers.map((s) => s.subscriberId)).toEqual(['seeded-by-options'])
    await expect(client.events.trigger({ name: 'welcome', to: 'ada' })).rejects.toMatchObject({ status: 422 })
    // Put back what beforeAll seeded, for any test after this one.
    fake.addWorkflow({ identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] })
    fake.addSubscriber({ subscriberId: 'ada', email: 'ada@example.com', firstName: 'Ada' })
    fake.addTopic({ topicKey: 'team', subscribers: ['ada', 'bob'] })
  })
})
