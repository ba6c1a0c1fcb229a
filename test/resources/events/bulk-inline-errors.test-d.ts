// Type-level tests: where the compiler reports a wrong event of `triggerBulk`. vitest's typecheck runs
// this file (vitest.config.ts), and `tsc --noEmit` covers it too. A `@ts-expect-error` covers only the
// line below it, so each one on an element line of an inline list holds only while the error is
// reported at that element: reported at the call instead (as an iterator error against the whole
// list), the directive is unused and the call's error stands, and both runs fail.
import { describe, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { NotificationClient, type TriggerEventOf, type TriggerResult } from '../../../src/index.js'

const options = { apiKey: 'k', baseUrl: 'https://api.test' }
declare const users: { id: string }[]

describe('triggerBulk with an inline list, on a client typed by its workflows map', () => {
  const client = new NotificationClient({
    ...options,
    workflows: {
      welcome: z.object({ firstName: z.string() }),
      'order-shipped': z.object({ orderId: z.string(), eta: z.string().optional() }),
    },
  })

  test('a mixed list: each event is checked against the payload of its own workflow', () => {
    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      { name: 'order-shipped', to: 'u2', payload: { orderId: 'o-2', eta: 'soon' } },
      { name: 'order-shipped', to: 'u3', payload: { orderId: 'o-3' } },
    ])
  })

  test('a payload field of the wrong type is reported at its event', () => {
    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      // @ts-expect-error orderId is a string
      { name: 'order-shipped', to: 'u2', payload: { orderId: 42 } },
    ])
    client.events.triggerBulk([
      // @ts-expect-error the same in a list of one event
      { name: 'order-shipped', to: 'u2', payload: { orderId: 42 } },
    ])
  })

  test("another workflow's payload, a missing payload, an unknown name: each at its event", () => {
    client.events.triggerBulk([
      { name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1' } },
      // @ts-expect-error welcome's payload under order-shipped's name
      { name: 'order-shipped', to: 'u2', payload: { firstName: 'Ada' } },
    ])
    client.events.triggerBulk([
      { name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1' } },
      // @ts-expect-error welcome requires a payload
      { name: 'welcome', to: 'u2' },
    ])
    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      // @ts-expect-error not a workflow of the client
      { name: 'goodbye', to: 'u2', payload: { firstName: 'Ada' } },
    ])
    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      // @ts-expect-error `to` is required
      { name: 'welcome', payload: { firstName: 'Ada' } },
    ])
  })

  test('lists in variables and iterables are accepted as before', () => {
    const welcomes: TriggerEventOf<typeof client, 'welcome'>[] = users.map((user) => ({
      name: 'welcome',
      to: user.id,
      payload: { firstName: 'Ada' },
    }))
    const mixed: readonly TriggerEventOf<typeof client>[] = [
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      { name: 'order-shipped', to: 'u2', payload: { orderId: 'o-2' } },
    ]
    const literal = [{ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }] as const
    function* generated(): Generator<TriggerEventOf<typeof client, 'welcome'>> {
      yield* welcomes
    }
    async function* streamed(): AsyncGenerator<TriggerEventOf<typeof client>> {
      yield* mixed
    }
    client.events.triggerBulk(welcomes)
    client.events.triggerBulk(mixed)
    client.events.triggerBulk(literal)
    client.events.triggerBulk([...welcomes, ...mixed])
    client.events.triggerBulk(new Set(welcomes))
    client.events.triggerBulk(generated())
    client.events.triggerBulk(streamed(), { idempotencyKey: 'job-1', concurrency: 2 })
    client.events.triggerBulk(
      users.map((user) => ({ name: 'welcome' as const, to: user.id, payload: { firstName: 'Ada' } })),
    )
  })

  test('a list built apart from the call is still checked, at the call', () => {
    const widened = [{ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }]
    // @ts-expect-error without a type, TypeScript widens each `name` to `string`
    client.events.triggerBulk(widened)
    async function* wrong() {
      yield { name: 'welcome' as const, to: 'u1', payload: { firstName: 42 } }
    }
    // @ts-expect-error a wrong payload from an async generator
    client.events.triggerBulk(wrong())
    // @ts-expect-error a string is not a source of events
    client.events.triggerBulk('welcome')
  })

  test('the result is the list of results, whatever the source', () => {
    const inline = client.events.triggerBulk([{ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } }])
    expectTypeOf(inline).resolves.toEqualTypeOf<TriggerResult[]>()
    async function* none(): AsyncGenerator<TriggerEventOf<typeof client>> {}
    expectTypeOf(client.events.triggerBulk(none())).resolves.toEqualTypeOf<TriggerResult[]>()
    expectTypeOf(client.events.triggerBulk).returns.resolves.toEqualTypeOf<TriggerResult[]>()
  })
})

describe('triggerBulk on an untyped client', () => {
  const client = new NotificationClient(options)

  test('any name, any object payload, from a list or an iterable', () => {
    const events = [
      { name: 'a', to: 'u1' },
      { name: 'b', to: 'u2', payload: { x: 1 } },
    ]
    function* generated() {
      yield { name: 'c', to: 'u3', payload: { nested: { list: [1] } } }
    }
    client.events.triggerBulk([
      { name: 'a', to: 'u1' },
      { name: 'b', to: 'u2', payload: { x: 1 } },
    ])
    client.events.triggerBulk(events)
    client.events.triggerBulk(new Set(events))
    client.events.triggerBulk(generated())
  })

  test('the rest of each event is still checked at the event', () => {
    client.events.triggerBulk([
      { name: 'a', to: 'u1' },
      // @ts-expect-error a payload is an object
      { name: 'b', to: 'u2', payload: 'text' },
    ])
  })
})
