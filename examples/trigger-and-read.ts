import type { Account, ExampleEnvironment } from './environment.js'

/** Trigger a workflow for one subscriber and for a topic, then read a notification with its jobs. */
export async function triggerAndRead({ client, fake }: ExampleEnvironment, account: Account): Promise<void> {
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
  if (fake) {
    const recipients = fake.notifications
      .filter((notification) => notification.transactionId === topic.transactionId)
      .map((notification) => notification.subscriber.subscriberId)
    account.line(`notifications created for: ${recipients.join(', ')}`)
    account.check(
      recipients.sort().join(',') === 'ada,grace',
      'one notification per topic subscriber, minus the excluded',
    )
  }

  account.step('Read the notification of the first trigger, with its jobs')
  const notificationId =
    fake?.notifications.find((notification) => notification.transactionId === single.transactionId)?._id ??
    process.env.NOTIFYKIT_DEMO_NOTIFICATION_ID
  if (!notificationId) {
    account.line('skipped: set NOTIFYKIT_DEMO_NOTIFICATION_ID to read one from a real server')
    return
  }
  const notification = await client.notifications.get(notificationId)
  account.line(`notification ${notification._id} for ${notification.subscriber?.subscriberId}`)
  for (const job of notification.jobs ?? []) {
    account.line(`  job ${job.type}: ${job.status} (${job.executionDetails?.length ?? 0} execution details)`)
  }
  account.check((notification.jobs?.length ?? 0) === 2, 'two jobs, one per workflow step')
}
