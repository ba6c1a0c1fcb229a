import type { Account, ExampleEnvironment } from './environment.js'

/** Global channel switches with a weekly schedule, then one workflow's switches. */
export async function updatePreferences({ client }: ExampleEnvironment, account: Account): Promise<void> {
  account.step('Update ada’s global preferences: no SMS, weekdays 09:00 AM–05:00 PM')
  const workday = { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] }
  const global = await client.subscribers.preferences.update('ada', {
    channels: { sms: false, email: true },
    schedule: {
      isEnabled: true,
      weeklySchedule: {
        monday: workday,
        tuesday: workday,
        wednesday: workday,
        thursday: workday,
        friday: workday,
      },
    },
  })
  account.line(`global channels: ${JSON.stringify(global.global?.channels)}`)
  account.line(`schedule enabled: ${global.global?.schedule?.isEnabled}`)
  account.check(global.global?.schedule?.isEnabled === true, 'schedule stored at the global level')

  account.step('Turn off email for the weekly-digest workflow only')
  const perWorkflow = await client.subscribers.preferences.update('ada', {
    workflowId: 'weekly-digest',
    channels: { email: false },
  })
  const digest = perWorkflow.workflows?.find(
    (preference) => preference.workflow?.identifier === 'weekly-digest',
  )
  account.line(`weekly-digest channels: ${JSON.stringify(digest?.channels)}`)
  account.check(digest?.channels?.email === false, 'workflow preference updated')
}
