import type { ApiPromise } from '../core/api-promise.js'
import type { RequestOptions } from '../core/options.js'
import { defineOperation } from '../internal/pipeline/operation.js'
import type { RequestCore } from '../internal/pipeline/request-core.js'
import {
  type GetSubscriberPreferencesRequest,
  GetSubscriberPreferencesRequestSchema,
  type MarkAllMessagesRequest,
  MarkAllMessagesRequestSchema,
  MarkAllMessagesResultSchema,
  type Preferences,
  PreferencesSchema,
  type UpdateSubscriberPreferencesRequest,
  UpdateSubscriberPreferencesRequestSchema,
} from '../schemas/subscribers.js'

const getPreferences = defineOperation({
  name: 'subscribers.preferences.get',
  method: 'GET',
  path: '/v2/subscribers/{subscriberId}/preferences',
  query: GetSubscriberPreferencesRequestSchema,
  extraFields: { into: 'query', schema: GetSubscriberPreferencesRequestSchema },
  result: PreferencesSchema,
  resultKind: 'object',
})

const updatePreferences = defineOperation({
  name: 'subscribers.preferences.update',
  method: 'PATCH',
  path: '/v2/subscribers/{subscriberId}/preferences',
  body: UpdateSubscriberPreferencesRequestSchema,
  extraFields: { into: 'body', schema: UpdateSubscriberPreferencesRequestSchema },
  result: PreferencesSchema,
  resultKind: 'object',
})

const markAllMessages = defineOperation({
  name: 'subscribers.messages.markAll',
  method: 'POST',
  path: '/v1/subscribers/{subscriberId}/messages/mark-all',
  body: MarkAllMessagesRequestSchema,
  extraFields: { into: 'body', schema: MarkAllMessagesRequestSchema },
  result: MarkAllMessagesResultSchema,
  resultKind: 'number',
})

/** A subscriber's channel switches and schedule, globally or for one workflow. */
export class SubscriberPreferences {
  readonly #core: RequestCore

  constructor(core: RequestCore) {
    this.#core = core
  }

  /**
   * Reads the subscriber's preferences: global, and one entry per active workflow (by default those
   * that are not critical; `criticality: 'all'` lists every one). A subscriber the service does not
   * know is a `NotFoundError`. A read: nothing changes, and no idempotency key is sent.
   *
   * @example
   * ```ts
   * const preferences = await client.subscribers.preferences.get('user-1')
   * console.log(preferences.global?.channels?.email)
   * const digest = preferences.workflows?.find((entry) => entry.workflow?.identifier === 'weekly-digest')
   * const everyWorkflow = await client.subscribers.preferences.get('user-1', { criticality: 'all' })
   * ```
   */
  get(
    subscriberId: string,
    params?: GetSubscriberPreferencesRequest,
    options?: RequestOptions,
  ): ApiPromise<Preferences> {
    return this.#core.request(getPreferences, { pathParams: { subscriberId }, query: params }, options)
  }

  /**
   * Updates the subscriber's global preferences, or one workflow's when `workflowId` is given, and
   * returns all of the subscriber's preferences: global, and one entry per workflow.
   *
   * @example
   * ```ts
   * const preferences = await client.subscribers.preferences.update('user-1', {
   *   workflowId: 'weekly-digest',
   *   channels: { email: true, sms: false },
   * })
   * ```
   */
  update(
    subscriberId: string,
    params: UpdateSubscriberPreferencesRequest,
    options?: RequestOptions,
  ): ApiPromise<Preferences> {
    return this.#core.request(updatePreferences, { pathParams: { subscriberId }, body: params }, options)
  }
}

/** A subscriber's in-app messages. */
export class SubscriberMessages {
  readonly #core: RequestCore

  constructor(core: RequestCore) {
    this.#core = core
  }

  /**
   * Marks all the subscriber's messages (or those of the given feeds) as read, seen, unread or
   * unseen, and resolves to how many in-app messages changed (`0` when all already were).
   *
   * @example
   * ```ts
   * const changed = await client.subscribers.messages.markAll('user-1', { markAs: 'read', feedIdentifier: 'billing' })
   * ```
   */
  markAll(
    subscriberId: string,
    params: MarkAllMessagesRequest,
    options?: RequestOptions,
  ): ApiPromise<number> {
    return this.#core.request(markAllMessages, { pathParams: { subscriberId }, body: params }, options)
  }
}

/** Operations on one subscriber: `preferences` and `messages`. */
export class Subscribers {
  readonly preferences: SubscriberPreferences
  readonly messages: SubscriberMessages

  constructor(core: RequestCore) {
    this.preferences = new SubscriberPreferences(core)
    this.messages = new SubscriberMessages(core)
  }
}
