import type { Account, ExampleEnvironment } from './environment.js'

/** Mark every in-app message read; the second time nothing changes. */
export async function markMessages({ client }: ExampleEnvironment, account: Account): Promise<void> {
  account.step('Mark all of ada’s messages as read')
  const changed = await client.subscribers.messages.markAll('ada', { markAs: 'read' })
  account.line(`${changed} message(s) changed`)
  account.check(changed > 0, 'the in-app messages from the welcome triggers were marked')
  const again = await client.subscribers.messages.markAll('ada', { markAs: 'read' })
  account.line(`again: ${again} message(s) changed`)
  account.check(again === 0, 'nothing left to change')
}
