/**
 * `npm run demo`: the SDK's main job, end to end, against the embedded fake service on 127.0.0.1
 * (or a real server when NOTIFYKIT_BASE_URL and NOTIFYKIT_API_KEY are set). Exits 0 only if every
 * step did what it should.
 */

import { bulkTrigger } from './bulk-trigger.js'
import { digestAndCancel } from './digest-and-cancel.js'
import { Account, openEnvironment } from './environment.js'
import { handleErrors } from './handle-errors.js'
import { markMessages } from './mark-messages.js'
import { triggerAndRead } from './trigger-and-read.js'
import { updatePreferences } from './update-preferences.js'

const environment = await openEnvironment()
const account = new Account()
console.log(`notifykit demo against ${environment.target}`)
try {
  await triggerAndRead(environment, account)
  await updatePreferences(environment, account)
  await markMessages(environment, account)
  await digestAndCancel(environment, account)
  await bulkTrigger(environment, account)
  await handleErrors(environment, account)
} catch (error) {
  account.check(
    false,
    `unexpected failure: ${error instanceof Error ? `${error.name}: ${error.message}` : error}`,
  )
} finally {
  await environment.close()
}
console.log(
  account.failures === 0 ? '\nAll steps did what they should.' : `\n${account.failures} step(s) failed.`,
)
process.exitCode = account.failures === 0 ? 0 : 1
