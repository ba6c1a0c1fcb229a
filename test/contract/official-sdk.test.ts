import { Novu } from '@novu/api'
import { HTTPClient } from '@novu/api/lib/http.js'
import { describe, expect, it } from 'vitest'
import { API_KEY, seededFake } from '../helpers/fake.js'

// The service's own SDK (@novu/api) against the fake: it validates every answer with its own
// schemas, so an answer of the fake that the real server would not give (a missing field, a wrong
// type, an error body of another shape) fails here even where notifykit's lenient reading would
// take it.

function officialClientOn(fake = seededFake()) {
  const novu = new Novu({
    secretKey: API_KEY,
    serverURL: 'https://fake.test',
    httpClient: new HTTPClient({ fetcher: (input, init) => fake.fetch(input, init) }),
    retryConfig: { strategy: 'none' },
  })
  return { fake, novu }
}

describe('the official SDK against the fake', () => {
  it('triggers, reads the notification, and cancels a pending delay', async () => {
    const { fake, novu } = officialClientOn()
    const sent = await novu.trigger({ workflowId: 'welcome', to: 'alice', payload: { plan: 'pro' } })
    expect(sent.result).toMatchObject({ acknowledged: true, status: 'processed' })
    const id = fake.notifications[0]?._id ?? ''
    const read = await novu.notifications.retrieve(id)
    expect(read.result.jobs?.map((job) => job.type)).toEqual(['in_app', 'email'])

    const delayed = await novu.trigger({ workflowId: 'delayed', to: 'bob', transactionId: 'tx-delayed' })
    expect(delayed.result.transactionId).toBe('tx-delayed')
    expect((await novu.cancel('tx-delayed')).result).toBe(true)
    expect((await novu.cancel('tx-delayed')).result).toBe(false)
  })

  it('reads a bulk answer with one failing event, and a broadcast', async () => {
    const { novu } = officialClientOn()
    const bulk = await novu.triggerBulk({
      events: [
        { workflowId: 'welcome', to: 'alice', payload: {} },
        { workflowId: 'no-such-workflow', to: 'alice', payload: {} },
        // A bulk event without a payload fails alone: the server does not default it to {}.
        { workflowId: 'welcome', to: 'alice', transactionId: 'no-payload' },
      ],
    })
    expect(bulk.result.map((result) => result.status)).toEqual(['processed', 'error', 'error'])
    expect(bulk.result[2]).toMatchObject({
      transactionId: 'no-payload',
      error: [
        'Validation failed for ParseEventRequestMulticastCommand: payload: payload should not be null or undefined',
      ],
    })
    expect(bulk.result[1]?.error).toEqual(['workflow_not_found'])
    const broadcast = await novu.triggerBroadcast({ name: 'welcome', payload: {} })
    expect(broadcast.result).toMatchObject({ acknowledged: true, status: 'processed' })
  })

  it('a trigger naming an unknown tenant is acknowledged as no_tenant_found', async () => {
    const { fake, novu } = officialClientOn()
    const answer = await novu.trigger({ workflowId: 'welcome', to: 'alice', tenant: 'globex' })
    expect(answer.result).toMatchObject({ acknowledged: true, status: 'no_tenant_found' })
    expect(fake.notifications).toEqual([])
  })

  it('updates preferences and marks messages', async () => {
    const { novu } = officialClientOn()
    await novu.trigger({ workflowId: 'welcome', to: 'alice' })
    const preferences = await novu.subscribers.preferences.update({ channels: { email: false } }, 'alice')
    expect(preferences.result.global.channels).toMatchObject({ email: false })
    const marked = await novu.subscribers.messages.markAll({ markAs: 'read' }, 'alice')
    expect(marked.result).toBe(1)
  })

  it('reads back what a trigger sent: the notifications of its transactionId, page by page, then one with its jobs', async () => {
    const { novu } = officialClientOn()
    const sent = await novu.trigger({ workflowId: 'welcome', to: ['alice', 'bob'] })
    await novu.trigger({ workflowId: 'delayed', to: 'alice' })
    const transactionId = sent.result.transactionId ?? ''
    const listed = await novu.notifications.list({ transactionId })
    expect(listed.result).toMatchObject({ page: 0, pageSize: 10, hasMore: false })
    expect(listed.result.data.map((n) => n.subscriber?.subscriberId).sort()).toEqual(['alice', 'bob'])
    const first = await novu.notifications.list({ subscriberIds: ['alice'], limit: 1 })
    const second = await novu.notifications.list({ subscriberIds: ['alice'], limit: 1, page: 1 })
    expect([first.result.hasMore, second.result.hasMore]).toEqual([true, true])
    expect(second.result.data[0]?.transactionId).toBe(transactionId)
    expect(first.result.data[0]?.channels).toEqual(['sms'])
    const id = listed.result.data[0]?.id ?? ''
    const read = await novu.notifications.retrieve(id)
    expect(read.result.jobs?.map((job) => job.type)).toEqual(['in_app', 'email'])
  })

  it('reads preferences, by criticality, and a 404 for an unknown subscriber', async () => {
    const { novu } = officialClientOn()
    await novu.subscribers.preferences.update({ channels: { email: false } }, 'alice')
    const read = await novu.subscribers.preferences.list({ subscriberId: 'alice' })
    expect(read.result.global.channels).toMatchObject({ email: false })
    expect(read.result.workflows.map((w) => w.workflow.identifier)).not.toContain('security')
    const critical = await novu.subscribers.preferences.list({
      subscriberId: 'alice',
      criticality: 'critical',
    })
    expect(critical.result.workflows.map((w) => w.workflow.identifier)).toEqual(['security'])
    const error = await novu.subscribers.preferences.list({ subscriberId: 'nobody' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ statusCode: 404 })
  })

  it('an unknown workflow is an error the official SDK reads as the server’s 422', async () => {
    const { novu } = officialClientOn()
    const error = await novu.trigger({ workflowId: 'nope', to: 'alice' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ statusCode: 422 })
  })
})
