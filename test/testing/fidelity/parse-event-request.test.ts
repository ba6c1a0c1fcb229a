import { describe, expect, it } from 'vitest'
import { fidelityFake, IN_APP_AND_EMAIL, notSent } from './setup.js'

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

  it(`never creates a tenant from a trigger: an unknown one, string or object, is no_tenant_found and sends nothing [${USE_CASE}: "TENANT_MISSING" returned before dispatch]`, async () => {
    const { fake, client } = setup()
    const asObject = await notSent(
      client.events.trigger({
        name: 'welcome',
        to: 'u1',
        tenant: { identifier: 'globex', name: 'Globex', data: { tier: 'gold' } },
      }),
    )
    expect(asObject).toEqual({ acknowledged: true, status: 'no_tenant_found' })
    const asString = await notSent(client.events.trigger({ name: 'welcome', to: 'u1', tenant: 'globex' }))
    expect(asString).toEqual({ acknowledged: true, status: 'no_tenant_found' })
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
})
