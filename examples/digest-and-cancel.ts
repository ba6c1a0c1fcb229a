import type { Account, ExampleEnvironment } from './environment.js'

/** A digest waits; cancelling it succeeds once, and the second cancel finds nothing. */
export async function digestAndCancel({ client }: ExampleEnvironment, account: Account): Promise<void> {
  const transactionId = `digest-grace-${Date.now()}`
  account.step(`Trigger "weekly-digest" for grace (transactionId ${transactionId}), then cancel it`)
  await client.events.trigger({
    name: 'weekly-digest',
    to: 'grace',
    payload: { item: 'New comment' },
    transactionId,
  })
  const first = await client.events.cancel(transactionId)
  account.line(`first cancel: ${first}`)
  account.check(first === true, 'the delayed digest job was cancelled')
  const second = await client.events.cancel(transactionId)
  account.line(`second cancel: ${second}`)
  account.check(second === false, 'nothing left to cancel')
}
