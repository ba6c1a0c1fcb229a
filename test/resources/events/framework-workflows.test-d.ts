// Type-level tests of triggers typed by @novu/framework workflow objects (a devDependency only):
// vitest's typecheck and `tsc --noEmit` run this file. Each `@ts-expect-error` is the rejected twin
// of an accepted call above it.
import { workflow } from '@novu/framework'
import { describe, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import {
  type FrameworkPayload,
  type FrameworkWorkflowPayloads,
  frameworkWorkflows,
  NotificationClient,
  type TriggerEventOf,
} from '../../../src/index.js'

const welcome = workflow('welcome', async () => {}, {
  payloadSchema: z.object({ firstName: z.string(), plan: z.enum(['free', 'pro']).default('free') }),
})
const weeklyDigest = workflow('weekly-digest', async () => {}, {
  payloadSchema: {
    type: 'object',
    properties: { week: { type: 'string' }, count: { type: 'number' } },
    required: ['week'],
    additionalProperties: false,
  } as const,
})
const plain = workflow('plain', async () => {})
const options = { apiKey: 'k', baseUrl: 'https://api.test' }

describe('the payload type of a framework workflow', () => {
  test('from a zod payloadSchema (a field with a default is optional) and from a JSON Schema', () => {
    expectTypeOf<FrameworkPayload<typeof welcome>>().toEqualTypeOf<{
      firstName: string
      plan?: 'free' | 'pro'
    }>()
    expectTypeOf<FrameworkPayload<typeof weeklyDigest>>().toEqualTypeOf<{ week: string; count?: number }>()
  })
})

describe('a client typed by framework workflows', () => {
  test('frameworkWorkflows types trigger, triggerBulk and triggerStream', async () => {
    const client = new NotificationClient({
      ...options,
      workflows: await frameworkWorkflows({ welcome, 'weekly-digest': weeklyDigest, plain }),
    })
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    client.events.trigger({ name: 'weekly-digest', to: 'u1', payload: { week: '2026-W47' } })
    client.events.trigger({ name: 'plain', to: 'u1', payload: { anything: 1 } })
    // @ts-expect-error a wrong payload field type
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 42 } })
    // @ts-expect-error a required field missing, from the JSON Schema
    client.events.trigger({ name: 'weekly-digest', to: 'u1', payload: { count: 3 } })
    // @ts-expect-error a value outside the enum
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada', plan: 'gold' } })
    // @ts-expect-error a name that is no workflow's id
    client.events.trigger({ name: 'welcom', to: 'u1', payload: { firstName: 'Ada' } })

    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      { name: 'weekly-digest', to: 'u2', payload: { week: '2026-W47' } },
    ])
    client.events.triggerBulk([
      { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
      // @ts-expect-error a wrong payload in a bulk event
      { name: 'weekly-digest', to: 'u2', payload: { week: 47 } },
    ])
    type Digest = TriggerEventOf<typeof client, 'weekly-digest'>
    const digests: Digest[] = [{ name: 'weekly-digest', to: 'u1', payload: { week: '2026-W47' } }]
    client.events.triggerStream(digests)
    const wrong = [{ name: 'weekly-digest' as const, to: 'u1', payload: { weeks: '2026-W47' } }]
    // @ts-expect-error a wrong payload in a streamed event
    client.events.triggerStream(wrong)
  })

  test('FrameworkWorkflowPayloads types a client with no run-time check', () => {
    const client = new NotificationClient<FrameworkWorkflowPayloads<{ welcome: typeof welcome }>>(options)
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } })
    // @ts-expect-error a misspelt payload field
    client.events.trigger({ name: 'welcome', to: 'u1', payload: { first_name: 'Ada' } })
  })

  test('frameworkWorkflows takes only workflow-shaped objects', () => {
    // @ts-expect-error a schema is not a workflow: the `workflows` option takes schemas directly
    frameworkWorkflows({ welcome: z.object({ firstName: z.string() }) })
  })
})
