import { describe, expect, it } from 'vitest'
import { NotFoundError } from '../../../src/index.js'
import { fidelityFake, IN_APP_AND_EMAIL } from './setup.js'

// GET /v2/subscribers/:subscriberId/preferences as the server answers it: the controller and its
// query DTO (apps/api/src/app/subscribers-v2/subscribers.controller.ts,
// dtos/get-subscriber-preferences-request.dto.ts), the use cases (subscribers-v2/usecases/
// get-subscriber-preferences, subscribers/usecases/get-subscriber-preference) and the e2e tests.

const E2E = 'apps/api/src/app/subscribers-v2/e2e/get-subscriber-preferences.e2e.ts'
const USE_CASE = 'subscribers/usecases/get-subscriber-preference/get-subscriber-preference.usecase.ts'
const DTO = 'subscribers-v2/dtos/get-subscriber-preferences-request.dto.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'welcome', steps: IN_APP_AND_EMAIL },
      { identifier: 'security', critical: true, steps: [{ type: 'email' }] },
      { identifier: 'retired', active: false, steps: [{ type: 'sms' }] },
    ],
    subscribers: [{ subscriberId: 'alice' }],
  })

const identifiers = (prefs: { workflows?: { workflow?: { identifier?: string } }[] }) =>
  prefs.workflows?.map((w) => w.workflow?.identifier)

describe(`fidelity: reading a subscriber's preferences [${E2E}]`, () => {
  it(`${E2E}: "should fetch subscriber preferences with default values"`, async () => {
    const { client } = setup()
    const { global, workflows } = await client.subscribers.preferences.get('alice')
    expect(global?.enabled).toBe(true)
    expect(workflows).toHaveLength(1)
  })

  it(`${E2E}: "should return 404 if subscriber does not exist"`, async () => {
    const { client, send } = setup()
    expect(await client.subscribers.preferences.get('nobody').catch((e: unknown) => e)).toBeInstanceOf(
      NotFoundError,
    )
    expect((await send('GET', '/v2/subscribers/nobody/preferences')).body.message).toBe(
      'Subscriber with id: nobody not found',
    )
  })

  it(`${E2E}: "should inherit channel preferences from global settings when no workflow override exists"`, async () => {
    const { client } = setup()
    await client.subscribers.preferences.update('alice', { channels: { email: false, in_app: true } })
    const { workflows } = await client.subscribers.preferences.get('alice')
    expect(workflows?.[0]?.channels).toEqual({ email: false, in_app: true })
  })

  it(`lists active workflows only, by criticality: nonCritical by default, critical, or all [${USE_CASE}]`, async () => {
    const { client } = setup()
    expect(identifiers(await client.subscribers.preferences.get('alice'))).toEqual(['welcome'])
    expect(
      identifiers(await client.subscribers.preferences.get('alice', { criticality: 'critical' })),
    ).toEqual(['security'])
    expect(identifiers(await client.subscribers.preferences.get('alice', { criticality: 'all' }))).toEqual([
      'welcome',
      'security',
    ])
  })

  it(`reads without writing: the preferences are what the last update left [${E2E}]`, async () => {
    const { client, fake } = setup()
    const updated = await client.subscribers.preferences.update('alice', {
      workflowId: 'welcome',
      channels: { email: false },
    })
    const requests = fake.requests.length
    expect(await client.subscribers.preferences.get('alice')).toEqual(updated)
    expect(fake.requests.length).toBe(requests + 1)
    expect(fake.requests.at(-1)?.headers['idempotency-key']).toBeUndefined()
  })

  it(`refuses an unknown criticality with the validation pipe's 422 [${DTO}]`, async () => {
    const { send } = setup()
    const answer = await send('GET', '/v2/subscribers/alice/preferences?criticality=high')
    expect(answer.status).toBe(422)
    expect(answer.body).toMatchObject({
      message: 'Validation Error',
      errors: {
        general: {
          messages: ['criticality must be one of the following values: critical, nonCritical, all'],
        },
      },
    })
  })
})
