// Type-level tests of the reads: what a list resolves to and yields, and the filters the types refuse
// (vitest typecheck and `tsc --noEmit` both run this file).
import { describe, expectTypeOf, test } from 'vitest'
import type {
  ApiPromise,
  Notification,
  NotificationClient,
  Page,
  PagePromise,
  Preferences,
} from '../../src/index.js'

declare const client: NotificationClient

describe('notifications.list', () => {
  test('is a PagePromise: awaited, a Page of notifications; iterated, notifications; still an ApiPromise', async () => {
    const listed = client.notifications.list({ transactionId: 'tx-1' })
    expectTypeOf(listed).toEqualTypeOf<PagePromise<Notification>>()
    expectTypeOf(listed).toMatchTypeOf<ApiPromise<Page<Notification>>>()
    const page = await listed
    expectTypeOf(page.data).toEqualTypeOf<Notification[]>()
    expectTypeOf(page.getNextPage()).toEqualTypeOf<PagePromise<Notification>>()
    for await (const notification of listed) expectTypeOf(notification).toEqualTypeOf<Notification>()
    for await (const each of page.iterPages()) expectTypeOf(each).toEqualTypeOf<Page<Notification>>()
  })

  test('takes one value or a list, and refuses what the service refuses', () => {
    client.notifications.list({ channels: 'email', subscriberIds: ['a', 'b'], severity: ['high'], limit: 50 })
    // @ts-expect-error an unknown channel
    client.notifications.list({ channels: ['fax'] })
    // @ts-expect-error a filter the service does not have
    client.notifications.list({ workflows: ['welcome'] })
    // @ts-expect-error page is a number
    client.notifications.list({ page: '1' })
  })
})

describe('subscribers.preferences.get', () => {
  test('resolves to the preferences an update returns; criticality is closed', () => {
    expectTypeOf(client.subscribers.preferences.get('user-1')).toEqualTypeOf<ApiPromise<Preferences>>()
    client.subscribers.preferences.get('user-1', { criticality: 'all', contextKeys: ['tenant:acme'] })
    // @ts-expect-error an unknown criticality
    client.subscribers.preferences.get('user-1', { criticality: 'high' })
  })
})
