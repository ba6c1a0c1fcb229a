// The one scenario every runtime of the matrix runs, as a user's code would: it imports `notifykit`
// and `notifykit/testing` and nothing else, and uses no global but the web platform's, so that the
// same module runs on Node, Bun, Deno, workerd and the edge runtime.
import { ApiError, type ClientOptions, ConnectionError, NotFoundError, NotificationClient } from 'notifykit'
import { createFakeService } from 'notifykit/testing'
import {
  BROADCAST_WORKFLOW,
  BULK_EVENTS,
  BULK_WORKFLOW,
  type CheckResult,
  DELAYED_WORKFLOW,
  FLAKY_PREFIX,
  REDIRECT_PREFIX,
  type ScenarioConfig,
  type ScenarioReport,
  SUBSCRIBER_ID,
  WELCOME_WORKFLOW,
} from './protocol.js'

export async function runScenario(config: ScenarioConfig): Promise<ScenarioReport> {
  const started = Date.now()
  const checks = new Checks()
  const report: ScenarioReport = {
    runtime: selfDescription(),
    build: 'unknown',
    checks: checks.results,
    durationMs: 0,
  }
  report.build = whichBuild(config)
  const client = new NotificationClient({ apiKey: config.apiKey, baseUrl: config.baseUrl, logLevel: 'off' })
  const errors: unknown[] = []
  try {
    await checks.run('subscribers.preferences.update', async () => {
      const preferences = await client.subscribers.preferences.update(SUBSCRIBER_ID, {
        channels: { email: false },
      })
      expect(
        preferences.global?.channels?.email === false,
        `global email is ${preferences.global?.channels?.email}`,
      )
    })
    await checks.run('events.trigger', async () => {
      const result = await client.events.trigger({
        name: WELCOME_WORKFLOW,
        to: { subscriberId: SUBSCRIBER_ID, email: 'matrix@example.com' },
        payload: { step: 'trigger' },
      })
      expect(result.acknowledged && typeof result.transactionId === 'string', JSON.stringify(result))
      report.triggerTransactionId = result.transactionId
    })
    await checks.run('events.cancel', async () => {
      const { transactionId } = await client.events.trigger({ name: DELAYED_WORKFLOW, to: SUBSCRIBER_ID })
      expect(transactionId !== undefined, 'the delayed trigger has no transactionId')
      const cancelled = await client.events.cancel(transactionId)
      expect(cancelled, 'nothing was cancelled')
    })
    await checks.run(`events.triggerBulk of ${BULK_EVENTS}`, async () => {
      const events = Array.from({ length: BULK_EVENTS }, (_, index) => ({
        name: BULK_WORKFLOW,
        to: `matrix-bulk-${index}`,
        payload: { index },
      }))
      const results = await client.events.triggerBulk(events, { concurrency: 2 })
      expect(results.length === BULK_EVENTS, `${results.length} results`)
      const ids = results.map((result) => result.transactionId)
      expect(
        ids.every((id) => typeof id === 'string'),
        'a result has no transactionId',
      )
      report.bulkTransactionIds = ids as string[]
    })
    await checks.run('events.broadcast', async () => {
      const result = await client.events.broadcast({ name: BROADCAST_WORKFLOW, payload: { note: 'matrix' } })
      expect(result.acknowledged && typeof result.transactionId === 'string', JSON.stringify(result))
      report.broadcastTransactionId = result.transactionId
    })
    // After every trigger that leaves an in-app message, so the Node side can find them all read.
    await checks.run('subscribers.messages.markAll', async () => {
      const changed = await client.subscribers.messages.markAll(SUBSCRIBER_ID, { markAs: 'read' })
      expect(changed >= 1, `${changed} messages changed`)
    })
    await checks.run('notifications.get', async () => {
      const notification = await client.notifications.get(config.notificationId)
      expect(notification._id === config.notificationId, `got ${notification._id}`)
    })
    await checks.run('a 503 is retried with the same idempotency key', async () => {
      const flaky = client.withOptions({ baseUrl: config.baseUrl + FLAKY_PREFIX })
      const { response } = await flaky.events
        .trigger({ name: DELAYED_WORKFLOW, to: SUBSCRIBER_ID })
        .withResponse()
      expect(response.attempts === 2, `${response.attempts} attempts`)
      report.retriedKey = response.idempotencyKey
    })
    await checks.run('a 404 is a NotFoundError', async () => {
      const error = await failureOf(client.notifications.get('000000000000000000000000'))
      errors.push(error)
      expect(error instanceof NotFoundError, `got ${describe(error)}`)
      expect(error.status === 404 && error.code === 'NOTIFYKIT_NOT_FOUND', `${error.status} ${error.code}`)
    })
    await checks.run('a 307 is an ApiError, not followed', async () => {
      const redirected = client.withOptions({ baseUrl: config.baseUrl + REDIRECT_PREFIX })
      const error = await failureOf(redirected.events.trigger({ name: WELCOME_WORKFLOW, to: SUBSCRIBER_ID }))
      errors.push(error)
      expect(error instanceof ApiError, `got ${describe(error)}`)
      expect(
        error.status === 307 && error.attempts === 1,
        `status ${error.status}, ${error.attempts} attempts`,
      )
    })
    await checks.run('a refused connection is a ConnectionError', async () => {
      const refused = client.withOptions({ baseUrl: config.refusedUrl, maxRetries: 0 })
      const error = await failureOf(refused.notifications.get('000000000000000000000000'))
      errors.push(error)
      expect(error instanceof ConnectionError, `got ${describe(error)}`)
    })
    // The detector must see a key where there is one, or its silence below would prove nothing.
    await checks.run('the leak detector finds a planted key', async () => {
      const planted = new Error('wrapper', {
        cause: { headers: { authorization: `ApiKey ${config.apiKey}` } },
      })
      expect(leaksOf(planted, config.apiKey).length > 0, 'a key in a cause went unseen')
    })
    // A user's tests run where their code does: the fake answers in memory through its own fetch.
    await checks.run(
      'notifykit/testing: fake.fetch answers in memory, a dropped connection retried',
      async () => {
        const fake = createFakeService({
          apiKey: 'test-key',
          workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
        })
        const inMemory = new NotificationClient({
          apiKey: 'test-key',
          baseUrl: 'https://fake.test',
          fetch: fake.fetch,
        })
        fake.failNext({ dropConnection: true, afterApply: true })
        const { response } = await inMemory.events.trigger({ name: 'welcome', to: 'tester' }).withResponse()
        expect(response.attempts === 2, `${response.attempts} attempts`)
        expect(fake.notifications.length === 1, `${fake.notifications.length} notifications stored`)
      },
    )
    await checks.run('the API key is absent from every error', async () => {
      expect(errors.length === 3, `${errors.length} errors collected, 3 expected`)
      const leaks = errors.flatMap((error) => leaksOf(error, config.apiKey))
      expect(leaks.length === 0, `the key is in ${leaks.join(', ')}`)
    })
  } finally {
    await client.close()
  }
  report.durationMs = Date.now() - started
  return report
}

class Checks {
  readonly results: CheckResult[] = []

  async run(name: string, check: () => Promise<void>): Promise<void> {
    try {
      await check()
      this.results.push({ name, ok: true })
    } catch (error) {
      this.results.push({ name, ok: false, detail: describe(error) })
    }
  }
}

function expect(condition: boolean, failure: string): asserts condition {
  if (!condition) throw new Error(failure)
}

async function failureOf(call: PromiseLike<unknown>): Promise<ApiError> {
  try {
    await call
  } catch (error) {
    return error as ApiError
  }
  throw new Error('the call succeeded')
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`
}

/**
 * Where `secret` shows in an error and its causes: message, stack, `String(error)` and the JSON of
 * every own field (enumerable or not), the way a logger or error tracker would serialize them.
 */
function leaksOf(error: unknown, secret: string): string[] {
  const leaks: string[] = []
  let current = error
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    const where = depth === 0 ? 'the error' : `cause ${depth}`
    if (current instanceof Error) {
      if (current.message.includes(secret)) leaks.push(`${where}'s message`)
      if (current.stack?.includes(secret)) leaks.push(`${where}'s stack`)
    }
    if (String(current).includes(secret)) leaks.push(`String(${where})`)
    if (fieldsJson(current).includes(secret)) leaks.push(`${where}'s fields`)
    current = (current as { cause?: unknown }).cause
  }
  return leaks
}

function fieldsJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? ''
  const fields: Record<string, unknown> = {}
  for (const name of Object.getOwnPropertyNames(value)) fields[name] = Reflect.get(value, name)
  const seen = new WeakSet<object>()
  return JSON.stringify(fields, (_, field: unknown) => {
    if (typeof field === 'object' && field !== null) {
      if (seen.has(field)) return '[circular]'
      seen.add(field)
    }
    return typeof field === 'bigint' ? String(field) : field
  })
}

/**
 * The portable build refuses the `dispatcher` option outright; the Node build takes undici
 * dispatchers and refuses only one without `dispatch`.
 */
function whichBuild(config: ScenarioConfig): ScenarioReport['build'] {
  try {
    // Deliberately not a Dispatcher: the Node build rejects it for that, the portable one for existing.
    const notADispatcher = {} as ClientOptions['dispatcher']
    new NotificationClient({ apiKey: config.apiKey, baseUrl: config.baseUrl, dispatcher: notADispatcher })
  } catch (error) {
    const message = error instanceof Error ? error.message : ''
    if (message.includes('needs undici')) return 'portable'
    if (message.includes('must be an undici Dispatcher')) return 'node'
  }
  return 'unknown'
}

interface RuntimeGlobals {
  Bun?: { version: string }
  Deno?: { version: { deno: string } }
  EdgeRuntime?: string
  navigator?: { userAgent?: string }
  process?: { version?: string }
}

function selfDescription(): string {
  const { Bun, Deno, EdgeRuntime, navigator, process } = globalThis as RuntimeGlobals
  if (Bun) return `bun ${Bun.version}`
  if (Deno) return `deno ${Deno.version.deno}`
  if (typeof EdgeRuntime === 'string') return `edge-runtime (${EdgeRuntime})`
  if (navigator?.userAgent === 'Cloudflare-Workers') return 'workerd'
  if (process?.version) return `node ${process.version}`
  return 'unknown'
}
