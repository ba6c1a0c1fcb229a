import type { OperationId, SchemaProblem } from './openapi.js'

/**
 * Where notifykit or its fake differ from the OpenAPI document on purpose: the one place the contract
 * tests accept a difference, each by name and with its reason. Anything else the document and
 * notifykit disagree on fails a test.
 *
 * - `sdk-request`: a body notifykit sends that the document's request schema refuses (test (a));
 * - `sdk-query`: a query string notifykit sends that the document's query parameters refuse (test
 *   (a)); `instancePath` is `/<parameter>`;
 * - `fake-response`: a body the fake answers that the document's response schema refuses (test (b));
 * - `sdk-response`: a body the document allows that notifykit refuses in strict response mode
 *   (test (c)); `instancePath` is then the JSON pointer of the path.
 *
 * An entry explains a problem when the check, the operation, the status (if given), the
 * `instancePath` and the message all match. For `sdk-request`, `sdk-query` (a query string) and
 * `fake-response`, `sample` is a value the document refuses with that very problem: a test checks it still does, so an entry whose
 * difference is gone (the document changed) fails until removed.
 */
export type DifferenceCheck = 'sdk-request' | 'sdk-query' | 'fake-response' | 'sdk-response'

export interface DeliberateDifference {
  /** Cited in test output and reviews. */
  name: string
  check: DifferenceCheck
  operationId: OperationId
  /** For responses: the status it applies to. */
  status?: number
  /** JSON pointer of the value the problem is about, `''` for the whole body. */
  instancePath: string
  message: RegExp
  /** Why it should differ. */
  reason: string
  /** For `sdk-request`, `sdk-query` and `fake-response`: a value the document refuses with this problem. */
  sample?: unknown
}

export const DELIBERATE_DIFFERENCES: readonly DeliberateDifference[] = [
  {
    name: 'notifications.get: 200 {"data": null} for a missing notification',
    check: 'fake-response',
    operationId: 'NotificationsController_getNotification',
    status: 200,
    instancePath: '',
    message: /^must be object$/,
    reason:
      'Some server versions answer a missing notification with 200 {"data": null} instead of a 404. ' +
      "The fake imitates them when created with `missingNotification: 'null'` (its default is the 404), " +
      'and notifykit turns that answer into a NotFoundError. The document describes only the 404.',
    sample: null,
  },
  {
    name: 'events.trigger, events.broadcast: a 422 whose body has no `errors`',
    check: 'fake-response',
    operationId: 'EventsController_trigger',
    status: 422,
    instancePath: '',
    message: /^must have required property 'errors'$/,
    reason:
      "The server's own source answers an unknown workflow (`workflow_not_found`) and a refused payload " +
      'with a 422 whose body carries `statusCode`, `message` and `error` but no `errors` map; the ' +
      "document's ValidationErrorDto requires one. The fake answers as the server does.",
    sample: { statusCode: 422, timestamp: '2026-01-01T00:00:00.000Z', path: '/v1/events/trigger' },
  },
  {
    name: 'events.broadcast: a 422 whose body has no `errors`',
    check: 'fake-response',
    operationId: 'EventsController_broadcastEventToAll',
    status: 422,
    instancePath: '',
    message: /^must have required property 'errors'$/,
    reason: 'As for events.trigger: the server answers this 422 without an `errors` map.',
    sample: { statusCode: 422, timestamp: '2026-01-01T00:00:00.000Z', path: '/v1/events/trigger/broadcast' },
  },
  {
    name: 'notifications.list: `transactionId` as a list (the key repeated)',
    check: 'sdk-query',
    operationId: 'NotificationsController_listNotifications',
    instancePath: '/transactionId',
    message: /^must be string$/,
    reason:
      "The document types `transactionId` as one string, but the server's controller reads it as one " +
      'value or a list (its DTO types it `string[] | string`, and the feed matches any of them), as it ' +
      'does `subscriberIds` and `channels`. notifykit takes a list too, so the notifications of several ' +
      'triggers are one read; one transactionId is sent as one value, which the document allows.',
    sample: '?transactionId=tx-1&transactionId=tx-2',
  },
  ...(['severity', 'layoutIdentifier'] as const).map(
    (key): DeliberateDifference => ({
      name: `events.broadcast: \`overrides.${key}\`, a string`,
      check: 'sdk-request',
      operationId: 'EventsController_broadcastEventToAll',
      instancePath: `/overrides/${key}`,
      message: /^must be object$/,
      reason:
        "The document contradicts itself here: the broadcast's `overrides` says every value is an object " +
        `(additionalProperties), while the TriggerOverrides it includes types \`${key}\` as a string, as the ` +
        "trigger's does. The server checks only that `overrides` is an object, so notifykit takes the " +
        'same overrides on a broadcast as on a trigger.',
      sample: { name: 'w', payload: {}, overrides: { [key]: key === 'severity' ? 'high' : 'layout' } },
    }),
  ),
]

/** The problems no deliberate difference explains. */
export function unexplainedProblems(
  check: DifferenceCheck,
  operationId: string,
  status: number | undefined,
  problems: readonly SchemaProblem[],
): SchemaProblem[] {
  return problems.filter((problem) => explainedBy(check, operationId, status, problem) === undefined)
}

/** The deliberate difference that explains `problem`, if any. */
export function explainedBy(
  check: DifferenceCheck,
  operationId: string,
  status: number | undefined,
  problem: SchemaProblem,
): DeliberateDifference | undefined {
  return DELIBERATE_DIFFERENCES.find(
    (difference) =>
      difference.check === check &&
      difference.operationId === operationId &&
      (difference.status === undefined || difference.status === status) &&
      difference.instancePath === problem.instancePath &&
      difference.message.test(problem.message),
  )
}
