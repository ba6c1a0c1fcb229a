import { describe, expect, it } from 'vitest'
import { NotificationClient, NotifyKitError, TriggerNotSentError } from '../../../src/index.js'
import { createFakeService } from '../../../src/testing/index.js'
import { captureLogs } from '../../helpers/logs.js'
import { answeringClient, json, rejectionOf } from '../../helpers/wire.js'

// A 2xx trigger whose status says the server sent nothing rejects; one it sent, or one whose status
// this version does not know, resolves.

const EVENT = { name: 'welcome', to: 'user-1' }
const answer =
  (status: string, extra: Record<string, unknown> = {}) =>
  () =>
    json({ data: { acknowledged: true, status, ...extra } }, 201)

describe('a trigger the server answered without sending', () => {
  it.each([
    'trigger_not_active',
    'no_workflow_active_steps_defined',
    'no_workflow_steps_defined',
    'no_tenant_found',
    'invalid_recipients',
    'subscriber_id_missing',
    'error',
  ])('%s rejects with TriggerNotSentError carrying the answer, after one attempt', async (status) => {
    const { client, seen } = answeringClient(answer(status, { error: ['why'] }))
    const error = await rejectionOf(client.events.trigger(EVENT, { idempotencyKey: 'welcome-user-1' }))

    expect(error).toBeInstanceOf(TriggerNotSentError)
    expect(error).toBeInstanceOf(NotifyKitError)
    expect(error).toMatchObject({
      code: 'NOTIFYKIT_TRIGGER_NOT_SENT',
      status,
      result: { acknowledged: true, status, error: ['why'] },
      method: 'POST',
      path: '/v1/events/trigger',
      idempotencyKey: 'welcome-user-1',
      attempts: 1,
    })
    expect((error as Error).message).toBe(
      `Not sent: the server answered the trigger (to "user-1") with status "${status}": why`,
    )
    // Not retried: the same request would get the same answer.
    expect(seen).toHaveLength(1)
  })

  it('a broadcast too', async () => {
    const { client } = answeringClient(answer('trigger_not_active'))
    const error = await rejectionOf(client.events.broadcast({ name: 'maintenance', payload: {} }))
    expect(error).toBeInstanceOf(TriggerNotSentError)
    expect((error as Error).message).toBe(
      'Not sent: the server answered the broadcast with status "trigger_not_active"',
    )
  })

  it('from the fake: an inactive workflow', async () => {
    const fake = createFakeService({ apiKey: 'k', workflows: [{ identifier: 'welcome', active: false }] })
    const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch })
    const error = await rejectionOf(client.events.trigger(EVENT))
    expect(error).toMatchObject({
      status: 'trigger_not_active',
      result: { transactionId: expect.any(String) },
    })
    expect(fake.notifications).toHaveLength(0)
  })
})

describe('a trigger the server sent', () => {
  it('processed resolves with the result', async () => {
    const { client } = answeringClient(answer('processed', { transactionId: 'tx-1' }))
    await expect(client.events.trigger(EVENT)).resolves.toStrictEqual({
      acknowledged: true,
      status: 'processed',
      transactionId: 'tx-1',
    })
  })

  it('a status this version does not know resolves as sent, with one warning per status', async () => {
    const log = captureLogs()
    let status = 'queued_for_later'
    const { client } = answeringClient(() => answer(status)(), { logger: log.logger, logLevel: 'warn' })
    await expect(client.events.trigger(EVENT)).resolves.toMatchObject({ status: 'queued_for_later' })
    await expect(client.events.trigger(EVENT)).resolves.toMatchObject({ status: 'queued_for_later' })
    status = 'another_new_one'
    await client.events.trigger(EVENT)
    const warnings = log.lines.filter((line) => line.level === 'warn').map((line) => line.message)
    expect(warnings).toEqual([
      expect.stringMatching(
        /events\.trigger: the server answered status "queued_for_later".*resolves as sent/,
      ),
      expect.stringMatching(/"another_new_one"/),
    ])
  })

  it('an answer without a status (drift) resolves as received, with the drift warning alone', async () => {
    const log = captureLogs()
    const { client } = answeringClient(() => json({ data: { acknowledged: true } }, 201), {
      logger: log.logger,
      logLevel: 'warn',
    })
    await expect(client.events.trigger(EVENT)).resolves.toStrictEqual({ acknowledged: true })
    const warnings = log.lines.filter((line) => line.level === 'warn').map((line) => line.message)
    expect(warnings).toEqual([expect.stringMatching(/differs from the documented shape/)])
  })
})
