import type { Notification, NotificationClient } from 'notifykit'
import type { Account, ExampleEnvironment } from './environment.js'

/**
 * Trigger a workflow for one subscriber and for a topic, then read back what each trigger did: its
 * notifications by transactionId, and one of them with its jobs.
 */
export async function triggerAndRead({ client }: ExampleEnvironment, account: Account): Promise<void> {
  account.step('Trigger "welcome" for subscriber ada')
  const { data: single, response } = await client.events
    .trigger(
      {
        name: 'welcome',
        to: { subscriberId: 'ada', email: 'ada@example.com' },
        payload: { firstName: 'Ada' },
      },
      { idempotencyKey: `welcome-ada-${Date.now()}` },
    )
    .withResponse()
  account.line(`status ${single.status}, transactionId ${single.transactionId}, HTTP ${response.status}`)
  account.check(single.acknowledged && single.status === 'processed', 'acknowledged and processed')

  account.step('Trigger "welcome" for the topic beta-testers, excluding linus')
  const topic = await client.events.trigger({
    name: 'welcome',
    to: { type: 'Topic', topicKey: 'beta-testers', exclude: ['linus'] },
    payload: { firstName: 'tester' },
  })
  account.line(`status ${topic.status}, transactionId ${topic.transactionId}`)

  account.step('List the notifications of the topic trigger, by its transactionId')
  const recipients = (await notificationsOf(client, String(topic.transactionId), 2)).map(
    (notification) => notification.subscriber?.subscriberId,
  )
  account.line(`notifications created for: ${recipients.join(', ')}`)
  account.check(
    recipients.sort().join(',') === 'ada,grace',
    'one notification per topic subscriber, minus the excluded',
  )

  account.step('Read the notification of the first trigger again, with its jobs')
  const [listed] = await notificationsOf(client, String(single.transactionId), 1)
  if (listed?._id === undefined) {
    account.check(false, 'the first trigger made a notification')
    return
  }
  const notification = await client.notifications.get(listed._id)
  account.line(`notification ${notification._id} for ${notification.subscriber?.subscriberId}`)
  for (const job of notification.jobs ?? []) {
    account.line(`  job ${job.type}: ${job.status} (${job.executionDetails?.length ?? 0} execution details)`)
  }
  account.check((notification.jobs?.length ?? 0) === 2, 'two jobs, one per workflow step')
}

/**
 * The notifications of one trigger. The fake makes them at once; a real server's worker makes them
 * moments after the trigger returns, so the list is read again, a few times, until they are there.
 */
async function notificationsOf(
  client: NotificationClient,
  transactionId: string,
  expected: number,
): Promise<Notification[]> {
  let found: Notification[] = []
  for (let attempt = 0; attempt < 10; attempt++) {
    found = []
    for await (const notification of client.notifications.list({ transactionId })) found.push(notification)
    if (found.length >= expected) break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  return found
}
