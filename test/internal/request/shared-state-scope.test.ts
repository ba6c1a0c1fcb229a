import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { NotificationClient, type NotificationClientOptions } from '../../../src/index.js'
import type { FakeService } from '../../../src/testing/index.js'
import { API_KEY, seededFake } from '../../helpers/fake.js'

// Who shares a retry budget and a pacer: a client and the clients `withOptions` derives from it, per
// API key and origin. Another `new NotificationClient`, even on the same key and origin, has its own.
// The backoff and the pauses run on a fake clock.

const EVENT = { name: 'welcome', to: 'alice' }

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
})

afterEach(() => {
  vi.useRealTimers()
})

function clientOver(fake: FakeService, options: Partial<NotificationClientOptions> = {}) {
  return new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://api.test',
    fetch: fake.fetch,
    logLevel: 'off',
    ...options,
  })
}

/** The call's outcome, driving the fake clock through its backoff and pauses. */
async function settled<T>(call: Promise<T>): Promise<PromiseSettledResult<T>> {
  let outcome: PromiseSettledResult<T> | undefined
  call.then(
    (value) => (outcome = { status: 'fulfilled', value }),
    (reason: unknown) => (outcome = { status: 'rejected', reason }),
  )
  while (!outcome) await vi.advanceTimersByTimeAsync(100)
  return outcome
}

/** The attempts a trigger made, succeeded or not. */
async function attemptsOf(client: NotificationClient): Promise<number> {
  const outcome = await settled(client.events.trigger(EVENT).withResponse())
  return outcome.status === 'fulfilled'
    ? outcome.value.response.attempts
    : (outcome.reason as { attempts: number }).attempts
}

describe('the retry budget', () => {
  it('is shared with the clients withOptions derives; another client on the same key and origin has its own', async () => {
    const fake = seededFake()
    fake.failNext({ status: 503, times: 1_000 })
    const client = clientOver(fake)
    const derived = client.withOptions({ timeoutMs: 5_000 })
    const another = clientOver(fake)
    // Three calls of three failed attempts: 9 tokens of 20 spent; the next failure leaves half.
    for (let call = 0; call < 3; call++) expect(await attemptsOf(client)).toBe(3)
    expect(await attemptsOf(client)).toBe(1)
    expect(await attemptsOf(derived)).toBe(1)
    expect(await attemptsOf(another)).toBe(3)
  })
})

describe('the pacer', () => {
  it("is shared with the clients withOptions derives: a 429's pause holds them; another client on the same key is not held", async () => {
    const fake = seededFake()
    const client = clientOver(fake, { maxRetries: 0 })
    const derived = client.withOptions({ timeoutMs: 5_000 })
    const another = clientOver(fake)
    fake.failNext({ status: 429, headers: { 'retry-after': '30' } })
    await settled(client.events.trigger(EVENT))
    const start = Date.now()
    const sentAfter = (call: Promise<unknown>) => call.then(() => Date.now() - start)
    const waits = await settled(
      Promise.all([sentAfter(another.events.trigger(EVENT)), sentAfter(derived.events.trigger(EVENT))]),
    )
    const [anotherWaited, derivedWaited] = waits.status === 'fulfilled' ? waits.value : []
    expect(anotherWaited).toBeLessThan(1_000)
    expect(derivedWaited).toBeGreaterThanOrEqual(29_000)
  })
})
