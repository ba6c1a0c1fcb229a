import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import * as z from 'zod'
import * as zm from 'zod/mini'
import {
  type NotificationClient,
  type NotificationClientOptions,
  RecipientsSchema,
  RequestValidationError,
  type TriggerEventRequest,
  TriggerEventRequestSchema,
  TriggerResultSchema,
} from '../../src/index.js'
import { answeringClient, json, rejectionOf } from '../helpers/wire.js'

// The SDK's schemas are zod/mini schemas: they must work as a user reaches for them, alone and
// inside the user's own schemas, classic or mini, and the SDK's messages must not depend on which
// zod the application loaded or how it configured it.

const trigger = { name: 'welcome', to: 'user-1', payload: { firstName: 'Ada' } }

function sendingClient(options: NotificationClientOptions = {}) {
  return answeringClient(() => json({ data: { acknowledged: true, status: 'processed' } }, 201), options)
}

async function refusal(
  call: (client: NotificationClient) => PromiseLike<unknown>,
  options: NotificationClientOptions = {},
) {
  const { client, seen } = sendingClient(options)
  const error = await rejectionOf(call(client))
  expect(error).toBeInstanceOf(RequestValidationError)
  expect(seen).toHaveLength(0)
  return error as RequestValidationError
}

describe('public schemas', () => {
  it('parse, safeParse and z.infer work on them directly', () => {
    expect(TriggerEventRequestSchema.parse(trigger)).toEqual(trigger)
    expect(TriggerEventRequestSchema.safeParse({ ...trigger, to: [] }).success).toBe(false)
    expect(TriggerResultSchema.parse({ acknowledged: true, status: 'new-status', extra: 1 })).toEqual({
      acknowledged: true,
      status: 'new-status',
      extra: 1,
    })
    expectTypeOf<zm.infer<typeof TriggerEventRequestSchema>>().toEqualTypeOf<TriggerEventRequest>()
    expectTypeOf<z.infer<typeof TriggerEventRequestSchema>>().toEqualTypeOf<TriggerEventRequest>()
  })

  it('work inside classic zod schemas, with classic messages', () => {
    const Job = z.object({ recipients: RecipientsSchema, event: z.optional(TriggerEventRequestSchema) })
    expect(Job.parse({ recipients: ['a', 'b'] })).toEqual({ recipients: ['a', 'b'] })
    const failed = Job.safeParse({ recipients: 42, event: { ...trigger, typo: 1 } })
    expect(failed.success).toBe(false)
    expect(failed.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [
        ['recipients'],
        "must be a subscriberId, { subscriberId, … } or { type: 'Topic', topicKey }, or a list of them",
      ],
      [['event'], 'Unrecognized key: "typo"'],
    ])
    type Job = z.infer<typeof Job>
    expectTypeOf<Job['event']>().toEqualTypeOf<TriggerEventRequest | undefined>()
  })

  it('extend with zod/mini (z.extend) or classic zod (its shape)', () => {
    const Mini = zm.extend(TriggerEventRequestSchema, { tag: zm.string() })
    expect(Mini.parse({ ...trigger, tag: 't' })).toEqual({ ...trigger, tag: 't' })
    expect(Mini.safeParse({ ...trigger, tag: 't', other: 1 }).success).toBe(false) // still strict
    const Classic = z.strictObject({ ...TriggerEventRequestSchema.shape, tag: z.string() })
    expect(Classic.parse({ ...trigger, tag: 't' })).toEqual({ ...trigger, tag: 't' })
    expect(Classic.safeParse({ ...trigger }).success).toBe(false)
    expectTypeOf<z.infer<typeof Classic>['to']>().toEqualTypeOf<TriggerEventRequest['to']>()
    expectTypeOf<z.infer<typeof Classic>['tag']>().toEqualTypeOf<string>()
  })
})

describe("the SDK's messages, whatever the application did to zod's configuration", () => {
  const configured = { ...zm.config() }
  afterEach(() => {
    // Back to what it was: each test below changes the global configuration as an application would.
    zm.config({ localeError: configured.localeError, customError: configured.customError })
  })

  it('are English with no locale loaded (an application using zod/mini alone)', async () => {
    zm.config({ localeError: undefined })
    const error = await refusal((client) => client.events.trigger({ ...trigger, to: [] }))
    expect(error.issues).toEqual([{ path: ['to'], message: 'Too small: expected array to have >=1 items' }])
    const typo = await refusal((client) =>
      client.events.trigger({ ...trigger, transactionID: 'tx' } as typeof trigger),
    )
    expect(typo.issues).toEqual([
      { path: [], message: 'Unrecognized key: "transactionID"; did you mean `transactionId`?' },
    ])
  })

  it('are English for a zod/mini workflow schema too', async () => {
    zm.config({ localeError: undefined })
    const error = await refusal(
      (client) => client.events.trigger({ name: 'welcome', to: 'u', payload: {} }),
      {
        workflows: { welcome: zm.object({ firstName: zm.string() }) },
      },
    )
    expect(error.issues).toEqual([
      {
        path: ['payload', 'firstName'],
        message: 'Invalid input: expected string, received undefined (workflow "welcome")',
      },
    ])
  })

  it("follow the application's own error map and locale, as classic zod's did", async () => {
    zm.config({ customError: (issue) => (issue.code === 'unrecognized_keys' ? 'no such field' : undefined) })
    const error = await refusal((client) =>
      client.events.trigger({ ...trigger, transactionID: 'tx' } as typeof trigger),
    )
    // The SDK's hint follows the application's own words.
    expect(error.issues).toEqual([{ path: [], message: 'no such field; did you mean `transactionId`?' }])
    zm.config({ customError: undefined, ...zm.locales.de() })
    const german = await refusal((client) =>
      client.events.trigger({ ...trigger, transactionID: 'tx' } as typeof trigger),
    )
    expect(german.issues[0]?.message).not.toBe('Unrecognized key: "transactionID"')
    expect(german.issues[0]?.message).toContain('transactionID')
  })
})
