import { NotifyKitError, UnprocessableEntityError } from 'notifykit'
import type { Account, ExampleEnvironment } from './environment.js'

/** An unknown workflow is a typed error with the server's message, not a silent no-op. */
export async function handleErrors({ client }: ExampleEnvironment, account: Account): Promise<void> {
  account.step('Trigger a workflow that does not exist')
  try {
    await client.events.trigger({ name: 'no-such-workflow', to: 'ada' })
    account.check(false, 'expected an error')
  } catch (error) {
    if (!(error instanceof NotifyKitError)) throw error
    account.line(`${error.name} (${error.code}): ${error.message}`)
    account.check(error instanceof UnprocessableEntityError && error.attempts === 1, 'a 422, not retried')
  }
}
