import { http } from 'msw'
import { describe, expect, it } from 'vitest'
import { ResponseValidationError } from '../../../src/index.js'
import { spyLogger } from '../../helpers/logs.js'
import { answeringClient, json, mswClient, rejectionOf } from '../../helpers/wire.js'

// Lenient mode checks the full schema of a sample of responses (the first ones of each operation,
// then one in every 64), and the kind of value of every response. These tests hold it to what that
// design promises: drift is still reported, soon; nothing a caller gets back changes.

const notification = {
  _id: 'n-1',
  _environmentId: 'e-1',
  _organizationId: 'o-1',
  _subscriberId: 's-1',
  transactionId: 'tx-1',
}
/** `_environmentId` missing and `critical` of the wrong type: drift inside the right kind of value. */
const driftedNotification = {
  _id: 'n-1',
  _organizationId: 'o-1',
  _subscriberId: 's-1',
  transactionId: 'tx-1',
  critical: 'yes',
}
const triggerResult = { acknowledged: true, status: 'processed', transactionId: 'tx-1' }
const driftedTriggerResult = { status: 'processed', transactionId: 'tx-1' }

/** A client whose responses are `clean` up to `cleanResponses`, then `drifted`; each with a serial. */
function switchingClient(
  cleanResponses: number,
  clean: Record<string, unknown>,
  drifted: unknown,
  options: Parameters<typeof answeringClient>[1],
) {
  let served = 0
  const wire = answeringClient(() => {
    served++
    // A serial in every body, so that "returned as received" is checked call by call.
    const body =
      served <= cleanResponses
        ? { ...clean, serial: served }
        : Array.isArray(drifted)
          ? drifted
          : { ...(drifted as object), serial: served }
    return json({ data: body }, 200)
  }, options)
  const expected = (call: number) =>
    call <= cleanResponses
      ? { ...clean, serial: call }
      : Array.isArray(drifted)
        ? drifted
        : { ...(drifted as object), serial: call }
  return { ...wire, expected }
}

describe('lenient response validation, sampled', () => {
  it('drift in the very first response warns at once', async () => {
    const logger = spyLogger()
    const { client, expected } = switchingClient(0, notification, driftedNotification, { logger })
    await expect(client.notifications.get('n-1')).resolves.toStrictEqual(expected(1))
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.warn.mock.calls[0]?.[0]).toContain('notifications.get')
    expect(JSON.stringify(logger.warn.mock.calls[0])).toContain('_environmentId')
  })

  it.each([
    ['notifications.get', notification, driftedNotification],
    ['events.trigger', triggerResult, driftedTriggerResult],
  ] as const)(
    '%s: drift that starts after 100 clean responses warns within the next 64, once, and every result is returned as received',
    async (operationName, clean, drifted) => {
      const logger = spyLogger()
      const { client, expected } = switchingClient(100, clean, drifted, { logger })
      let warnedAtCall: number | undefined
      for (let call = 1; call <= 200; call++) {
        const result =
          operationName === 'events.trigger'
            ? await client.events.trigger({ name: 'w', to: 'u' })
            : await client.notifications.get('n-1')
        expect(result).toStrictEqual(expected(call))
        if (warnedAtCall === undefined && logger.warn.mock.calls.length > 0) warnedAtCall = call
      }
      expect(warnedAtCall).toBeGreaterThan(100)
      expect(warnedAtCall).toBeLessThanOrEqual(164)
      expect(logger.warn).toHaveBeenCalledTimes(1)
      expect(logger.warn.mock.calls[0]?.[0]).toContain(operationName)
    },
  )

  it('the sample is counted per operation: a first trigger is checked after many gets', async () => {
    const logger = spyLogger()
    const { client } = mswClient(
      [
        http.post('*/v1/events/trigger', () => json({ data: driftedTriggerResult }, 201)),
        http.get('*/v1/notifications/:id', () => json({ data: notification })),
      ],
      { logger },
    )
    for (let call = 0; call < 100; call++) await client.notifications.get('n-1')
    expect(logger.warn).not.toHaveBeenCalled()
    await expect(client.events.trigger({ name: 'w', to: 'u' })).resolves.toStrictEqual(driftedTriggerResult)
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.warn.mock.calls[0]?.[0]).toContain('events.trigger')
  })

  it('a GET answered with the wrong kind of value fails on every call, sampled or not', async () => {
    const logger = spyLogger()
    const { client } = switchingClient(100, notification, [notification], { logger })
    for (let call = 1; call <= 100; call++) await client.notifications.get('n-1')
    for (let call = 101; call <= 180; call++) {
      const error = await rejectionOf(client.notifications.get('n-1'))
      expect(error).toBeInstanceOf(ResponseValidationError)
      expect((error as ResponseValidationError).body).toBe(JSON.stringify({ data: [notification] }))
    }
  })

  it('a trigger answered with the wrong kind of value warns at once, even late, and is returned', async () => {
    const logger = spyLogger()
    const { client, expected } = switchingClient(100, triggerResult, ['accepted'], { logger })
    for (let call = 1; call <= 100; call++) await client.events.trigger({ name: 'w', to: 'u' })
    expect(logger.warn).not.toHaveBeenCalled()
    await expect(client.events.trigger({ name: 'w', to: 'u' })).resolves.toStrictEqual(expected(101))
    expect(logger.warn).toHaveBeenCalledTimes(1)
  })

  it('strict mode still throws on every drifted response', async () => {
    const { client, expected } = switchingClient(100, notification, driftedNotification, {
      responseValidation: 'strict',
    })
    for (let call = 1; call <= 100; call++) {
      await expect(client.notifications.get('n-1')).resolves.toStrictEqual(expected(call))
    }
    for (let call = 101; call <= 180; call++) {
      const error = await rejectionOf(client.notifications.get('n-1'))
      expect(error).toBeInstanceOf(ResponseValidationError)
      expect((error as ResponseValidationError).issues.map((issue) => issue.path)).toEqual(
        expect.arrayContaining([['_environmentId'], ['critical']]),
      )
    }
  })

  it('lenient returns exactly what off returns, call by call, clean or drifted', async () => {
    const lenient = switchingClient(30, notification, driftedNotification, { logger: spyLogger() })
    const off = switchingClient(30, notification, driftedNotification, { responseValidation: 'off' })
    for (let call = 1; call <= 150; call++) {
      const fromLenient = await lenient.client.notifications.get('n-1')
      const fromOff = await off.client.notifications.get('n-1')
      expect(fromLenient).toStrictEqual(fromOff)
      expect(fromLenient).toStrictEqual(lenient.expected(call))
    }
  })
})
