// Result types: every documented field typed, a misspelt one a compile error, and the fields the
// types do not know still within reach (the runtime keeps every field the server sends; the suites
// under test/security and test/internal/request check that).
import { describe, expectTypeOf, test } from 'vitest'
import {
  type Notification,
  NotificationClient,
  type Preferences,
  type ScheduleResult,
  type TriggerResult,
} from '../../src/index.js'

const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://api.test' })

describe('a trigger result', () => {
  test('a typo in a known field does not compile', async () => {
    const result = await client.events.trigger({ name: 'welcome', to: 'user-1' })
    expectTypeOf(result.transactionId).toEqualTypeOf<string | undefined>()
    // @ts-expect-error misspelt: there is no `transactonId`
    result.transactonId
    expectTypeOf(result).not.toHaveProperty('transactonId')
  })

  test('a field the types do not know is reached with `in`, or through a record', async () => {
    const result = await client.events.trigger({ name: 'welcome', to: 'user-1' })
    if ('activityFeedLink' in result) expectTypeOf(result.activityFeedLink).toBeUnknown()
    const fields: Record<string, unknown> = result
    expectTypeOf(fields.activityFeedLink).toBeUnknown()
  })

  test('open enums still accept values the types do not list', () => {
    expectTypeOf<'a_status_added_later'>().toExtend<TriggerResult['status']>()
    expectTypeOf<'processed'>().toExtend<TriggerResult['status']>()
  })

  test('bulk results are the same type', async () => {
    const [first] = await client.events.triggerBulk([{ name: 'welcome', to: 'user-1' }])
    // @ts-expect-error misspelt
    first?.acknowleged
    expectTypeOf(first).toEqualTypeOf<TriggerResult | undefined>()
  })
})

describe('nested results', () => {
  test('typos deep in a notification do not compile', async () => {
    const notification: Notification = await client.notifications.get('n-1')
    expectTypeOf(notification.jobs).toEqualTypeOf<Notification['jobs']>()
    const job = notification.jobs?.[0]
    expectTypeOf(job?.status).not.toBeUnknown()
    // @ts-expect-error misspelt
    job?.stauts
    // @ts-expect-error misspelt
    notification.subscriber?.emial
    // @ts-expect-error misspelt
    notification.template?.nmae
  })

  test('records keep their index signature: payloads, controls, schedules by weekday', async () => {
    const notification = await client.notifications.get('n-1')
    expectTypeOf(notification.payload?.orderId).toBeUnknown()
    const schedule: ScheduleResult = {}
    expectTypeOf(schedule.weeklySchedule?.monday?.isEnabled).toEqualTypeOf<boolean | undefined>()
    // @ts-expect-error misspelt, inside a weekday
    schedule.weeklySchedule?.monday?.isEnabeld
  })

  test('preferences', () => {
    const preferences = {} as Preferences
    // @ts-expect-error misspelt
    preferences.globl
    expectTypeOf(preferences).toHaveProperty('global')
  })
})
