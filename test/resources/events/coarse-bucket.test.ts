import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type BulkChunkOutcome,
  BulkTriggerError,
  InternalServerError,
  NotificationClient,
  type NotificationClientOptions,
  RateLimitError,
  type TriggerEventParams,
  UnprocessableEntityError,
} from '../../../src/index.js'
import type { FakeService } from '../../../src/testing/index.js'
import { API_KEY, seededFake } from '../../helpers/fake.js'

// On a bucket that holds only a few bulk requests (the free plan), a stream's chunks go as single
// triggers once the client knows the bucket; the chunk's key goes with its first trigger, so that
// the server holds each chunk to the form it was first sent in, whichever form a later call picks.

const START = Date.parse('2026-03-01T12:00:00.000Z')
/** The free plan's trigger bucket, as the service describes it on every answer. */
const FREE_POLICY =
  '300;w=5;burst=330;comment="token bucket";category="trigger";cost="bulk";serviceLevel="free"'

function events(count: number, name = (_i: number) => 'welcome'): TriggerEventParams[] {
  return Array.from({ length: count }, (_, i) => ({ name: name(i), to: `user-${i}`, payload: { i } }))
}

/**
 * A client over `fake` that records each request's key, route and status. `describeFree` adds the
 * free plan's headers to every answer of a fake without a limit: a client that believes it is on
 * the free plan, where the server would not refuse it.
 */
function clientOver(
  fake: FakeService,
  describeFree = false,
  options: Partial<NotificationClientOptions> = {},
) {
  const seen: { key: string; route: string; status: number }[] = []
  const fetch: NotificationClientOptions['fetch'] = async (url, init) => {
    // A few milliseconds on the way, so that requests overlap as they do over a network.
    await new Promise((resolve) => setTimeout(resolve, 5))
    const response = await fake.fetch(url, init)
    const key = new Headers(init.headers).get('idempotency-key') ?? ''
    seen.push({
      key,
      route: new URL(url).pathname.replace('/v1/events/trigger', '') || '/',
      status: response.status,
    })
    if (!describeFree) return response
    const headers = new Headers(response.headers)
    headers.set('ratelimit-policy', FREE_POLICY)
    headers.set('ratelimit-remaining', '330')
    return new Response(response.body, { status: response.status, headers })
  }
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://fake.test',
    fetch,
    logLevel: 'off',
    ...options,
  })
  return { client, seen }
}

/** Runs a stream to its end on the fake clock. */
async function stream(
  client: NotificationClient,
  source: TriggerEventParams[],
  options: Parameters<NotificationClient['events']['triggerStream']>[1],
): Promise<BulkChunkOutcome[]> {
  const outcomes: BulkChunkOutcome[] = []
  const done = (async () => {
    for await (const outcome of client.events.triggerStream(source, options)) outcomes.push(outcome)
  })()
  let finished = false
  void done.finally(() => (finished = true))
  while (!finished) await vi.advanceTimersByTimeAsync(100)
  await done
  return outcomes
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

describe('triggerStream on a bucket too small to pace bulk requests', () => {
  it.each(['free', 'pro'] as const)(
    'sends each chunk after the first answers as single triggers, the chunk key first, on the %s plan: every event once, no 429',
    async (plan) => {
      const fake = seededFake({ rateLimit: { plan } })
      const { client, seen } = clientOver(fake)
      const outcomes = await stream(client, events(300), { idempotencyKey: 'send-1', concurrency: 2 })

      expect(outcomes.map((outcome) => outcome.results?.length)).toEqual([100, 100, 100])
      expect(fake.notifications).toHaveLength(300)
      expect(seen.filter((request) => request.status !== 201)).toEqual([])
      // Chunk 0 goes before any answer describes the bucket, in bulk and alone: chunk 1 waits for its
      // answer, which says the bucket is too small for bulk requests.
      expect(seen.filter((request) => request.route === '/bulk').map((request) => request.key)).toEqual([
        'send-1:0',
      ])
      expect(seen[0]?.key).toBe('send-1:0')
      for (const chunk of [1, 2]) {
        const keys = seen
          .filter((request) => request.key.startsWith(`send-1:${chunk}`))
          .map((request) => request.key)
        expect(keys).toEqual([
          `send-1:${chunk}`,
          ...Array.from({ length: 99 }, (_, k) => `send-1:${chunk}:${k + 1}`),
        ])
      }
    },
  )

  it('keeps bulk requests where the bucket holds enough of them (the business plan)', async () => {
    const fake = seededFake({ rateLimit: { plan: 'business' } })
    const { client, seen } = clientOver(fake)
    await stream(client, events(300), { idempotencyKey: 'send-1', concurrency: 1 })
    expect(seen.map((request) => [request.key, request.route])).toEqual([
      ['send-1:0', '/bulk'],
      ['send-1:1', '/bulk'],
      ['send-1:2', '/bulk'],
    ])
  })

  it('resumes a chunk first sent one event at a time in that form, after a cold start that tries bulk', async () => {
    const fake = seededFake({ rateLimit: { plan: 'free' } })
    const source = events(200)
    const first = await stream(clientOver(fake).client, source, { idempotencyKey: 'job-7', concurrency: 1 })
    // A new process resumes at chunk 1, which it sends blind as a bulk request: the server holds the
    // key to the first trigger's body (a 422), so the chunk goes one event at a time and replays.
    const { client, seen } = clientOver(fake)
    const [resumed] = await stream(client, source, {
      idempotencyKey: 'job-7',
      concurrency: 1,
      startAtChunk: 1,
    })

    expect(seen.slice(0, 2)).toEqual([
      { key: 'job-7:1', route: '/bulk', status: 422 },
      { key: 'job-7:1', route: '/', status: 201 },
    ])
    expect(seen).toHaveLength(101)
    expect(resumed?.results).toEqual(first[1]?.results)
    expect(fake.notifications).toHaveLength(200)
  })

  it('resumes a chunk first sent in bulk as bulk, sending none of its events alone', async () => {
    const fake = seededFake()
    const source = events(200)
    const first = await stream(clientOver(fake).client, source, { idempotencyKey: 'job-8', concurrency: 1 })
    const { client, seen } = clientOver(fake, true)
    const outcomes = await stream(client, source, { idempotencyKey: 'job-8', concurrency: 1 })

    // Chunk 1's first trigger finds the key held to the bulk body, and nothing else of it goes alone.
    expect(seen.map((request) => [request.key, request.route, request.status])).toEqual([
      ['job-8:0', '/bulk', 201],
      ['job-8:1', '/', 422],
      ['job-8:1', '/bulk', 201],
    ])
    expect(outcomes.map((outcome) => outcome.results)).toEqual(first.map((outcome) => outcome.results))
    expect(fake.notifications).toHaveLength(200)
  })

  it('fails an event the server refuses alone, the chunk key first or not, and sends the others', async () => {
    const fake = seededFake({ rateLimit: { plan: 'free' } })
    const { client } = clientOver(fake)
    const source = events(200, (i) => (i === 100 || i === 105 ? 'no-such-workflow' : 'welcome'))
    const [, second] = await stream(client, source, { idempotencyKey: 'send-2', concurrency: 1 })

    const error = second?.error
    expect(error).toBeInstanceOf(BulkTriggerError)
    const { failures, results } = error as BulkTriggerError
    expect(failures.map((failure) => [failure.eventIndexes, failure.error.constructor])).toEqual([
      [[100], UnprocessableEntityError],
      [[105], UnprocessableEntityError],
    ])
    expect(failures[0]?.error.idempotencyKey).toBe('send-2:1')
    expect(failures[1]?.error.idempotencyKey).toBe('send-2:1:5')
    expect(results.filter((result) => result !== undefined)).toHaveLength(98)
    expect(fake.notifications).toHaveLength(198)
  })

  it('sends nothing else of a chunk whose first trigger has no answer from the route', async () => {
    const fake = seededFake({ rateLimit: { plan: 'free' } })
    const { client, seen } = clientOver(fake, false, { maxRetries: 0 })
    fake.failNext({ status: 500, idempotencyKey: 'send-3:1' })
    const [, second] = await stream(client, events(200), { idempotencyKey: 'send-3', concurrency: 1 })

    expect(second?.error).toBeInstanceOf(InternalServerError)
    expect(seen.filter((request) => request.key.startsWith('send-3:1'))).toEqual([
      { key: 'send-3:1', route: '/', status: 500 },
    ])
  })
})

describe('triggerStream on a bucket that holds bulk requests (the business plan)', () => {
  it.each([
    [
      'on the business plan',
      () => ({ fake: seededFake({ rateLimit: { plan: 'business' } }), describeFree: false }),
    ],
    ['where the answers describe the free plan', () => ({ fake: seededFake(), describeFree: true })],
  ])(
    'sends a first chunk, sent blind and refused for the rate to the end, one event at a time (%s): one fits a bucket kept near empty',
    async (_plan, setup) => {
      const { fake, describeFree } = setup()
      const { client, seen } = clientOver(fake, describeFree, { maxRetries: 0 })
      fake.failNext({ status: 429, headers: { 'retry-after': '1' }, idempotencyKey: 'send-5:0' })
      const [outcome] = await stream(client, events(100), { idempotencyKey: 'send-5' })

      expect(outcome?.results).toHaveLength(100)
      expect(seen.slice(0, 3)).toEqual([
        { key: 'send-5:0', route: '/bulk', status: 429 },
        { key: 'send-5:0', route: '/', status: 201 },
        { key: 'send-5:0:1', route: '/', status: 201 },
      ])
      expect(fake.notifications).toHaveLength(100)
    },
  )

  it('fails a later chunk refused for the rate to the end: the bucket holds bulk requests, and it waits for its turn', async () => {
    const fake = seededFake({ rateLimit: { plan: 'business' } })
    const { client, seen } = clientOver(fake, false, { maxRetries: 0 })
    fake.failNext({ status: 429, headers: { 'retry-after': '1' }, idempotencyKey: 'send-6:1' })
    const [first, second] = await stream(client, events(200), { idempotencyKey: 'send-6', concurrency: 1 })

    expect(first?.results).toHaveLength(100)
    expect(second?.error).toBeInstanceOf(RateLimitError)
    expect(seen.filter((request) => request.route === '/')).toEqual([])
    expect(fake.notifications).toHaveLength(100)
  })
})
