import { NotificationClient, TriggerNotSentError, type TriggerResult } from '../../../src/index.js'
import {
  createFakeService,
  type FakeService,
  type FakeServiceOptions,
  type FakeWorkflowStep,
} from '../../../src/testing/index.js'
import { API_KEY, fakeWithClient } from '../../helpers/fake.js'

export { fakeWithClient }

// The fidelity suite: each check follows one test (or use case) of the service's public repository
// and names it, `[<path>: "<test title>"]`, so a reader can hold the fake against the server's word.
//
// The server it holds the fake against is the one users reach today: the code of NianJiuZst/novu (a
// fork tracking novuhq/novu) at 943f64bd99 of 2026-04-19, and the e2e tests beside it. Where that
// code changed a behaviour since October 2024, the check names the commit that changed it
// (`changedBy`, hash and upstream pull request); a behaviour the server dropped is checked in its
// new form. Where the newer code contradicts the October 2024 e2e tests, the code wins.
//
// The suite checks 216 behaviours of the server: one test each, an `it.each` row counting as one
// (the number `npx vitest run test/testing/fidelity` reports). 43 of its checks name the commit that
// changed the behaviour they check. A check added here adds to the number: say so in this line.

/**
 * The server commits that changed a behaviour the suite checks, each with its upstream pull request
 * (none when the commit's subject gives none).
 */
export const SERVER_COMMITS = {
  /** The exception filter nests an error's context in `ctx` and also copies it to the top level. */
  errorContext: '96bd1a1f2a (#7283)',
  /** A command's failed check is a 422 with `errors.<field>` (was a 400 with a list of messages). */
  commandValidation422: '09da5ecf10 (#7173)',
  /** A command's 422 says `Validation failed for <Command>: <field>: <messages>`. */
  commandValidationMessage: '2686c0572a (#10338)',
  /** A request DTO's failed check is `422 "Validation Error"` with `errors.general.messages`; a 429 says `API rate limit exceeded` with `ctx: {}`. */
  dtoValidationError: '9f0ed4e82a (#8009)',
  /** The replay of a key whose first answer was an error is a 503 (the cached error is rethrown as a plain object). */
  idempotencyErrorReplay: 'c100317eae (#7504)',
  /** Generated transaction ids are `txn_<time><random>`, not UUIDs. */
  transactionIds: '30b658e2d4 (#8553)',
  /** A request's id is `req_<time><random>`; the server sends it in no header. */
  requestIds: '733dc82748 (#8808)',
  /** A processed trigger links to its request in the dashboard: `activityFeedLink`. */
  activityFeedLink: '0a1dbeafc1 (#9430)',
  /** An unknown notification is `404 "Notification not found"` (was a 500). */
  notificationNotFound: '4d0eb5fe9e (no PR)',
  /** A payload the workflow's schema refuses: 400 naming `root.<field>`, with `value` and `schemaPath`. */
  payloadSchema: 'f9dbbdacbe (#8315)',
  /** The API no longer checks a workflow's steps: one without steps is `processed`. */
  workflowWithoutSteps: 'ef0bd3cd45 (#9647)',
  /** A bulk event's error slot carries the event's own `transactionId`. */
  bulkErrorTransactionId: 'dbf268df89 (#10043)',
  /** Bulk events run with their own context, checked per event. */
  bulkContext: '3b45070654 (#9509)',
  /** `context` on a trigger: at most 5 types, ids `^[a-zA-Z0-9_-]+$` of 1 to 100 characters, `{}` refused. */
  triggerContext: '0aa62177e0 (#9150)',
  /** `context` on a preferences update, checked alike. */
  preferencesContext: '3ee8fefc2e (#9821)',
  /** The preferences route takes a weekly schedule, checked by its DTO (12-hour times, at least one day). */
  schedule: 'ca3c6447cf (#9078)',
  /** PATCH /v2/subscribers/:id/preferences: no DTO check of `channels`; its update's command checks each switch. */
  preferencesV2: 'afd325eaba (#7629)',
  /** The subscriber DTO an `actor` object is checked against (email, locale, timezone, …). */
  subscriberDto: 'f2d6bced1e (#9435)',
  /** `/v1/events` bodies up to 26 MB. */
  eventsBodyLimit: 'ec58c22b6b (no PR)',
} as const

/** A check's note of the commit that made the server behave as checked. */
export function changedBy(change: keyof typeof SERVER_COMMITS): string {
  return `[changed by ${SERVER_COMMITS[change]}]`
}

/** A Monday, 12:00 UTC: inside any schedule that includes Monday noon. */
export const MONDAY_NOON = Date.UTC(2026, 0, 5, 12)

/** The server's e2e test helpers' default workflow: an in-app step and an email step. */
export const IN_APP_AND_EMAIL: FakeWorkflowStep[] = [{ type: 'in_app' }, { type: 'email' }]

export interface WireAnswer {
  status: number
  headers: Headers
  body: Record<string, unknown>
}

/**
 * A fake on a clock the test moves, the SDK client on it, and a raw request for bodies the SDK's
 * own checks would refuse before sending.
 */
export function fidelityFake(options: FakeServiceOptions = {}) {
  const clock = { time: MONDAY_NOON }
  const fake = createFakeService({ apiKey: API_KEY, now: () => clock.time, ...options })
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://fake.test',
    fetch: fake.fetch,
    logLevel: 'off',
    maxRetries: 0,
  })
  const send = async (method: string, path: string, body?: unknown): Promise<WireAnswer> => {
    const { status, headers, body: answer } = await rawFetch(fake, method, path, body)
    return { status, headers, body: answer as Record<string, unknown> }
  }
  return {
    fake,
    client,
    send,
    /** Moves the fake's clock on; the fake runs what fell due at its next request or read. */
    wait(ms: number) {
      clock.time += ms
    },
  }
}

/**
 * The server's acknowledgement of a trigger that sent nothing, as the SDK hands it to its user: the
 * call rejects with `TriggerNotSentError`, whose `result` is the answer as the fake gave it.
 */
export async function notSent(call: PromiseLike<unknown>): Promise<TriggerResult> {
  const error = await Promise.resolve(call).then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof TriggerNotSentError))
    throw new Error(`expected TriggerNotSentError, got ${String(error)}`)
  return error.result
}

export interface RawAnswer {
  status: number
  headers: Headers
  body: unknown
}

/**
 * One request through `fake.fetch`, as a user's code without the SDK sends it: for what the SDK
 * would refuse to send, and for the headers it does not hand back.
 */
export async function rawFetch(
  fake: FakeService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fake.fetch(`https://fake.test${path}`, {
    method,
    headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}
