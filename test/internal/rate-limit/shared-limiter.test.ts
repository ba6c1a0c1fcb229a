import { describe, expect, it } from 'vitest'
import {
  NotificationClient,
  NotifyKitError,
  type RateLimitAnswer,
  type RateLimiter,
  type RateLimitRequest,
} from '../../../src/index.js'
import type { FakeService } from '../../../src/testing/index.js'
import { API_KEY, fakeConnection, seededFake } from '../../helpers/fake.js'
import { TRANSPORTS, type TransportName } from '../../helpers/transport.js'
import { rejectionOf } from '../../helpers/wire.js'

// `rateLimit` given a limiter of the application's own: what it is asked, what it is told, and
// what its refusal does, on both transports.

const EVENT = { name: 'welcome', to: 'alice' }

/** A limiter that records every request and answer, and lets all go. */
function recordingLimiter() {
  const asked: RateLimitRequest[] = []
  const told: { cost: number; answer: RateLimitAnswer | undefined }[] = []
  const limiter: RateLimiter = {
    acquire: (request) => {
      asked.push(request)
    },
    settle: (request, answer) => {
      told.push({ cost: request.cost, answer })
    },
  }
  return { limiter, asked, told }
}

function clientOf(fake: FakeService, transport: TransportName, rateLimit: RateLimiter) {
  return new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://api.test',
    ...fakeConnection(fake, transport),
    rateLimit,
    logLevel: 'off',
  })
}

describe.each(TRANSPORTS)('a RateLimiter of your own (%s)', (transport) => {
  it('is asked before each attempt that draws from the trigger bucket, with its cost, and told each answer', async () => {
    const fake = seededFake({ rateLimit: { perSecond: 1_000, burst: 1_000 } })
    const { limiter, asked, told } = recordingLimiter()
    const client = clientOf(fake, transport, limiter)
    const controller = new AbortController()
    await client.events.trigger(EVENT, { signal: controller.signal, deadlineMs: 5_000 })
    await client.events.triggerBulk([EVENT, EVENT])
    await client.events.broadcast({ name: 'welcome', payload: {} })
    await client.subscribers.messages.markAll('alice', { markAs: 'read' })
    await client.events.cancel('nothing')
    expect(asked.map((request) => request.cost)).toEqual([1, 100, 100])
    expect(asked[0]?.signal).toBe(controller.signal)
    expect(asked[0]?.deadline).toBeGreaterThan(Date.now())
    expect(told.map(({ cost, answer }) => [cost, answer?.status])).toEqual([
      [1, 201],
      [100, 201],
      [100, 201],
    ])
    expect(told[0]?.answer?.headers['ratelimit-remaining']).toBe('999')
  })

  it('holds the attempt until its acquire resolves', async () => {
    const fake = seededFake()
    let release: () => void = () => {}
    const limiter: RateLimiter = { acquire: () => new Promise<void>((resolve) => (release = resolve)) }
    const call = clientOf(fake, transport, limiter).events.trigger(EVENT)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(fake.requests).toEqual([])
    release()
    await call
    expect(fake.requests).toHaveLength(1)
  })

  it('fails the call when acquire refuses, with its reason, and sends nothing', async () => {
    const fake = seededFake()
    const refusing: RateLimiter = {
      acquire: async () => {
        throw new Error('store unreachable')
      },
    }
    const error = await rejectionOf(clientOf(fake, transport, refusing).events.trigger(EVENT))
    expect(error).toBeInstanceOf(NotifyKitError)
    expect((error as NotifyKitError).message).toContain('store unreachable')
    expect((error as NotifyKitError).cause).toEqual(new Error('store unreachable'))
    expect(fake.requests).toEqual([])
    const throwing: RateLimiter = {
      acquire: () => {
        throw new Error('no turn')
      },
    }
    await expect(clientOf(fake, transport, throwing).events.trigger(EVENT)).rejects.toThrow('no turn')
  })

  it('keeps the outcome of a sent attempt when settle throws', async () => {
    const fake = seededFake()
    const limiter: RateLimiter = {
      acquire: () => {},
      settle: () => {
        throw new Error('bookkeeping failed')
      },
    }
    const result = await clientOf(fake, transport, limiter).events.trigger(EVENT)
    expect(result.acknowledged).toBe(true)
  })

  it('coordinates clients exactly when they share it: no 429 from a bucket they would overdraw', async () => {
    const fake = seededFake({ rateLimit: { perSecond: 50, burst: 20 } })
    // A token bucket a little under the server's (the clocks of two buckets drift apart), shared by
    // every client: each attempt waits for its units.
    let tokens = 18
    let updatedAt = Date.now()
    const shared: RateLimiter = {
      async acquire({ cost }) {
        for (;;) {
          const now = Date.now()
          tokens = Math.min(18, tokens + ((now - updatedAt) * 45) / 1000)
          updatedAt = now
          if (tokens >= cost) {
            tokens -= cost
            return
          }
          await new Promise((resolve) => setTimeout(resolve, ((cost - tokens) / 45) * 1000 + 1))
        }
      },
    }
    const clients = Array.from({ length: 4 }, () => clientOf(fake, transport, shared))
    await Promise.all(
      clients.flatMap((client, c) =>
        Array.from({ length: 10 }, (_, n) => client.events.trigger({ name: 'welcome', to: `c${c}-${n}` })),
      ),
    )
    expect(fake.requests).toHaveLength(40)
    expect(fake.notifications).toHaveLength(40)
  })
})

it('rateLimit is checked: an object without acquire is refused at construction', () => {
  expect(
    () =>
      new NotificationClient({
        apiKey: 'k',
        baseUrl: 'https://x.test',
        rateLimit: { settle: () => {} } as unknown as RateLimiter,
      }),
  ).toThrow('rateLimit must be adaptive, off, or a rate limiter with an acquire method')
})
