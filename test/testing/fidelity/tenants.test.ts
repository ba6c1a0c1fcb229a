import { describe, expect, it } from 'vitest'
import { fidelityFake } from './setup.js'

// A trigger's tenant is looked up by identifier before the trigger is queued; the server never
// creates one from a trigger.
const PARSE = 'apps/api/src/app/events/usecases/parse-event-request/parse-event-request.usecase.ts'
const TRIGGER_EVENT = 'libs/application-generic/src/usecases/trigger-event/trigger-event.usecase.ts'

const setup = () =>
  fidelityFake({
    workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }],
    tenants: [{ identifier: 'acme' }],
  })

const trigger = (tenant: unknown) => ({ name: 'welcome', to: 'sub-1', tenant })

describe(`fidelity: tenants without an identifier [${PARSE}: if (command.tenant), then findOne by identifier]`, () => {
  it(`takes an empty string as no tenant at all, and sends [${PARSE}; ${TRIGGER_EVENT}: mapTenant('') is null]`, async () => {
    const { fake, send } = setup()
    const answer = await send('POST', '/v1/events/trigger', trigger(''))
    expect(answer).toMatchObject({ status: 201, body: { data: { acknowledged: true, status: 'processed' } } })
    expect(fake.notifications).toHaveLength(1)
  })

  it(`answers no_tenant_found for an object without an identifier, and sends nothing [${PARSE}: no tenant has an undefined identifier]`, async () => {
    const { fake, send } = setup()
    const answer = await send('POST', '/v1/events/trigger', trigger({ name: 'Acme' }))
    expect(answer).toMatchObject({
      status: 201,
      body: { data: { acknowledged: true, status: 'no_tenant_found' } },
    })
    expect(fake.notifications).toEqual([])
    expect(fake.subscriber('sub-1')).toBeUndefined()
  })

  it(`finds a seeded tenant by identifier, as a string or an object [${PARSE}]`, async () => {
    const { fake, send } = setup()
    await send('POST', '/v1/events/trigger', trigger('acme'))
    await send('POST', '/v1/events/trigger', trigger({ identifier: 'acme', name: 'Acme' }))
    const unknown = await send('POST', '/v1/events/trigger', trigger('globex'))
    expect(unknown.body).toMatchObject({ data: { status: 'no_tenant_found' } })
    expect(fake.notifications).toHaveLength(2)
  })
})
