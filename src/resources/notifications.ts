import type { ApiPromise } from '../core/api-promise.js'
import type { RequestOptions } from '../core/options.js'
import { defineOperation } from '../internal/pipeline/operation.js'
import type { RequestCore } from '../internal/pipeline/request-core.js'
import { type Notification, NotificationSchema } from '../schemas/notifications.js'

const getNotification = defineOperation({
  name: 'notifications.get',
  method: 'GET',
  path: '/v1/notifications/{notificationId}',
  result: NotificationSchema,
  resultKind: 'object',
  nullIsNotFound: true,
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
}
