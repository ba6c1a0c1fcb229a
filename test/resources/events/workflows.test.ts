import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  BulkTriggerError,
  NotificationClient,
  NotifyKitError,
  RequestValidationError,
  type TriggerEventParams,
} from '../../../src/index.js'
import { createMswDispatcher } from '../../../src/testing/msw-dispatcher.js'
import { rejectionOf } from '../../helpers/wire.js'

const BASE_URL = 'https://api.test'

const workflows = {
  welcome: z.object({ firstName: z.string() }),
  'order-shipped': z.object({ orderId: z.string(), eta: z.string().optional() }),
}

interface Seen {
  path: string
  body: unknown
}

function processed(transactionId: string) {
  return { acknowledged: true, status: 'processed', transactionId }
}

/** Answers trigger, bulk and broadcast, and records every request that reached the server. */
function checkedClient(schemas: Record<string, z.ZodType> = workflows) {
  const seen: Seen[] = []
  const record = async (request: Request) => {
    const body: unknown = await request.json()
    seen.push({ path: new URL(request.url).pathname, body })
    return body
  }
  const dispatcher = createMswDispatcher([
    http.post(`${BASE_URL}/v1/events/trigger/bulk`, async ({ request }) => {
      const { events } = (await record(request)) as { events: unknown[] }
      return HttpResponse.json({ data: events.map((_, i) => processed(`tx-${i}`)) }, { status: 201 })
    }),
    http.post(`${BASE_URL}/v1/events/trigger/broadcast`, async ({ request }) => {
      await record(request)
      return HttpResponse.json({ data: processed('tx-broadcast') }, { status: 201 })
    }),
    http.post(`${BASE_URL}/v1/events/trigger`, async ({ request }) => {
      await record(request)
      return HttpResponse.json({ data: processed('tx-1') }, { status: 201 })
    }),
  ])
  const client = new NotificationClient({ apiKey: 'k', baseUrl: BASE_URL, dispatcher, workflows: schemas })
  return { client, seen }
}

function issuePaths(error: unknown): (string | number)[][] {
  expect(error).toBeInstanceOf(RequestValidationError)
  return (error as RequestValidationError).issues.map((issue) => issue.path)
}

/** Bypasses the compile-time check, as JavaScript callers and `as` casts do. */
function unchecked<T>(value: unknown): T {
  return value as T
}

describe('workflow payload schemas at runtime', () => {
  it('sends a payload that matches its schema exactly as given', async () => {
    const { client, seen } = checkedClient()
    await client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    await client.events.trigger({ name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1' } })

    expect(seen).toEqual([
      { path: '/v1/events/trigger', body: { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } } },
      { path: '/v1/events/trigger', body: { name: 'order-shipped', to: 'u1', payload: { orderId: 'o-1' } } },
    ])
  })

  it('refuses a trigger whose payload does not match, naming the field, and sends nothing', async () => {
    const { client, seen } = checkedClient()
    const error = await rejectionOf(
      client.events.trigger(unchecked({ name: 'welcome', to: 'u1', payload: { first_name: 'Ada' } })),
    )
    expect(issuePaths(error)).toEqual([['payload', 'firstName']])
    expect(seen).toHaveLength(0)
  })

  it('refuses a missing payload when the schema needs one', async () => {
    const { client, seen } = checkedClient()
    const error = await rejectionOf(client.events.trigger(unchecked({ name: 'order-shipped', to: 'u1' })))
    expect(issuePaths(error)).toEqual([['payload']])
    expect(seen).toHaveLength(0)
  })

  it('reports request and payload problems together', async () => {
    const { client, seen } = checkedClient()
    const error = await rejectionOf(
      client.events.trigger(unchecked({ name: 'welcome', to: 'u1', payload: { firstName: 7 }, actor: '' })),
    )
    expect(issuePaths(error)).toContainEqual(['payload', 'firstName'])
    expect(seen).toHaveLength(0)
  })

  it('does not check workflows that have no schema', async () => {
    const { client, seen } = checkedClient()
    await client.events.trigger(unchecked({ name: 'not-declared', to: 'u1', payload: { anything: 1 } }))
    expect(seen).toHaveLength(1)
  })

  it('checks payloads without transforming them', async () => {
    const { client, seen } = checkedClient({
      reminder: z.object({
        at: z.iso.datetime().transform((text) => new Date(text)),
        count: z.number().default(1),
      }),
    })
    await client.events.trigger({ name: 'reminder', to: 'u1', payload: { at: '2026-01-01T09:00:00Z' } })
    expect(seen).toEqual([
      {
        path: '/v1/events/trigger',
        body: { name: 'reminder', to: 'u1', payload: { at: '2026-01-01T09:00:00Z' } },
      },
    ])
  })

  it('refuses a bulk list with one bad payload, pointing at its index, and sends nothing', async () => {
    const { client, seen } = checkedClient()
    const events: TriggerEventParams<{ welcome: { firstName: string } }>[] = Array.from(
      { length: 250 },
      (_, i) => ({ name: 'welcome', to: `u${i}`, payload: { firstName: `n${i}` } }),
    )
    events[3] = unchecked({ name: 'welcome', to: 'u3', payload: { firstName: 3 } })
    events[230] = unchecked({ name: 'welcome', to: 'u230', payload: {} })

    const error = await rejectionOf(client.events.triggerBulk(events))

    expect(error).not.toBeInstanceOf(BulkTriggerError)
    expect(issuePaths(error)).toEqual([
      [3, 'payload', 'firstName'],
      [230, 'payload', 'firstName'],
    ])
    expect(seen).toHaveLength(0)
  })

  it('sends a bulk list whose payloads all match', async () => {
    const { client, seen } = checkedClient()
    const results = await client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      { name: 'order-shipped', to: 'u2', payload: { orderId: 'o-2', eta: 'tomorrow' } },
    ])
    expect(results).toHaveLength(2)
    expect(seen.map((request) => request.path)).toEqual(['/v1/events/trigger/bulk'])
  })

  it('refuses a broadcast whose payload does not match, and sends nothing', async () => {
    const { client, seen } = checkedClient()
    const error = await rejectionOf(
      client.events.broadcast(unchecked({ name: 'welcome', payload: { firstName: ['Ada'] } })),
    )
    expect(issuePaths(error)).toEqual([['payload', 'firstName']])
    expect(seen).toHaveLength(0)

    await client.events.broadcast({ name: 'welcome', payload: { firstName: 'everyone' } })
    expect(seen).toEqual([
      { path: '/v1/events/trigger/broadcast', body: { name: 'welcome', payload: { firstName: 'everyone' } } },
    ])
  })

  it('keeps checking payloads on a client derived with withOptions', async () => {
    const { client, seen } = checkedClient()
    const derived = client.withOptions({ timeoutMs: 5_000 })
    const error = await rejectionOf(
      derived.events.trigger(unchecked({ name: 'welcome', to: 'u1', payload: { firstName: null } })),
    )
    expect(issuePaths(error)).toEqual([['payload', 'firstName']])
    expect(seen).toHaveLength(0)
  })

  it('refuses, rather than crashes on, a payload the schema cannot check synchronously', async () => {
    const { client, seen } = checkedClient({ lookup: z.object({ id: z.string() }).refine(async () => true) })
    const error = await rejectionOf(client.events.trigger({ name: 'lookup', to: 'u1', payload: { id: 'a' } }))
    expect(issuePaths(error)).toEqual([['payload']])
    expect(seen).toHaveLength(0)
  })

  it('refuses a workflows option that is not a map of zod schemas when the client is built', () => {
    const build = (workflows: unknown) => () =>
      new NotificationClient({ apiKey: 'k', baseUrl: BASE_URL, workflows: unchecked(workflows) })
    expect(build({ welcome: { firstName: 'string' } })).toThrow(/workflows\["welcome"\] must be a zod schema/)
    expect(build([z.object({})])).toThrow(NotifyKitError)
    expect(build(null)).toThrow(NotifyKitError)
    expect(build({ welcome: undefined })).not.toThrow()
  })

  it('checks the schemas given at construction, not a map changed afterwards', async () => {
    const map: Record<string, z.ZodType> = { welcome: z.object({ firstName: z.string() }) }
    const { client, seen } = checkedClient(map)
    map.welcome = z.object({})
    const error = await rejectionOf(client.events.trigger({ name: 'welcome', to: 'u1', payload: {} }))
    expect(issuePaths(error)).toEqual([['payload', 'firstName']])
    expect(seen).toHaveLength(0)
  })

  it('does not look up names inherited from Object.prototype', async () => {
    const { client, seen } = checkedClient()
    await client.events.trigger(unchecked({ name: 'constructor', to: 'u1', payload: {} }))
    expect(seen).toHaveLength(1)
  })
})
