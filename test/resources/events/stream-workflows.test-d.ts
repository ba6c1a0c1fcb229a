// Type-level tests: vitest's typecheck runs this file (vitest.config.ts), and `tsc --noEmit` covers
// it too. Each `@ts-expect-error` line is the rejected twin of an accepted call above it: if the
// compiler stopped rejecting it, the directive would be unused and both runs would fail.
import { describe, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import {
  type BulkChunkOutcome,
  NotificationClient,
  type TriggerEventOf,
  type TriggerResult,
} from '../../../src/index.js'

type Workflows = {
  welcome: { firstName: string }
  'order-shipped': { orderId: string; eta?: string }
}

const options = { apiKey: 'k', baseUrl: 'https://api.test' }
declare const users: { id: string }[]

describe('triggerBulk and triggerStream over iterables of a typed client', () => {
  const client = new NotificationClient<Workflows>(options)
  type Welcome = TriggerEventOf<typeof client, 'welcome'>

  test('an iterable (a Set) of typed events', () => {
    const welcomes = new Set<Welcome>(
      users.map((user) => ({ name: 'welcome', to: user.id, payload: { firstName: 'Ada' } })),
    )
    expectTypeOf(client.events.triggerBulk(welcomes)).resolves.toEqualTypeOf<TriggerResult[]>()
    expectTypeOf(client.events.triggerStream(welcomes)).toEqualTypeOf<
      AsyncIterableIterator<BulkChunkOutcome>
    >()

    const misspelt = new Set([{ name: 'welcome' as const, to: 'u1', payload: { first_name: 'Ada' } }])
    // @ts-expect-error a misspelt payload field in an iterable's event
    client.events.triggerBulk(misspelt)
    // @ts-expect-error the same event streamed
    client.events.triggerStream(misspelt)
  })

  test('a generator and an async generator of typed events', () => {
    function* welcomeEvents(): Generator<Welcome> {
      for (const user of users) yield { name: 'welcome', to: user.id, payload: { firstName: 'Ada' } }
    }
    async function* anyEvents(): AsyncGenerator<TriggerEventOf<typeof client>> {
      yield { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }
      yield { name: 'order-shipped', to: 'u2', payload: { orderId: 'o-2' } }
    }
    client.events.triggerBulk(welcomeEvents())
    client.events.triggerBulk(anyEvents())
    client.events.triggerStream(welcomeEvents())
    client.events.triggerStream(anyEvents(), { idempotencyKey: 'job-1', startAtChunk: 3 })

    async function* wrongPayloads() {
      yield { name: 'order-shipped' as const, to: 'u1', payload: { order_id: 'o-1' } }
    }
    // @ts-expect-error a wrong payload from an async generator, streamed
    client.events.triggerStream(wrongPayloads())
    // @ts-expect-error the same generator, bulk
    client.events.triggerBulk(wrongPayloads())

    async function* unknownWorkflow() {
      yield { name: 'goodbye' as const, to: 'u1', payload: { firstName: 'Ada' } }
    }
    // @ts-expect-error an unknown workflow name from an async generator
    client.events.triggerStream(unknownWorkflow())
  })

  test('an async generator that yields a wrong payload does not compile against its declared type', () => {
    async function* digest(): AsyncGenerator<Welcome> {
      yield { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }
      // @ts-expect-error the yield is checked against the declared event type
      yield { name: 'welcome', to: 'u1', payload: { firstName: 1 } }
    }
    client.events.triggerStream(digest())
  })

  test('arrays keep their contextual typing', () => {
    client.events.triggerStream([{ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }])
    client.events.triggerBulk([{ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }])
    // @ts-expect-error a wrong payload in an array literal, streamed
    client.events.triggerStream([{ name: 'welcome', to: 'u1', payload: { firstName: 1 } }])
  })

  test('the stream takes its own options, not onProgress', () => {
    client.events.triggerStream([], { concurrency: 4, startAtChunk: 0, deadlineMs: 1_000 })
    // @ts-expect-error onProgress is triggerBulk's; the outcomes are the stream's progress
    client.events.triggerStream([], { onProgress: () => {} })
    // @ts-expect-error startAtChunk is the stream's
    client.events.triggerBulk([], { startAtChunk: 1 })
  })
})

describe('with a workflows schema map', () => {
  const client = new NotificationClient({
    ...options,
    workflows: { welcome: z.object({ firstName: z.string() }) },
  })

  test('an async generator of the inferred events', () => {
    async function* welcomes(): AsyncGenerator<TriggerEventOf<typeof client, 'welcome'>> {
      yield { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }
    }
    client.events.triggerStream(welcomes())

    async function* wrong() {
      yield { name: 'welcome' as const, to: 'u1', payload: { firstName: 42 } }
    }
    // @ts-expect-error a payload of the wrong type against the schema's input type
    client.events.triggerStream(wrong())
  })
})

describe('an untyped client', () => {
  const client = new NotificationClient(options)

  test('takes any named event from any iterable', () => {
    async function* events() {
      yield { name: 'anything', to: 'u1', payload: { any: 'thing' } }
    }
    client.events.triggerStream(events())
    client.events.triggerBulk(new Set([{ name: 'x', to: 'u1' }]))
    // @ts-expect-error `to` is still required
    client.events.triggerStream([{ name: 'x' }])
  })
})
