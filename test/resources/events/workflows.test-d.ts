// Type-level tests: vitest's typecheck runs this file (vitest.config.ts), and `tsc --noEmit` covers
// it too. Each `@ts-expect-error` line is the rejected twin of the accepted call just above it: if
// the compiler stopped rejecting it, the directive would be unused and both runs would fail.
import * as v from 'valibot'
import { describe, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import * as zm from 'zod/mini'
import { z as z3 } from 'zod3'
import { z as z3v4 } from 'zod3/v4'
import {
  type BroadcastEventOf,
  type BroadcastEventParams,
  BulkTriggerError,
  NotificationClient,
  type TriggerEventOf,
  type TriggerEventParams,
  type TriggerResult,
  type WorkflowPayloadsOf,
  type WorkflowSchemas,
} from '../../../src/index.js'

type Workflows = {
  welcome: { firstName: string }
  'order-shipped': { orderId: string; eta?: string }
}

const options = { apiKey: 'k', baseUrl: 'https://api.test' }
declare const users: { id: string }[]

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

describe('workflows accepts any Standard Schema v1', () => {
  const expectWorkflows = (client: NotificationClient<Workflows>) => {
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    // @ts-expect-error a misspelt payload field
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { first_name: 'Ada' } })
    return client
  }

  test('zod 3 (3.24+)', () => {
    const client = new NotificationClient({
      ...options,
      workflows: {
        welcome: z3.object({ firstName: z3.string() }),
        'order-shipped': z3.object({ orderId: z3.string(), eta: z3.string().optional() }),
      },
    })
    // zod 3 spells its inferred object types differently: equal both ways, if not the same alias.
    expectTypeOf(expectWorkflows(client)).toEqualTypeOf<NotificationClient<Workflows>>()
    expectTypeOf(client).toExtend<NotificationClient<Workflows>>()
    expectTypeOf<NotificationClient<Workflows>>().toExtend<typeof client>()
  })

  test("zod 3.25's zod/v4 and zod 4 mini", () => {
    const fromV4 = new NotificationClient({
      ...options,
      workflows: {
        welcome: z3v4.object({ firstName: z3v4.string() }),
        'order-shipped': z3v4.object({ orderId: z3v4.string(), eta: z3v4.optional(z3v4.string()) }),
      },
    })
    expectTypeOf(fromV4).toEqualTypeOf<NotificationClient<Workflows>>()
    const fromMini = new NotificationClient({
      ...options,
      workflows: {
        welcome: zm.object({ firstName: zm.string() }),
        'order-shipped': zm.object({ orderId: zm.string(), eta: zm.optional(zm.string()) }),
      },
    })
    expectTypeOf(expectWorkflows(fromMini)).toEqualTypeOf<NotificationClient<Workflows>>()
  })

  test('valibot, input types rather than output types', () => {
    const client = new NotificationClient({
      ...options,
      workflows: {
        welcome: v.object({ firstName: v.string() }),
        'order-shipped': v.object({ orderId: v.string(), eta: v.optional(v.string()) }),
        reminder: v.object({
          at: v.pipe(
            v.string(),
            v.transform((text) => new Date(text)),
          ),
        }),
      },
    })
    type WithReminder = {
      welcome: { firstName: string }
      'order-shipped': { orderId: string; eta?: string }
      reminder: { at: string }
    }
    expectTypeOf(client).toEqualTypeOf<NotificationClient<WithReminder>>()
    client.events.trigger({ name: 'reminder', to: 'u1', payload: { at: '2026-01-01T09:00:00Z' } })
    // @ts-expect-error the schema's output type (Date) is not what is sent
    client.events.trigger({ name: 'reminder', to: 'u1', payload: { at: new Date() } })
  })

  test('an explicit type parameter checks schemas of any library against it', () => {
    new NotificationClient<Workflows>({
      ...options,
      workflows: { welcome: v.object({ firstName: v.string() }) },
    })
    new NotificationClient<Workflows>({
      ...options,
      // @ts-expect-error the schema's type disagrees with Workflows
      workflows: { welcome: z3.object({ firstName: z3.number() }) },
    })
  })
})

describe('naming the types of a typed client', () => {
  const workflows = {
    welcome: z.object({ firstName: z.string() }),
    'order-shipped': z.object({ orderId: z.string(), eta: z.string().optional() }),
    'weekly-digest': v.object({ week: v.string() }),
  }
  type All = {
    welcome: { firstName: string }
    'order-shipped': { orderId: string; eta?: string }
    'weekly-digest': { week: string }
  }
  const client = new NotificationClient({ ...options, workflows })

  test('WorkflowPayloadsOf: the payload map of a schema map or of a client', () => {
    expectTypeOf<WorkflowPayloadsOf<typeof workflows>>().toEqualTypeOf<All>()
    expectTypeOf<WorkflowPayloadsOf<typeof client>>().toEqualTypeOf<All>()
    expectTypeOf<WorkflowPayloadsOf<NotificationClient<Workflows>>>().toEqualTypeOf<Workflows>()
  })

  test('TriggerEventOf: one workflow, or any of them', () => {
    expectTypeOf<TriggerEventOf<typeof client, 'weekly-digest'>>().toEqualTypeOf<
      TriggerEventParams<All, 'weekly-digest'>
    >()
    expectTypeOf<TriggerEventOf<typeof client, 'weekly-digest'>['payload']>().toEqualTypeOf<{
      week: string
    }>()
    expectTypeOf<TriggerEventOf<typeof client>['name']>().toEqualTypeOf<
      'welcome' | 'order-shipped' | 'weekly-digest'
    >()
    expectTypeOf<TriggerEventOf<typeof workflows, 'welcome'>>().toEqualTypeOf<
      TriggerEventOf<typeof client, 'welcome'>
    >()
    // @ts-expect-error not a workflow of this client
    expectTypeOf<TriggerEventOf<typeof client, 'weekly-digets'>>()
    expectTypeOf<BroadcastEventOf<typeof client, 'welcome'>['payload']>().toEqualTypeOf<{
      firstName: string
    }>()
  })

  test('events built apart from the call compile once annotated, and are still checked', () => {
    const digest: TriggerEventOf<typeof client, 'weekly-digest'>[] = users.map((user) => ({
      name: 'weekly-digest',
      to: user.id,
      payload: { week: '2026-W47' },
    }))
    client.events.triggerBulk(digest)
    const mixed: TriggerEventOf<typeof client>[] = [
      ...digest,
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
    ]
    client.events.triggerBulk(mixed)
    client.events.trigger(mixed[0]!)

    // @ts-expect-error a misspelt payload field in an annotated list
    const typo: TriggerEventOf<typeof client, 'weekly-digest'>[] = users.map((user) => ({
      name: 'weekly-digest',
      to: user.id,
      payload: { wek: '2026-W47' },
    }))
    expectTypeOf(typo).toBeArray()
  })

  test('built inside the call, a map needs no annotation', () => {
    client.events.triggerBulk(
      users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { week: '2026-W47' } })),
    )
    client.events.triggerBulk(
      // @ts-expect-error a misspelt payload field
      users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { wek: '2026-W47' } })),
    )
  })

  test('without the annotation, `name` is widened to string before the call sees it: refused', () => {
    const events = users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { week: 'w' } }))
    // @ts-expect-error `name: string` may be any workflow: annotate the list, or write `'weekly-digest' as const`
    client.events.triggerBulk(events)
    const asConst = users.map((user) => ({
      name: 'weekly-digest' as const,
      to: user.id,
      payload: { week: 'w' },
    }))
    client.events.triggerBulk(asConst)
  })

  test('the untyped client accepts the same annotations', () => {
    const untyped = new NotificationClient(options)
    const events: TriggerEventOf<typeof untyped, 'weekly-digest'>[] = users.map((user) => ({
      name: 'weekly-digest',
      to: user.id,
      payload: { week: '2026-W47' },
    }))
    untyped.events.triggerBulk(events)
    const built = users.map((user) => ({ name: 'anything', to: user.id }))
    untyped.events.triggerBulk(built)
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
