import type { ApiPromise } from '../core/api-promise.js'
import type { RequestOptions } from '../core/options.js'
import type { PagePromise } from '../core/pagination.js'
import { defineOperation } from '../internal/pipeline/operation.js'
import { requestPage } from '../internal/pipeline/paging.js'
import type { RequestCore } from '../internal/pipeline/request-core.js'
import {
  type ListNotificationsRequest,
  ListNotificationsRequestSchema,
  type Notification,
  NotificationSchema,
  NotificationsPageSchema,
} from '../schemas/notifications.js'

const getNotification = defineOperation({
  name: 'notifications.get',
  method: 'GET',
  path: '/v1/notifications/{notificationId}',
  result: NotificationSchema,
  resultKind: 'object',
  nullIsNotFound: true,
})

const listNotifications = defineOperation({
  name: 'notifications.list',
  method: 'GET',
  path: '/v1/notifications',
  query: ListNotificationsRequestSchema,
  extraFields: { into: 'query', schema: ListNotificationsRequestSchema },
  result: NotificationsPageSchema,
  resultKind: 'object',
})

/** The record of one trigger for one subscriber, with its jobs and their execution details. */
export class Notifications {
  readonly #core: RequestCore

  constructor(core: RequestCore) {
    this.#core = core
  }

  /**
   * Reads a notification with its jobs. A missing one is a `NotFoundError`, also when the server
   * answers `200 {"data": null}`.
   *
   * @example
   * ```ts
   * const notification = await client.notifications.get('66f1c0ffee')
   * for (const job of notification.jobs ?? []) console.log(job.type, job.status)
   * ```
   */
  get(notificationId: string, options?: RequestOptions): ApiPromise<Notification> {
    return this.#core.request(getNotification, { pathParams: { notificationId } }, options)
  }

  /**
   * Lists notifications, newest first, one page per request (10 by default, `limit` up to 50,
   * `page` from 0). Every filter is optional and they combine: `transactionId` (what a trigger
   * returned) finds the notifications one trigger made, one per subscriber. Await it for the first
   * page; `for await` over it yields every notification of every page.
   *
   * @example
   * ```ts
   * const { transactionId } = await client.events.trigger({ name: 'welcome', to: 'user-1' })
   * const page = await client.notifications.list({ transactionId })
   * const notification = await client.notifications.get(page.data[0]?._id ?? '')
   *
   * for await (const sent of client.notifications.list({ subscriberIds: ['user-1'], channels: ['email'] })) {
   *   console.log(sent.transactionId, sent.createdAt)
   * }
   * ```
   */
  list(params?: ListNotificationsRequest, options?: RequestOptions): PagePromise<Notification> {
    return requestPage(this.#core, listNotifications, params, options)
  }
}
