import { describe, expect, it } from 'vitest'
import {
  BulkTriggerError,
  type NotificationClient,
  ResponseValidationError,
  TriggerNotSentError,
} from '../../src/index.js'
import { TRANSPORTS } from '../helpers/transport.js'
import { answeringClient, json, settle } from '../helpers/wire.js'
import { unexplainedProblems } from './deliberate-differences.js'
import { GENERATE_MODES, generate } from './generate.js'
import {
  formatProblem,
  OPERATION_IDS,
  responseSchemaOf,
  type SdkOperation,
  successStatusesOf,
} from './openapi.js'

// (c) notifykit, in strict response mode, accepts every success body the OpenAPI document allows for
// the nine operations, and returns it unchanged: bodies built from the document's response schemas
// (generate.ts) with required fields only, every field at the top and required ones below, every
// field, and every nullable field null. Each is served in the server's `{ data }` envelope with each
// success status the document lists, over both transports.

/** The SDK call of each operation; `body` is what the server will answer, for calls that depend on it. */
const CALLS: Record<SdkOperation, (client: NotificationClient, body: unknown) => PromiseLike<unknown>> = {
  'subscribers.preferences.update': (client) =>
    client.subscribers.preferences.update('alice', { channels: { email: true } }),
  'subscribers.messages.markAll': (client) =>
    client.subscribers.messages.markAll('alice', { markAs: 'read' }),
  'events.trigger': (client) => client.events.trigger({ name: 'welcome', to: 'alice' }),
  'events.cancel': (client) => client.events.cancel('tx-1'),
  'notifications.get': (client) => client.notifications.get('notification-1'),
  // One event per result the body holds: the SDK matches results to events.
  'events.triggerBulk': (client, body) =>
    client.events.triggerBulk((body as unknown[]).map((_, i) => ({ name: 'welcome', to: `user-${i}` }))),
  'events.broadcast': (client) => client.events.broadcast({ name: 'welcome', payload: {} }),
  // A list resolves to a page: its body is the answer as received.
  'notifications.list': (client) => client.notifications.list().then((page) => page.body),
  'subscribers.preferences.get': (client) => client.subscribers.preferences.get('alice'),
}

const CASES = (Object.keys(OPERATION_IDS) as SdkOperation[]).flatMap((operation) => {
  const operationId = OPERATION_IDS[operation]
  return successStatusesOf(operationId).flatMap((status) =>
    GENERATE_MODES.map((mode) => ({
      operation,
      operationId,
      status,
      mode,
      body: generate(responseSchemaOf(operationId, status).schema, mode),
    })),
  )
})

describe('notifykit accepts the response bodies the OpenAPI document allows (strict response mode)', () => {
  it('the bodies built conform to the document', () => {
    const problems = CASES.flatMap(({ operation, status, mode, body, operationId }) =>
      responseSchemaOf(operationId, status)
        .errorsOf(body)
        .map((problem) => `${operation} ${status} ${mode}: ${problem}`),
    )
    expect(problems).toEqual([])
  })

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it.each(CASES.map((c) => [`${c.operation} ${c.status}, ${c.mode}`, c] as const))(
      '%s',
      async (_, { operation, operationId, status, body }) => {
        const { client } = answeringClient(
          () => json({ data: body }, status),
          { responseValidation: 'strict', maxRetries: 0, logLevel: 'off' },
          transport,
        )
        const outcome = await settle(CALLS[operation](client, body))
        if (outcome.ok) {
          expect(outcome.value).toEqual(body)
          return
        }
        // A trigger status that says nothing was sent (the document's first, `error`) rejects, with
        // the body read unchanged in the error.
        const read = answersIn(outcome.error)
        if (read !== undefined) {
          expect(read).toEqual(body)
          return
        }
        // A refusal only passes when each of its issues is a deliberate difference.
        const { error } = outcome
        const problems =
          error instanceof ResponseValidationError
            ? unexplainedProblems(
                'sdk-response',
                operationId,
                status,
                error.issues.map((issue) => ({ instancePath: pointer(issue.path), message: issue.message })),
              ).map(formatProblem)
            : [String(error)]
        expect({ refused: problems, body }).toEqual({ refused: [], body })
      },
    )
  })
})

/** The trigger results a not-sent rejection carries, as the server sent them; else undefined. */
function answersIn(error: unknown): unknown {
  if (error instanceof TriggerNotSentError) return error.result
  if (!(error instanceof BulkTriggerError)) return undefined
  if (!error.failures.every((failure) => failure.error instanceof TriggerNotSentError)) return undefined
  return error.results.map((result, i) => {
    const failure = error.failures.find((candidate) => candidate.eventIndexes.includes(i))
    return failure ? (failure.error as TriggerNotSentError).result : result
  })
}

/** A JSON pointer of a zod issue path. */
function pointer(path: readonly (string | number)[]): string {
  return path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}
