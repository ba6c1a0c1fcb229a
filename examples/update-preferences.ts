import type { Account, ExampleEnvironment } from './environment.js'

/** Read ada's preferences, change the global switches and schedule, then one workflow's; read them back. */
export async function updatePreferences({ client }: ExampleEnvironment, account: Account): Promise<void> {
  account.step('Read ada’s preferences (a read: nothing changes)')
  const before = await client.subscribers.preferences.get('ada')
  account.line(`global channels: ${JSON.stringify(before.global?.channels)}`)
  account.line(`workflows: ${before.workflows?.map((entry) => entry.workflow?.identifier).join(', ')}`)
  account.check(before.workflows?.length === 2, 'the two workflows that are not critical')

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

  account.step('Read them back, the critical workflow included')
  const after = await client.subscribers.preferences.get('ada', { criticality: 'all' })
  const readDigest = after.workflows?.find(
    (preference) => preference.workflow?.identifier === 'weekly-digest',
  )
  account.line(`workflows: ${after.workflows?.map((entry) => entry.workflow?.identifier).join(', ')}`)
  account.check(readDigest?.channels?.email === false, 'the update reads back')
  account.check(after.workflows?.length === 3, 'criticality "all" lists the critical workflow too')
}
