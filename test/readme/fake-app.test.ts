import { NotificationClient } from 'notifykit'
import { createFakeService } from 'notifykit/testing'
import { expect, it } from 'vitest'

// Your application code.
async function onSignup(client: NotificationClient, user: { id: string; email: string }) {
  await client.events.trigger({ name: 'welcome', to: { subscriberId: user.id, email: user.email } })
}

it('sends the welcome notification on signup', async () => {
  const fake = createFakeService({
    apiKey: 'test-key',
    workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] }],
  })
  const client = new NotificationClient({
    apiKey: 'test-key',
    baseUrl: 'https://fake.test',
    fetch: fake.fetch,
  })

  await onSignup(client, { id: 'u1', email: 'u1@example.com' })

  expect(fake.notifications).toHaveLength(1)
  expect(fake.notifications[0]?.subscriber).toMatchObject({ subscriberId: 'u1', email: 'u1@example.com' })
  expect(fake.messages('u1')).toHaveLength(1)
})
