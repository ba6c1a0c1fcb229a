import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { InternalServerError, NotificationClient } from '../../../src/index.js'
import { createMswDispatcher, fakeHandlers } from '../../../src/testing/msw/index.js'
import { API_KEY, fakeConnection, seededFake } from '../../helpers/fake.js'
import { TRANSPORTS } from '../../helpers/transport.js'

// A user's test file that shares one client (an app's client is one object), with `fake.reset()`
// after each test: the outage tests spend the client's retry budget, a rate-limit test leaves a 429's
// pause, and neither may reach the tests after them. The tests of each describe run in order.

const EVENT = { name: 'welcome', to: 'alice' }

// The fake's own plug-ins, and msw's handlers, which reach the client through nothing of the fake's.
const CONNECTIONS = [...TRANSPORTS, 'msw'] as const

describe.each(CONNECTIONS)(
  'one client shared by the tests of a file, the fake reset after each (%s)',
  (connection) => {
    const fake = seededFake()
    const client = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://api.test',
      ...(connection === 'msw'
        ? { dispatcher: createMswDispatcher(fakeHandlers(fake)) }
        : fakeConnection(fake, connection)),
      logLevel: 'off',
    })

    beforeAll(() => {
      vi.useFakeTimers()
    })
    afterEach(() => fake.reset())
    afterAll(() => {
      vi.useRealTimers()
    })

    /** Runs the call to its end, the fake clock driving its backoff and pauses. */
    async function settle<T>(call: PromiseLike<T>): Promise<PromiseSettledResult<T>> {
      const outcome = Promise.allSettled([call]).then(([result]) => result as PromiseSettledResult<T>)
      await vi.runAllTimersAsync()
      return outcome
    }

    it.each([1, 2])('outage test %i: every call fails with the 503', async () => {
      fake.failNext({ status: 503, times: 1_000 })
      for (let call = 0; call < 3; call++) {
        const outcome = await settle(client.events.trigger(EVENT))
        expect(outcome.status === 'rejected' && outcome.reason).toBeInstanceOf(InternalServerError)
      }
    })

    it('an unrelated test after them: a 503 is retried, and the retry sends', async () => {
      fake.failNext({ status: 503 })
      const outcome = await settle(client.events.trigger(EVENT).withResponse())
      expect(outcome.status === 'fulfilled' && outcome.value.response.attempts).toBe(2)
      expect(fake.notifications).toHaveLength(1)
    })

    it('a rate-limit test: the 429 asks for 30 s', async () => {
      fake.failNext({ status: 429, headers: { 'retry-after': '30' } })
      const outcome = await settle(client.events.trigger(EVENT, { maxRetries: 0 }))
      expect(outcome.status).toBe('rejected')
    })

    it('the test after it is not held by that pause', async () => {
      const start = Date.now()
      await settle(client.events.trigger(EVENT))
      expect(fake.requests).toHaveLength(1)
      expect(Date.now() - start).toBeLessThan(1_000)
    })
  },
)
