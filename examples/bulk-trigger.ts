import type { Account, ExampleEnvironment } from './environment.js'

/** 250 events in one call: three requests of at most 100, results in input order. */
export async function bulkTrigger({ client }: ExampleEnvironment, account: Account): Promise<void> {
  const total = 250
  account.step(`Bulk-trigger ${total} "welcome" events`)
  const events = Array.from({ length: total }, (_, index) => ({
    name: 'welcome',
    to: { subscriberId: `bulk-user-${index}`, email: `user${index}@example.com` },
    payload: { firstName: `User ${index}` },
    transactionId: `bulk-${Date.now()}-${index}`,
  }))
  const results = await client.events.triggerBulk(events, {
    idempotencyKey: `demo-bulk-${Date.now()}`,
    onProgress: ({ sent, total }) => account.line(`progress: ${sent}/${total}`),
  })
  const inOrder = results.every((result, index) => result.transactionId === events[index]?.transactionId)
  account.line(
    `${results.length} results, ${results.filter((r) => r.status === 'processed').length} processed`,
  )
  account.check(results.length === total && inOrder, 'one result per event, in input order')
}
