import { workflow } from '@novu/framework'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  type BulkChunkOutcome,
  frameworkWorkflows,
  NotificationClient,
  NotifyKitError,
  RequestValidationError,
} from '../../../src/index.js'
import { createFakeService } from '../../../src/testing/index.js'
import { rejectionOf } from '../../helpers/wire.js'

// Triggers typed and checked by @novu/framework workflow objects (a devDependency here; notifykit
// reads them by their shape). The framework's own discover() gives the payload schema.

const welcome = workflow(
  'welcome',
  async ({ step, payload }) => {
    await step.inApp('hello', async () => ({ body: `Hello ${payload.firstName}` }))
  },
  { payloadSchema: z.object({ firstName: z.string(), plan: z.enum(['free', 'pro']).default('free') }) },
)
const weeklyDigest = workflow('weekly-digest', async () => {}, {
  payloadSchema: {
    type: 'object',
    properties: { week: { type: 'string' } },
    required: ['week'],
    additionalProperties: false,
  } as const,
})

/** Bypasses the compile-time check, as JavaScript callers and `as` casts do. */
function unchecked<T = never>(value: unknown): T {
  return value as T
}

async function clientOnFake() {
  const fake = createFakeService({
    workflows: [
      { identifier: 'welcome', steps: [{ type: 'in_app' }] },
      { identifier: 'weekly-digest', steps: [{ type: 'email' }] },
    ],
  })
  const workflows = await frameworkWorkflows({ welcome, 'weekly-digest': weeklyDigest })
  const client = new NotificationClient({
    apiKey: 'k',
    baseUrl: 'https://api.test',
    fetch: fake.fetch,
    workflows,
  })
  return { fake, client, workflows }
}

describe('frameworkWorkflows', () => {
  it('keeps the zod payloadSchema of a workflow (a Standard Schema), and none for a JSON Schema', async () => {
    const { workflows } = await clientOnFake()
    expect(Object.keys(workflows)).toEqual(['welcome'])
    expect(workflows.welcome?.['~standard'].vendor).toBe('zod')
  })

  it('sends a right payload as given, under the workflow id', async () => {
    const { fake, client } = await clientOnFake()
    await client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    expect(fake.requests.map((r) => r.body)).toEqual([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
    ])
  })

  it('refuses a wrong payload before sending it: a trigger, a bulk trigger, a stream', async () => {
    const { fake, client } = await clientOnFake()
    const error = await rejectionOf(
      client.events.trigger(unchecked({ name: 'welcome', to: 'u1', payload: { firstName: 42 } })),
    )
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues).toEqual([
      expect.objectContaining({
        path: ['payload', 'firstName'],
        message: expect.stringContaining('(workflow "welcome")'),
      }),
    ])

    const bulk = await rejectionOf(
      client.events.triggerBulk([
        { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
        unchecked({ name: 'welcome', to: 'u2', payload: { firstName: 'Bob', plan: 'gold' } }),
      ]),
    )
    expect(bulk).toBeInstanceOf(NotifyKitError)
    expect(JSON.stringify(bulk)).not.toContain('"gold"')

    const outcomes: BulkChunkOutcome[] = []
    const streamed = await (async () => {
      for await (const outcome of client.events.triggerStream([
        unchecked({ name: 'welcome', to: 'u3', payload: {} }),
      ])) {
        outcomes.push(outcome)
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    )
    const streamError = streamed ?? outcomes.find((outcome) => outcome.error)?.error
    expect(streamError).toBeInstanceOf(NotifyKitError)

    // Nothing wrong reached the service.
    const payloads = fake.notifications.map((n) => n.payload)
    expect(payloads).not.toContainEqual(expect.objectContaining({ plan: 'gold' }))
    expect(fake.notifications.map((n) => n.subscriber.subscriberId)).not.toContain('u3')
  })

  it('does not check a JSON Schema payload at run time: it is sent as given', async () => {
    const { fake, client } = await clientOnFake()
    await client.events.trigger(unchecked({ name: 'weekly-digest', to: 'u1', payload: { week: 47 } }))
    expect(fake.requests.at(-1)?.body).toMatchObject({ payload: { week: 47 } })
  })

  it('refuses a key that is not the workflow id, naming both', async () => {
    const error = await rejectionOf(frameworkWorkflows({ weeklyDigest }))
    expect(error).toBeInstanceOf(NotifyKitError)
    expect((error as Error).message).toBe(
      'frameworkWorkflows: the key "weeklyDigest" holds the workflow "weekly-digest"; a trigger names a workflow by its id, so key it by its id',
    )
  })

  it('says which workflow could not be read when discover() fails', async () => {
    const broken = { id: 'broken', discover: () => Promise.reject(new Error('no zod-to-json-schema')) }
    const error = await rejectionOf(frameworkWorkflows({ broken }))
    expect((error as Error).message).toBe(
      'frameworkWorkflows: the definition of workflow "broken" could not be read: no zod-to-json-schema',
    )
    expect((error as Error).cause).toBeInstanceOf(Error)
  })
})
