import { HttpResponse, http } from 'msw'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import * as zm from 'zod/mini'
import { z as z3 } from 'zod3'
import { z as z3v4 } from 'zod3/v4'
import {
  BulkTriggerError,
  NotificationClient,
  NotifyKitError,
  RequestValidationError,
  type TriggerEventParams,
} from '../../../src/index.js'
import type { StandardSchemaV1 } from '../../../src/internal/validation/standard-schema.js'
import { createMswDispatcher } from '../../../src/testing/msw/index.js'
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
function checkedClient(schemas: Record<string, StandardSchemaV1> = workflows) {
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
function unchecked<T = never>(value: unknown): T {
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

  it('fails each bulk event whose payload does not match on its own, at its index, and sends the others', async () => {
    const { client, seen } = checkedClient()
    const events: TriggerEventParams<{ welcome: { firstName: string } }>[] = Array.from(
      { length: 250 },
      (_, i) => ({ name: 'welcome', to: `u${i}`, payload: { firstName: `n${i}` } }),
    )
    events[3] = unchecked({ name: 'welcome', to: 'u3', payload: { firstName: 3 } })
    events[230] = unchecked({ name: 'welcome', to: 'u230', payload: {} })

    const error = await rejectionOf(client.events.triggerBulk(events))

    expect(error).toBeInstanceOf(BulkTriggerError)
    const { failures, results } = error as BulkTriggerError
    expect(failures.map((failure) => failure.eventIndexes)).toEqual([[3], [230]])
    expect(failures.map((failure) => issuePaths(failure.error))).toEqual([
      [[3, 'payload', 'firstName']],
      [[230, 'payload', 'firstName']],
    ])
    expect(failures.map((failure) => failure.events)).toEqual([
      [{ index: 3, to: 'u3' }],
      [{ index: 230, to: 'u230' }],
    ])
    // The others went out, in their chunks, without the refused events.
    const sent = seen.map((request) => (request.body as { events: { to: string }[] }).events.map((e) => e.to))
    expect(sent.map((chunk) => chunk.length)).toEqual([99, 100, 49])
    expect(sent.flat()).not.toContain('u3')
    expect(sent.flat()).not.toContain('u230')
    expect(results.filter((result) => result !== undefined)).toHaveLength(248)
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
    expect(build({ welcome: { firstName: 'string' } })).toThrow(
      /workflows\["welcome"\] must be a Standard Schema v1 schema \(zod 3\.24\+, zod 4, valibot, arktype, …\)/,
    )
    // A schema of a library older than the standard (zod before 3.24): it has safeParse, not `~standard`.
    expect(build({ welcome: { safeParse: () => ({ success: true }) } })).toThrow(/workflows\["welcome"\]/)
    expect(build({ welcome: { '~standard': { version: 2, validate: () => ({}) } } })).toThrow(NotifyKitError)
    expect(build([z.object({})])).toThrow(NotifyKitError)
    expect(build(null)).toThrow(NotifyKitError)
    expect(build({ welcome: undefined })).not.toThrow()
  })

  it('checks the schemas given at construction, not a map changed afterwards', async () => {
    const map: Record<string, StandardSchemaV1> = { welcome: z.object({ firstName: z.string() }) }
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

// The same user schema written with each library: `welcome` needs a string `firstName`, `cart` a list
// of items with a string `sku`.
const libraries = {
  'zod 4': {
    welcome: z.object({ firstName: z.string() }),
    cart: z.object({ items: z.array(z.object({ sku: z.string() })) }),
  },
  'zod 4 mini': {
    welcome: zm.object({ firstName: zm.string() }),
    cart: zm.object({ items: zm.array(zm.object({ sku: zm.string() })) }),
  },
  'zod 3': {
    welcome: z3.object({ firstName: z3.string() }),
    cart: z3.object({ items: z3.array(z3.object({ sku: z3.string() })) }),
  },
  "zod 3.25's zod/v4": {
    welcome: z3v4.object({ firstName: z3v4.string() }),
    cart: z3v4.object({ items: z3v4.array(z3v4.object({ sku: z3v4.string() })) }),
  },
  valibot: {
    welcome: v.object({ firstName: v.string() }),
    cart: v.object({ items: v.array(v.object({ sku: v.string() })) }),
  },
}

describe.each(Object.entries(libraries))('workflow payload schemas written with %s', (_, schemas) => {
  it('sends a matching payload as given', async () => {
    const { client, seen } = checkedClient(schemas)
    await client.events.trigger({ name: 'cart', to: 'u1', payload: { items: [{ sku: 'a-1' }] } })
    expect(seen).toEqual([
      { path: '/v1/events/trigger', body: { name: 'cart', to: 'u1', payload: { items: [{ sku: 'a-1' }] } } },
    ])
  })

  it('refuses a payload that does not match: the issue paths and the workflow name, nothing on the wire', async () => {
    const { client, seen } = checkedClient(schemas)
    const error = await rejectionOf(
      client.events.trigger(
        unchecked({ name: 'cart', to: 'u1', payload: { items: [{ sku: 'a-1' }, { sku: 2 }] } }),
      ),
    )
    expect(issuePaths(error)).toEqual([['payload', 'items', 1, 'sku']])
    const issue = (error as RequestValidationError).issues[0]
    expect(issue?.message).toMatch(/\(workflow "cart"\)$/)
    expect((error as RequestValidationError).message).toMatch(
      /^Invalid events\.trigger request: payload\.items\.1\.sku: .+ \(workflow "cart"\)$/,
    )
    expect(seen).toHaveLength(0)
  })

  it('fails a bulk event with a bad payload alone, at its index, naming the workflow', async () => {
    const { client, seen } = checkedClient(schemas)
    const events = Array.from({ length: 150 }, (_, i) => ({
      name: 'welcome' as const,
      to: `u${i}`,
      payload: { firstName: `n${i}` },
    }))
    events[120] = unchecked({ name: 'welcome', to: 'u120', payload: { first_name: 'n120' } })
    const error = await rejectionOf(client.events.triggerBulk(events))
    const [failure, ...others] = (error as BulkTriggerError).failures
    expect(others).toEqual([])
    expect(issuePaths(failure?.error)).toEqual([[120, 'payload', 'firstName']])
    expect((failure?.error as RequestValidationError | undefined)?.issues[0]?.message).toContain(
      '(workflow "welcome")',
    )
    expect(seen.map((request) => (request.body as { events: unknown[] }).events.length)).toEqual([100, 49])
  })

  it('refuses a broadcast whose payload does not match', async () => {
    const { client, seen } = checkedClient(schemas)
    const error = await rejectionOf(client.events.broadcast(unchecked({ name: 'welcome', payload: {} })))
    expect(issuePaths(error)).toEqual([['payload', 'firstName']])
    expect(seen).toHaveLength(0)
  })
})

describe('Standard Schema edge cases', () => {
  /** A schema written by hand against the spec: a function, as arktype's are, carrying `~standard`. */
  function handWritten(validate: (value: unknown) => unknown): StandardSchemaV1 {
    return Object.assign(() => undefined, {
      '~standard': { version: 1, vendor: 'hand', validate },
    }) as unknown as StandardSchemaV1
  }

  it('accepts a schema that is a function (as arktype types are), and uses its issue paths', async () => {
    const schema = handWritten((value) =>
      (value as { ok?: unknown }).ok === true
        ? { value }
        : { issues: [{ message: 'must be ok', path: [{ key: 'ok' }, Symbol('hidden'), 'deeper'] }] },
    )
    const { client, seen } = checkedClient({ check: schema })
    await client.events.trigger({ name: 'check', to: 'u1', payload: { ok: true } })
    const error = await rejectionOf(
      client.events.trigger({ name: 'check', to: 'u1', payload: { ok: false } }),
    )
    expect(issuePaths(error)).toEqual([['payload', 'ok', 'deeper']])
    expect((error as RequestValidationError).issues[0]?.message).toBe('must be ok (workflow "check")')
    expect(seen).toHaveLength(1)
  })

  it('refuses, rather than awaits, a schema that answers with a Promise (valibot async), and sends nothing', async () => {
    const schema = v.pipeAsync(
      v.object({ id: v.string() }),
      v.checkAsync(async () => true),
    )
    const { client, seen } = checkedClient({ lookup: schema })
    const error = await rejectionOf(client.events.trigger({ name: 'lookup', to: 'u1', payload: { id: 'a' } }))
    expect(issuePaths(error)).toEqual([['payload']])
    expect((error as RequestValidationError).issues[0]?.message).toBe(
      'the schema is asynchronous; payload schemas must check synchronously (workflow "lookup")',
    )
    expect(seen).toHaveLength(0)
  })

  it('leaves no unhandled rejection behind when an asynchronous schema fails', async () => {
    const { client, seen } = checkedClient({
      lookup: handWritten(() => Promise.reject(new Error('lookup service down'))),
    })
    const error = await rejectionOf(client.events.trigger({ name: 'lookup', to: 'u1', payload: {} }))
    expect(error).toBeInstanceOf(RequestValidationError)
    // Vitest fails the run on an unhandled rejection: give one the time to surface.
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(seen).toHaveLength(0)
  })

  it('refuses, rather than crashes on, a schema that throws', async () => {
    const { client, seen } = checkedClient({
      broken: handWritten(() => {
        throw new Error('schema bug')
      }),
    })
    const error = await rejectionOf(client.events.trigger({ name: 'broken', to: 'u1', payload: {} }))
    expect(issuePaths(error)).toEqual([['payload']])
    expect((error as RequestValidationError).issues[0]?.message).toBe(
      'the schema could not check it: schema bug (workflow "broken")',
    )
    expect(seen).toHaveLength(0)
  })

  it('sends what was passed, not what a valibot transform makes of it', async () => {
    const { client, seen } = checkedClient({
      reminder: v.object({
        at: v.pipe(
          v.string(),
          v.isoTimestamp(),
          v.transform((text) => new Date(text)),
        ),
      }),
    })
    await client.events.trigger({ name: 'reminder', to: 'u1', payload: { at: '2026-01-01T09:00:00.000Z' } })
    expect(seen[0]?.body).toEqual({ name: 'reminder', to: 'u1', payload: { at: '2026-01-01T09:00:00.000Z' } })
  })
})
