import { describe, expect, it } from 'vitest'
import { changedBy, fidelityFake, IN_APP_AND_EMAIL, notSent } from './setup.js'

// The API's trigger use case: what it answers before handing the event to the worker.
const USE_CASE = 'apps/api/src/app/events/usecases/parse-event-request/parse-event-request.usecase.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'welcome', steps: IN_APP_AND_EMAIL },
      { identifier: 'inactive', active: false, steps: IN_APP_AND_EMAIL },
    ],
    tenants: [{ identifier: 'acme', name: 'Acme' }],
  })

describe(`fidelity: ${USE_CASE}`, () => {
  it(`looks a tenant up by identifier, given as a string or as an object [${USE_CASE}: tenantRepository.findOne by identifier]`, async () => {
    const { fake, client } = setup()
    expect(await client.events.trigger({ name: 'welcome', to: 'u1', tenant: 'acme' })).toMatchObject({
      status: 'processed',
    })
    expect(
      await client.events.trigger({ name: 'welcome', to: 'u1', tenant: { identifier: 'acme' } }),
    ).toMatchObject({ status: 'processed' })
    expect(fake.notifications).toHaveLength(2)
  })

  it(`never creates a tenant from a trigger: an unknown one, string or object, is no_tenant_found with its transactionId and sends nothing [${USE_CASE}: "TENANT_MISSING" returned before dispatch] ${changedBy('transactionIds')}`, async () => {
    const { fake, client } = setup()
    const asObject = await notSent(
      client.events.trigger({
        name: 'welcome',
        to: 'u1',
        tenant: { identifier: 'globex', name: 'Globex', data: { tier: 'gold' } },
      }),
    )
    const notFound = {
      acknowledged: true,
      status: 'no_tenant_found',
      transactionId: expect.stringMatching(/^txn_/),
    }
    expect(asObject).toEqual(notFound)
    const asString = await notSent(client.events.trigger({ name: 'welcome', to: 'u1', tenant: 'globex' }))
    expect(asString).toEqual(notFound)
    expect(fake.notifications).toEqual([])
    expect(fake.subscriber('u1')).toBeUndefined()
  })

  it(`checks the workflow before the tenant and the tenant before the workflow's state [${USE_CASE}: order of the checks]`, async () => {
    const { client } = setup()
    const unknownWorkflow = await client.events
      .trigger({ name: 'nope', to: 'u1', tenant: 'globex' })
      .catch((e) => e)
    expect(unknownWorkflow).toMatchObject({ status: 422, body: { message: 'workflow_not_found' } })
    const inactive = await notSent(client.events.trigger({ name: 'inactive', to: 'u1', tenant: 'globex' }))
    expect(inactive.status).toBe('no_tenant_found')
  })

  it(`keeps the tenant seed through reset, like other seeds [${USE_CASE}: tenants belong to the environment, not to a trigger]`, async () => {
    const { fake, client } = setup()
    fake.addTenant({ identifier: 'initech' })
    fake.reset()
    expect(await client.events.trigger({ name: 'welcome', to: 'u1', tenant: 'acme' })).toMatchObject({
      status: 'processed',
    })
    expect(await client.events.trigger({ name: 'welcome', to: 'u1', tenant: 'initech' })).toMatchObject({
      status: 'processed',
    })
  })

  it(`keeps attachments on the trigger's payload without their file content [${USE_CASE}: attachments' file uploaded, then removed from the payload]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'welcome',
      to: 'u1',
      payload: { attachments: [{ name: 'a.txt', mime: 'text/plain', file: 'aGVsbG8=' }] },
    })
    expect(fake.notifications[0]?.payload.attachments).toEqual([{ name: 'a.txt', mime: 'text/plain' }])
    expect(fake.messages('u1')[0]?.payload).not.toHaveProperty('attachments')
  })

  it(`looks a tenant object without an identifier up by none, so finds none (no_tenant_found); an empty tenant string is no tenant at all [${USE_CASE}: if (command.tenant) … identifier: command.tenant.identifier]`, async () => {
    const { fake, send } = setup()
    const withoutId = await send('POST', '/v1/events/trigger', {
      name: 'welcome',
      to: 'u1',
      tenant: { name: 'Acme' },
    })
    expect(withoutId.body.data).toMatchObject({ status: 'no_tenant_found' })
    const empty = await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'u1', tenant: '' })
    expect(empty.body.data).toMatchObject({ status: 'processed' })
    expect(fake.notifications).toHaveLength(1)
  })

  it(`checks the payload against the workflow's schema before the tenant [${USE_CASE}: validateAndApplyPayloadDefaults before tenantRepository.findOne] ${changedBy('payloadSchema')}`, async () => {
    const { send } = fidelityFake({
      workflows: [{ identifier: 'typed', steps: IN_APP_AND_EMAIL, payloadSchema: { required: ['id'] } }],
    })
    const answer = await send('POST', '/v1/events/trigger', { name: 'typed', to: 'u1', tenant: 'globex' })
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({ type: 'PAYLOAD_VALIDATION_ERROR' })
  })

  it(`generates a txn_ transactionId (the time in hex, then 12 characters of 0-9a-z), also for an empty one [${USE_CASE}: command.transactionId || generateTransactionId()] ${changedBy('transactionIds')}`, async () => {
    const { send } = setup()
    for (const body of [
      { name: 'welcome', to: 'u1' },
      { name: 'welcome', to: 'u1', transactionId: '' },
    ]) {
      const answer = await send('POST', '/v1/events/trigger', body)
      const { transactionId } = answer.body.data as { transactionId: string }
      expect(transactionId).toMatch(/^txn_[0-9a-f]{8}[0-9a-z]{12}$/)
      // The time part is the fake's clock in seconds; the rest is random over 0-9a-z.
      const tails = await Promise.all(
        Array.from({ length: 8 }, () => send('POST', '/v1/events/trigger', { name: 'welcome', to: 'u1' })),
      )
      const letters = tails
        .map((t) => (t.body.data as { transactionId: string }).transactionId.slice(12))
        .join('')
      expect(letters).toMatch(/[g-z]/)
      expect(Number.parseInt(transactionId.slice(4, 12), 16)).toBe(
        Math.floor(Date.UTC(2026, 0, 5, 12) / 1000),
      )
    }
  })

  it(`links a processed trigger to its request in the dashboard, and no other answer [${USE_CASE}: activityFeedLink in dispatchEventToWorkflowQueue] ${changedBy('activityFeedLink')} ${changedBy('requestIds')}`, async () => {
    const { send } = setup()
    const processed = await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'u1' })
    const link = (processed.body.data as { activityFeedLink: string }).activityFeedLink
    const url = new URL(link)
    expect(`${url.origin}${url.pathname}`).toMatch(
      /^https:\/\/dashboard\.novu\.co\/env\/[0-9a-f]{24}\/activity\/requests$/,
    )
    expect(url.searchParams.get('selectedLogId')).toMatch(/^req_[0-9a-f]{8}[0-9a-z]{12}$/)
    const inactive = await send('POST', '/v1/events/trigger', { name: 'inactive', to: 'u1' })
    const noTenant = await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'u1', tenant: 'globex' })
    expect(inactive.body.data).not.toHaveProperty('activityFeedLink')
    expect(noTenant.body.data).not.toHaveProperty('activityFeedLink')
    // The request id is in no header.
    for (const name of ['x-request-id', 'request-id', 'x-novu-request-id']) {
      expect(processed.headers.get(name)).toBeNull()
    }
  })

  it(`acknowledges a reused transactionId like any other (processed, with its link), and the worker ignores it; the API checks the workflow's state first [${USE_CASE}: no transactionId check before dispatch]`, async () => {
    const { fake, send } = setup()
    const first = await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'u1', transactionId: 'tx' })
    const again = await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'u2', transactionId: 'tx' })
    expect(again.status).toBe(201)
    expect(again.body.data).toEqual({ ...(first.body.data as object), activityFeedLink: expect.any(String) })
    expect(fake.notifications.map((n) => n.subscriber.subscriberId)).toEqual(['u1'])
    const inactive = await send('POST', '/v1/events/trigger', {
      name: 'inactive',
      to: 'u1',
      transactionId: 'tx',
    })
    expect(inactive.body.data).toEqual({
      acknowledged: true,
      status: 'trigger_not_active',
      transactionId: 'tx',
    })
  })
})
