import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import * as zm from 'zod/mini'

// The tables' schemas are built at their first use, not when the package is imported (a fresh
// serverless instance pays for what it imports): importing must build none of them, and what is
// exported must then behave as the schema itself in every way a user reaches for one.

const zodConfig = (globalThis as { __zod_globalConfig?: { postProcessor?: (schema: unknown) => void } })
  .__zod_globalConfig

/** The zod schemas constructed while `run` runs (zod calls its post-processor once for each). */
async function schemasBuiltBy(run: () => Promise<unknown> | unknown): Promise<number> {
  if (!zodConfig) throw new Error('zod is not loaded')
  let built = 0
  zodConfig.postProcessor = () => {
    built++
  }
  try {
    await run()
  } finally {
    zodConfig.postProcessor = undefined
  }
  return built
}

describe('deferred schemas', () => {
  it('importing the package and constructing a default client build no schema; a call builds the ones it checks with, once', async () => {
    vi.resetModules()
    let sdk: typeof import('../../src/index.js') | undefined
    const atImport = await schemasBuiltBy(async () => {
      sdk = await import('../../src/index.js')
    })
    const { NotificationClient } = sdk as typeof import('../../src/index.js')
    const options = { apiKey: 'nk_test_0123456789abcdef', baseUrl: 'http://127.0.0.1:9' }
    expect(await schemasBuiltBy(() => new NotificationClient(options))).toBe(0)
    // A call builds the schemas it checks with, at its first use: its request's and its result's.
    const answering = async () =>
      new Response(
        JSON.stringify({ data: { acknowledged: true, status: 'processed', transactionId: 't' } }),
        {
          status: 201,
        },
      )
    const configured = {
      ...options,
      timeoutMs: 5_000,
      maxRetries: 1,
      logLevel: 'ERROR' as 'error',
      fetch: answering,
    }
    const client = new NotificationClient(configured)
    const trigger = () =>
      client.events.trigger({ name: 'welcome', to: ['u-1', { subscriberId: 'u-2' }] }, { timeoutMs: 1_000 })
    expect(await schemasBuiltBy(trigger)).toBeGreaterThan(0)
    expect(await schemasBuiltBy(trigger)).toBe(0)
    expect(
      await schemasBuiltBy(() =>
        expect(() => new NotificationClient({ ...options, timeoutMs: -1 })).toThrow(
          /timeoutMs must be a positive number/,
        ),
      ),
    ).toBeGreaterThan(0)
    const refused = new NotificationClient(configured).events.trigger({ name: '', to: 'u-1' })
    await expect(refused).rejects.toMatchObject({
      issues: [{ path: ['name'], message: 'Must not be empty' }],
    })
    // Selected by name: asking a stand-in whether it is a schema builds it.
    const exported = Object.entries(sdk as object)
      .filter(([name]) => name.endsWith('Schema'))
      .map(([, schema]) => schema as { _zod: unknown })
    const everyTable = await schemasBuiltBy(() => exported.map((schema) => schema._zod))
    // About 250 schemas make the tables (the refused trigger's built some of them above); none is
    // built at import.
    expect(everyTable).toBeGreaterThan(150)
    expect(atImport).toBe(0)
  })

  it('the first use of a schema builds it, once', async () => {
    vi.resetModules()
    const { TriggerResultSchema, NotificationSchema } = await import('../../src/index.js')
    const atFirstUse = await schemasBuiltBy(() =>
      TriggerResultSchema.parse({ acknowledged: true, status: 'processed' }),
    )
    expect(atFirstUse).toBeGreaterThan(0)
    // Built once: a second use builds nothing, and another table is still unbuilt until used.
    expect(await schemasBuiltBy(() => TriggerResultSchema.safeParse({}))).toBe(0)
    expect(await schemasBuiltBy(() => NotificationSchema.safeParse({}))).toBeGreaterThan(0)
  })

  it('behaves as the schema it stands for: instanceof, keys, composition, JSON Schema', async () => {
    const { TriggerResultSchema, ChannelPreferenceSchema } = await import('../../src/index.js')
    expect(TriggerResultSchema instanceof zm.ZodMiniObject).toBe(true)
    expect(TriggerResultSchema instanceof zm.ZodMiniType).toBe(true)
    expect(Object.keys(TriggerResultSchema.shape)).toEqual([
      'acknowledged',
      'status',
      'error',
      'transactionId',
    ])
    expect('_zod' in TriggerResultSchema).toBe(true)
    expect(TriggerResultSchema._zod.def.type).toBe('object')
    const envelope = z.object({ data: TriggerResultSchema })
    expect(envelope.parse({ data: { acknowledged: true, status: 'processed', extra: 1 } })).toEqual({
      data: { acknowledged: true, status: 'processed', extra: 1 },
    })
    expect(envelope.safeParse({ data: { acknowledged: 'yes' } }).success).toBe(false)
    expect(z.toJSONSchema(ChannelPreferenceSchema)).toMatchObject({
      type: 'object',
      properties: { email: { type: 'boolean' } },
      additionalProperties: false,
    })
  })
})
