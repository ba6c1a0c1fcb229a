import { describe, expect, it } from 'vitest'
import { UnprocessableEntityError } from '../../src/index.js'
import { answeringClient, json, rejectionOf } from '../helpers/wire.js'

// What a call resolves with, at the edges of the `{ data }` envelope and of ApiPromise.

const TRIGGERED = { acknowledged: true, status: 'processed', transactionId: 'txn_1' }

describe('the { data } envelope', () => {
  it('is unwrapped only when data is its one key: an object with data and more is returned whole', async () => {
    const whole = { data: true, page: 0, hasMore: false }
    const { client } = answeringClient(() => json(whole, 200))
    expect(await client.events.cancel('txn_1')).toEqual(whole)
  })

  it('{ data: null } is "not found" only where the operation says so: a cancel resolves null', async () => {
    const { client } = answeringClient(() => json({ data: null }, 200), { responseValidation: 'off' })
    expect(await client.events.cancel('txn_1')).toBeNull()
  })
})

describe('workflow_not_found', () => {
  it('names the workflow only when the call sent one: a cancel keeps the server’s words', async () => {
    const { client } = answeringClient(() => json({ statusCode: 422, message: 'workflow_not_found' }, 422), {
      maxRetries: 0,
    })
    const error = (await rejectionOf(client.events.cancel('txn_1'))) as UnprocessableEntityError
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect(error.message).toBe('422 workflow_not_found')
    expect(error.workflowName).toBeUndefined()
  })
})

describe('ApiPromise.then', () => {
  it('without a fulfilment handler passes the data through, as a Promise does', async () => {
    const { client } = answeringClient(() => json({ data: TRIGGERED }, 201))
    expect(await client.events.trigger({ name: 'w', to: 'u' }).then(null)).toEqual(TRIGGERED)
    expect(await client.events.trigger({ name: 'w', to: 'u' }).then(undefined, () => 'failed')).toEqual(
      TRIGGERED,
    )
  })
})
