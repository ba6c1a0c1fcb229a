import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  InternalServerError,
  NotificationClient,
  type NotificationClientOptions,
  type NotifyKitError,
} from '../../../src/index.js'
import { RetryBudget } from '../../../src/internal/pipeline/retry-budget.js'
import type { FakeService } from '../../../src/testing/index.js'
import { API_KEY, fakeConnection, seededFake } from '../../helpers/fake.js'
import { captureLogs } from '../../helpers/logs.js'
import { TRANSPORTS, type TransportName } from '../../helpers/transport.js'

// The retry budget, seen from outside: what the server receives when it fails again and again, and
// what the caller gets. The backoff runs on a fake clock.

const EVENT = { name: 'welcome', to: 'alice' }

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
})

afterEach(() => {
  vi.useRealTimers()
})

function clientOf(
  fake: FakeService,
  transport: TransportName,
  options: Partial<NotificationClientOptions> = {},
) {
  const log = captureLogs()
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://api.test',
    ...fakeConnection(fake, transport),
    logger: log.logger,
    ...options,
  })
  return { client, log }
}

/** The call's outcome, driving the fake clock through its backoff. */
async function outcomeOf<T>(
  call: PromiseLike<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: NotifyKitError }> {
  let settled: { ok: true; value: T } | { ok: false; error: NotifyKitError } | undefined
  Promise.resolve(call).then(
    (value) => (settled = { ok: true, value }),
    (error: NotifyKitError) => (settled = { ok: false, error }),
  )
  while (!settled) await vi.advanceTimersByTimeAsync(100)
  return settled
}

/**
 * The attempts of six calls once every answer is a 503: a full budget gives three calls their
 * retries (`maxRetries` 2), and then calls fail after one attempt.
 */
async function attemptsInAnOutage(fake: FakeService, client: NotificationClient): Promise<number[]> {
  fake.failNext({ status: 503, times: 1_000 })
  const attempts: number[] = []
  for (let call = 0; call < 6; call++) {
    const outcome = await outcomeOf(client.events.trigger(EVENT))
    if (!outcome.ok) attempts.push(outcome.error.attempts)
  }
  return attempts
}

describe.each(TRANSPORTS)('the retry budget (%s)', (transport) => {
  it('during an outage, stops retrying after a few failures, and calls fail at once with the last error', async () => {
    const fake = seededFake()
    fake.failNext({ status: 503, times: 1_000 })
    const { client, log } = clientOf(fake, transport)
    const attempts: number[] = []
    const spent: (boolean | undefined)[] = []
    for (let call = 0; call < 10; call++) {
      const outcome = await outcomeOf(client.events.trigger(EVENT))
      expect(outcome.ok).toBe(false)
      if (outcome.ok) continue
      expect(outcome.error).toMatchObject({ status: 503 })
      expect(outcome.error).toBeInstanceOf(InternalServerError)
      attempts.push(outcome.error.attempts)
      spent.push(outcome.error.retryBudgetSpent)
    }
    // 20 tokens, one per failed attempt, retries only while more than 10 are left.
    expect(attempts).toEqual([3, 3, 3, 1, 1, 1, 1, 1, 1, 1])
    expect(spent).toEqual([undefined, undefined, undefined, true, true, true, true, true, true, true])
    expect(fake.requests).toHaveLength(16)
    const warning = log.lines.find((line) => line.level === 'warn')
    expect(warning?.message).toMatch(/not retried: the retry budget is spent/)
  })

  it('caps its tokens: a long quiet spell banks no more retries than a full budget', async () => {
    const fake = seededFake()
    const { client } = clientOf(fake, transport)
    for (let call = 0; call < 200; call++) await outcomeOf(client.events.trigger(EVENT))
    expect(await attemptsInAnOutage(fake, client)).toEqual([3, 3, 3, 1, 1, 1])
  })

  it('spends nothing on 429s: the outage after a spell of them finds the budget full', async () => {
    const fake = seededFake()
    const { client } = clientOf(fake, transport)
    for (let call = 0; call < 12; call++) {
      fake.failNext({ status: 429, times: 1, headers: { 'retry-after': '0' } })
      const outcome = await outcomeOf(client.events.trigger(EVENT).withResponse())
      expect(outcome.ok && outcome.value.response.attempts).toBe(2)
    }
    expect(await attemptsInAnOutage(fake, client)).toEqual([3, 3, 3, 1, 1, 1])
  })

  it('tells the hooks: no onRetry once the budget is spent, and onCallEnd gets the marked error', async () => {
    const fake = seededFake()
    fake.failNext({ status: 502, times: 1_000 })
    const retries: number[] = []
    const ends: (boolean | undefined)[] = []
    const { client } = clientOf(fake, transport, {
      hooks: {
        onRetry: ({ attempt }) => {
          retries.push(attempt)
        },
        onCallEnd: ({ error }) => {
          ends.push(error?.retryBudgetSpent)
        },
      },
    })
    for (let call = 0; call < 5; call++) await outcomeOf(client.events.trigger(EVENT))
    expect(retries).toEqual([1, 2, 1, 2, 1, 2])
    expect(ends).toEqual([undefined, undefined, undefined, true, true])
  })

  it('lets first attempts through, so calls succeed again as soon as the service does, and refills as they do', async () => {
    const fake = seededFake()
    fake.failNext({ status: 503, times: 14 })
    const { client } = clientOf(fake, transport)
    // Three calls of three failed attempts, then five calls that fail at once: 14 failures, 6 tokens.
    for (let call = 0; call < 8; call++) await outcomeOf(client.events.trigger(EVENT))
    // The service is back: the first attempt of the next call succeeds.
    const back = await outcomeOf(client.events.trigger(EVENT).withResponse())
    expect(back.ok && back.value.response.attempts).toBe(1)
    // Tokens come back at a quarter a success; a failure takes one, and a retry needs more than 10
    // left after it: not after 20 successes in all (11 tokens), after 21 (11.25).
    for (let call = 0; call < 19; call++) await outcomeOf(client.events.trigger(EVENT))
    fake.failNext({ status: 503, times: 1 })
    const refused = await outcomeOf(client.events.trigger(EVENT).withResponse())
    expect(!refused.ok && refused.error.retryBudgetSpent).toBe(true)
    // That failure took a token back: 10. Five more successes, 11.25.
    for (let call = 0; call < 5; call++) await outcomeOf(client.events.trigger(EVENT))
    fake.failNext({ status: 503, times: 1 })
    const retried = await outcomeOf(client.events.trigger(EVENT).withResponse())
    expect(retried.ok && retried.value.response.attempts).toBe(2)
  })

  it.each([
    { every: 10, calls: 100, status: 500 },
    { every: 8, calls: 400, status: 503 },
  ])(
    'retries a service that fails one attempt in $every, every time, over $calls calls',
    async ({ every, calls, status }) => {
      const fake = seededFake()
      const { client } = clientOf(fake, transport)
      const attempts: number[] = []
      for (let call = 0; call < calls; call++) {
        // One call in `every` meets a failure on its first attempt.
        if (call % every === 0) fake.failNext({ status, times: 1 })
        const outcome = await outcomeOf(client.events.trigger(EVENT).withResponse())
        if (outcome.ok) attempts.push(outcome.value.response.attempts)
      }
      expect(attempts).toHaveLength(calls)
      expect(attempts.filter((count) => count === 2)).toHaveLength(calls / every)
    },
  )

  it('is shared by the clients withOptions derives, and not by a client of another key', async () => {
    const fake = seededFake({ apiKey: undefined })
    fake.failNext({ status: 500, times: 1_000 })
    const { client } = clientOf(fake, transport)
    const derived = client.withOptions({ timeoutMs: 5_000 })
    for (let call = 0; call < 4; call++) await outcomeOf(client.events.trigger(EVENT))
    const fromDerived = await outcomeOf(derived.events.trigger(EVENT))
    expect(!fromDerived.ok && fromDerived.error).toBeInstanceOf(InternalServerError)
    expect(!fromDerived.ok && fromDerived.error.attempts).toBe(1)
    const otherKey = await outcomeOf(client.withOptions({ apiKey: 'another-key' }).events.trigger(EVENT))
    expect(!otherKey.ok && otherKey.error.attempts).toBe(3)
  })

  it('leaves 429s to the pacer: they neither spend the budget nor are stopped by it', async () => {
    const fake = seededFake()
    // Three calls of three attempts, then five of one: 14 failures, the budget spent.
    fake.failNext({ status: 503, times: 14 })
    const { client } = clientOf(fake, transport)
    for (let call = 0; call < 8; call++) await outcomeOf(client.events.trigger(EVENT))
    const limited = seededFake()
    limited.failNext({ status: 429, times: 2, headers: { 'retry-after': '1' } })
    const throttled = await outcomeOf(
      new NotificationClient({
        apiKey: API_KEY,
        baseUrl: 'https://api.test',
        ...fakeConnection(limited, transport),
        logLevel: 'off',
      }).events
        .trigger(EVENT)
        .withResponse(),
    )
    expect(throttled.ok && throttled.value.response.attempts).toBe(3)
    // And on the client whose budget is spent (no `fake.reset()`, which would renew it), a 429 is
    // still retried.
    fake.failNext({ status: 429, times: 1, headers: { 'retry-after': '1' } })
    const after = await outcomeOf(client.events.trigger(EVENT).withResponse())
    expect(after.ok && after.value.response.attempts).toBe(2)
  })
})

describe('the retry budget and the free retry of a stale socket', () => {
  it('spends nothing on it: the outage after many calls that each met a stale socket finds the budget full', async () => {
    const fake = seededFake()
    // While `stale`, every call's first attempt finds its pooled socket closed (ECONNRESET before
    // any answer), and the next goes through.
    let stale = true
    let staleNext = true
    const fetch: NotificationClientOptions['fetch'] = async (url, init) => {
      staleNext = !staleNext
      if (stale && !staleNext) {
        const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
        throw new TypeError('fetch failed', { cause: reset })
      }
      return fake.fetch(url, init)
    }
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://api.test',
      fetch,
      logLevel: 'off',
    })
    for (let call = 0; call < 30; call++) {
      const outcome = await outcomeOf(client.events.trigger(EVENT).withResponse())
      expect(outcome.ok && outcome.value.response.attempts).toBe(2)
    }
    stale = false
    expect(await attemptsInAnOutage(fake, client)).toEqual([3, 3, 3, 1, 1, 1])
  })
})

describe('the retry budget, token by token', () => {
  const times = (count: number, act: () => void) => {
    for (let i = 0; i < count; i++) act()
  }

  it('retries while more than half of its 20 tokens are left', () => {
    const budget = new RetryBudget()
    times(9, () => budget.failed())
    expect(budget.allowsRetry).toBe(true)
    budget.failed()
    expect(budget.allowsRetry).toBe(false)
    // A quarter of a token per success: one puts it past half again.
    budget.succeeded()
    expect(budget.allowsRetry).toBe(true)
  })

  it('has a floor: a long outage owes nothing, and 41 successes after it bring retries back', () => {
    const budget = new RetryBudget()
    times(1_000, () => budget.failed())
    times(40, () => budget.succeeded())
    expect(budget.allowsRetry).toBe(false)
    budget.succeeded()
    expect(budget.allowsRetry).toBe(true)
  })

  it('has a ceiling: a long quiet spell of successes banks no more than a full budget', () => {
    const budget = new RetryBudget()
    times(1_000, () => budget.succeeded())
    times(10, () => budget.failed())
    expect(budget.allowsRetry).toBe(false)
  })
})
