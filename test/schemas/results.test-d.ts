// Result types: every documented field typed, a misspelt one a compile error, and the fields the
// types do not know still within reach (the runtime keeps every field the server sends; the suites
// under test/security and test/internal/request check that).
import { describe, expectTypeOf, test } from 'vitest'
import {
  BulkTriggerError,
  type Notification,
  NotificationClient,
  type Preferences,
  type ScheduleResult,
  TriggerNotSentError,
  type TriggerResult,
  type TriggerStatus,
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

  test('status is the values the server sends, each named (for completion and narrowing), and open', () => {
    type Known =
      | 'processed'
      | 'error'
      | 'trigger_not_active'
      | 'no_workflow_active_steps_defined'
      | 'no_workflow_steps_defined'
      | 'no_tenant_found'
      | 'invalid_recipients'
      | 'subscriber_id_missing'
    // The literals themselves are members (not swallowed by `string`): what an editor completes.
    type Literals<T> = T extends string ? (string extends T ? never : T) : never
    expectTypeOf<Literals<TriggerStatus>>().toEqualTypeOf<Known>()
    expectTypeOf<'a_status_added_later'>().toExtend<TriggerStatus>()
    expectTypeOf<TriggerResult['status']>().toEqualTypeOf<TriggerStatus>()
    expectTypeOf<TriggerResult['status']>().not.toEqualTypeOf<string>()
    expectTypeOf<TriggerNotSentError['status']>().toEqualTypeOf<TriggerStatus>()
    expectTypeOf<TriggerNotSentError['result']>().toEqualTypeOf<TriggerResult>()
    expectTypeOf<TriggerNotSentError['code']>().toEqualTypeOf<'NOTIFYKIT_TRIGGER_NOT_SENT'>()
    // @ts-expect-error a number is no status
    const wrong: TriggerStatus = 5
    void wrong
  })

  test('after `instanceof`, a failure of a bulk names its error', (error: unknown) => {
    if (error instanceof BulkTriggerError) {
      const [failure] = error.failures
      if (failure?.error instanceof TriggerNotSentError)
        expectTypeOf(failure.error.status).toEqualTypeOf<TriggerStatus>()
      expectTypeOf(error.results).toEqualTypeOf<(TriggerResult | undefined)[]>()
    }
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
    // When the subscriber last set preferences for the workflow.
    expectTypeOf(preferences.workflows?.[0]?.updatedAt).toEqualTypeOf<string | undefined>()
  })
})
