import { describe, expectTypeOf, it } from 'vitest'
import type { NotificationClient, UpdateSubscriberPreferencesRequest } from '../../src/index.js'

declare const client: NotificationClient

describe('a preferences update', () => {
  it('takes a schedule without workflowId, and workflowId without a schedule', () => {
    expectTypeOf<{ schedule: { isEnabled: true } }>().toExtend<UpdateSubscriberPreferencesRequest>()
    expectTypeOf<{
      workflowId: 'w'
      channels: { email: false }
    }>().toExtend<UpdateSubscriberPreferencesRequest>()
  })

  it('does not compile with both: a schedule is global only', () => {
    const both = { workflowId: 'w', schedule: { isEnabled: true } }
    // @ts-expect-error a schedule beside workflowId is stored nowhere
    void client.subscribers.preferences.update('u', both)
    expectTypeOf<{
      workflowId: 'w'
      schedule: { isEnabled: true }
    }>().not.toExtend<UpdateSubscriberPreferencesRequest>()
  })
})
