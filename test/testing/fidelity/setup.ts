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

/** A Monday, 12:00 UTC: inside any schedule that includes Monday noon. */
export const MONDAY_NOON = Date.UTC(2026, 0, 5, 12)

/** The server's e2e test helpers' default workflow: an in-app step and an email step. */
export const IN_APP_AND_EMAIL: FakeWorkflowStep[] = [{ type: 'in_app' }, { type: 'email' }]

export interface WireAnswer {
  status: number
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
    const { status, body: answer } = await rawFetch(fake, method, path, body)
    return { status, body: answer as Record<string, unknown> }
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
