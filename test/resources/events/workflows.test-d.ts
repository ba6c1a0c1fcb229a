// Type-level tests: vitest's typecheck runs this file (vitest.config.ts), and `tsc --noEmit` covers
// it too. Each `@ts-expect-error` line is the rejected twin of the accepted call just above it: if
// the compiler stopped rejecting it, the directive would be unused and both runs would fail.
import { describe, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import {
  type BroadcastEventParams,
  BulkTriggerError,
  NotificationClient,
  type TriggerEventParams,
  type TriggerResult,
  type WorkflowSchemas,
} from '../../../src/index.js'

type Workflows = {
  welcome: { firstName: string }
  'order-shipped': { orderId: string; eta?: string }
}

const options = { apiKey: 'k', baseUrl: 'https://api.test' }

describe('NotificationClient<Workflows>', () => {
  const client = new NotificationClient<Workflows>(options)

  test('trigger accepts the declared payloads and rejects the rest', () => {
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    // @ts-expect-error a misspelt payload field
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { first_name: 'Ada' } })

    client.events.trigger({ name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1' } })
    // @ts-expect-error an unknown workflow name
    client.events.trigger({ name: 'order-shiped', to: 'u1', payload: { orderId: 'o-1' } })

    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    // @ts-expect-error a missing required payload
    client.events.trigger({ name: 'welcome', to: 'u1' })

    client.events.trigger({ name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1', eta: 'soon' } })
    // @ts-expect-error a field of the wrong type
    client.events.trigger({ name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1', eta: 3 } })

    client.events.trigger({ name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1' } })
    // @ts-expect-error another workflow's payload
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { orderId: 'o-1' } })
  })

  test('the parameter types, without excess-property checks', () => {
    type Params = TriggerEventParams<Workflows>
    expectTypeOf<{ name: 'welcome'; to: string; payload: { firstName: string } }>().toExtend<Params>()
    expectTypeOf<{ name: 'welcome'; to: string; payload: { first_name: string } }>().not.toExtend<Params>()
    expectTypeOf<{ name: 'welcome'; to: string }>().not.toExtend<Params>()
    expectTypeOf<{ name: 'nope'; to: string; payload: { firstName: string } }>().not.toExtend<Params>()
    expectTypeOf<{ name: 'order-shipped'; to: string; payload: { eta: string } }>().not.toExtend<Params>()
    expectTypeOf<Params['name']>().toEqualTypeOf<'welcome' | 'order-shipped'>()
  })

  test('triggerBulk checks every event the same way', () => {
    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      { name: 'order-shipped', to: 'u2', payload: { orderId: 'o-2' } },
    ])
    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      // @ts-expect-error a misspelt payload field in one event
      { name: 'order-shipped', to: 'u2', payload: { order_id: 'o-2' } },
    ])
    // @ts-expect-error an unknown workflow name in one event
    client.events.triggerBulk([{ name: 'goodbye', to: 'u1', payload: { firstName: 'Ada' } }])
    // @ts-expect-error a missing required payload in one event
    client.events.triggerBulk([{ name: 'welcome', to: 'u1' }])
    expectTypeOf(client.events.triggerBulk).returns.resolves.toEqualTypeOf<TriggerResult[]>()
  })

  test('broadcast checks the payload and always requires one', () => {
    client.events.broadcast({ name: 'welcome', payload: { firstName: 'everyone' } })
    // @ts-expect-error a misspelt payload field
    client.events.broadcast({ name: 'welcome', payload: { firstname: 'everyone' } })
    // @ts-expect-error an unknown workflow name
    client.events.broadcast({ name: 'farewell', payload: { firstName: 'everyone' } })
    // @ts-expect-error a missing payload
    client.events.broadcast({ name: 'welcome' })
    type Params = BroadcastEventParams<Workflows>
    expectTypeOf<{ name: 'order-shipped'; payload: { orderId: string } }>().toExtend<Params>()
    expectTypeOf<{ name: 'order-shipped' }>().not.toExtend<Params>()
  })

  test('a payload with no required field may be left out of a trigger, not of a broadcast', () => {
    const optional = new NotificationClient<{ ping: { note?: string } }>(options)
    optional.events.trigger({ name: 'ping', to: 'u1' })
    optional.events.broadcast({ name: 'ping', payload: {} })
    // @ts-expect-error broadcast needs a payload (the server requires one)
    optional.events.broadcast({ name: 'ping' })
  })

  test('withOptions keeps the workflow types', () => {
    expectTypeOf(client.withOptions({ timeoutMs: 1 })).toEqualTypeOf<NotificationClient<Workflows>>()
  })
})

describe('NotificationClient without a type parameter', () => {
  const client = new NotificationClient(options)

  test('accepts any name and any object payload, or none', () => {
    client.events.trigger({ name: 'anything', to: 'u1' })
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { first_name: 'Ada', nested: { n: [1] } } })
    client.events.triggerBulk([
      { name: 'a', to: 'u1' },
      { name: 'b', to: 'u2', payload: { x: 1 } },
    ])
    client.events.broadcast({ name: 'whatever', payload: { any: 'thing' } })
    expectTypeOf(client).toEqualTypeOf<NotificationClient>()
  })

  test('still checks the rest of the request', () => {
    client.events.trigger({ name: 'anything', to: 'u1' })
    // @ts-expect-error `to` is required
    client.events.trigger({ name: 'anything' })
    client.events.broadcast({ name: 'whatever', payload: {} })
    // @ts-expect-error the payload must be an object
    client.events.broadcast({ name: 'whatever', payload: 'text' })
  })
})

describe('new NotificationClient({ workflows }) infers the types from the schemas', () => {
  const client = new NotificationClient({
    ...options,
    workflows: {
      welcome: z.object({ firstName: z.string() }),
      'order-shipped': z.object({ orderId: z.string(), eta: z.string().optional() }),
    },
  })

  test('the inferred map is the Workflows type', () => {
    expectTypeOf(client).toEqualTypeOf<NotificationClient<Workflows>>()
  })

  test('trigger, triggerBulk and broadcast are checked against it', () => {
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    // @ts-expect-error a misspelt payload field
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { first_name: 'Ada' } })
    // @ts-expect-error an unknown workflow name
    client.events.trigger({ name: 'unknown', to: 'u1', payload: { firstName: 'Ada' } })
    // @ts-expect-error a missing required payload
    client.events.trigger({ name: 'welcome', to: 'u1' })

    client.events.triggerBulk([{ name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1' } }])
    // @ts-expect-error a misspelt payload field in one event
    client.events.triggerBulk([{ name: 'order-shipped', to: 'u1', payload: { orderID: 'o-1' } }])

    client.events.broadcast({ name: 'welcome', payload: { firstName: 'everyone' } })
    // @ts-expect-error a field of the wrong type
    client.events.broadcast({ name: 'welcome', payload: { firstName: 1 } })
  })

  test('payload types are the schemas input types: what is sent is what was passed', () => {
    const withTransforms = new NotificationClient({
      ...options,
      workflows: {
        reminder: z.object({
          at: z.string().transform((text) => new Date(text)),
          count: z.number().default(1),
        }),
      },
    })
    type Reminder = { reminder: { at: string; count?: number | undefined } }
    expectTypeOf(withTransforms).toEqualTypeOf<NotificationClient<Reminder>>()
    withTransforms.events.trigger({ name: 'reminder', to: 'u1', payload: { at: '2026-01-01T09:00:00Z' } })
    // @ts-expect-error the schema's output type (Date) is not what is sent
    withTransforms.events.trigger({ name: 'reminder', to: 'u1', payload: { at: new Date() } })
  })

  test('with an explicit type parameter, the schemas must fit it; workflows without one are allowed', () => {
    new NotificationClient<Workflows>({
      ...options,
      workflows: { welcome: z.object({ firstName: z.string() }) },
    })
    new NotificationClient<Workflows>({
      ...options,
      // @ts-expect-error the schema's type disagrees with Workflows
      workflows: { welcome: z.object({ firstName: z.number() }) },
    })
    expectTypeOf<{ welcome: z.ZodObject<{ firstName: z.ZodString }> }>().toExtend<
      WorkflowSchemas<Workflows>
    >()
  })
})

describe('BulkTriggerError', () => {
  test('an instanceof check gives typed results and failures', () => {
    const caught: unknown = new BulkTriggerError([], [])
    if (caught instanceof BulkTriggerError) {
      expectTypeOf(caught.results).toEqualTypeOf<(TriggerResult | undefined)[]>()
      expectTypeOf(caught.failures[0]?.eventIndexes).toEqualTypeOf<number[] | undefined>()
    }
  })
})
