import { HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import {
  BulkTriggerError,
  type NotificationClient,
  RequestValidationError,
  ResponseValidationError,
  type ValidationIssue,
} from '../../../src/index.js'
import { spyLogger } from '../../helpers/logs.js'
import { answeringClient, json, onlyRequest, rejectionOf, type WireClient } from '../../helpers/wire.js'

/** A call that must fail before the network: the RequestValidationError and the requests seen. */
async function refusedBeforeSending(
  call: (client: NotificationClient) => PromiseLike<unknown>,
): Promise<RequestValidationError> {
  const { client, seen } = answeringClient(() =>
    json({ data: { acknowledged: true, status: 'processed' } }, 201),
  )
  const error = await rejectionOf(call(client))
  expect(error).toBeInstanceOf(RequestValidationError)
  expect(seen).toHaveLength(0)
  const validation = error as RequestValidationError
  expect(validation.code).toBe('NOTIFYKIT_REQUEST_VALIDATION')
  expect(validation.attempts).toBe(0)
  expect(validation.issues.length).toBeGreaterThan(0)
  for (const issue of validation.issues) {
    expect(Array.isArray(issue.path)).toBe(true)
    expect(issue.message).toEqual(expect.any(String))
  }
  return validation
}

/**
 * A bulk call holding one valid event and invalid ones: each invalid event fails alone with its
 * RequestValidationError and is not sent; the valid one goes out. The invalid events' issues.
 */
async function refusedInBulk(
  call: (client: NotificationClient) => PromiseLike<unknown>,
): Promise<{ issues: ValidationIssue[] }> {
  const { client, seen } = answeringClient(() =>
    json({ data: [{ acknowledged: true, status: 'processed' }] }, 201),
  )
  const error = await rejectionOf(call(client))
  expect(error).toBeInstanceOf(BulkTriggerError)
  const { failures } = error as BulkTriggerError
  for (const failure of failures) expect(failure.error).toBeInstanceOf(RequestValidationError)
  expect(seen.map((request) => (request.body as { events: unknown[] }).events.length)).toEqual([1])
  return { issues: failures.flatMap((failure) => (failure.error as RequestValidationError).issues) }
}

/** Bypasses the static types the way plain JavaScript callers (and `as` casts) do. */
function unchecked<T = never>(value: unknown): T {
  return value as T
}

describe('strict requests: refused with issues, nothing sent', () => {
  it('an unknown key in a trigger (a typo) names the key', async () => {
    const error = await refusedBeforeSending((client) =>
      client.events.trigger(unchecked({ name: 'w', to: 'u', transactionID: 'tx-1' })),
    )
    expect(error.issues).toHaveLength(1)
    expect(error.issues[0]?.message).toContain('transactionID')
  })

  it('an unknown key deep in a preferences update has its full path', async () => {
    const error = await refusedBeforeSending((client) =>
      client.subscribers.preferences.update('u', unchecked({ channels: { email: true, fax: true } })),
    )
    expect(error.issues[0]?.path).toEqual(['channels'])
    expect(error.issues[0]?.message).toContain('fax')
  })

  it('wrong types list every problem with its path', async () => {
    const error = await refusedBeforeSending((client) =>
      client.subscribers.preferences.update(
        'u',
        unchecked({ channels: { email: 'yes' }, workflowId: 42, schedule: { isEnabled: 'on' } }),
      ),
    )
    expect(error.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([['channels', 'email'], ['workflowId'], ['schedule', 'isEnabled']]),
    )
    expect(error.issues).toHaveLength(3)
    expect(error.message).toContain('channels.email')
  })

  it('a missing required field (trigger without `to`, broadcast without payload)', async () => {
    const trigger = await refusedBeforeSending((client) => client.events.trigger(unchecked({ name: 'w' })))
    expect(trigger.issues.map((issue) => issue.path)).toEqual([['to']])
    const broadcast = await refusedBeforeSending((client) =>
      client.events.broadcast(unchecked({ name: 'w' })),
    )
    expect(broadcast.issues.map((issue) => issue.path)).toEqual([['payload']])
  })

  it.each(['done', 'READ', ''])('markAs %j is outside read, seen, unread, unseen', async (markAs) => {
    const error = await refusedBeforeSending((client) =>
      client.subscribers.messages.markAll('u', unchecked({ markAs })),
    )
    expect(error.issues.map((issue) => issue.path)).toEqual([['markAs']])
  })

  it.each(['09:00', '13:00 PM', '09:60 AM', '21:00', '00:30 AM'])(
    'schedule time %j is not a 12-hour time',
    async (start) => {
      const error = await refusedBeforeSending((client) =>
        client.subscribers.preferences.update('u', {
          schedule: {
            isEnabled: true,
            weeklySchedule: { monday: { isEnabled: true, hours: [{ start, end: '05:00 PM' }] } },
          },
        }),
      )
      expect(error.issues.map((issue) => issue.path)).toEqual([
        ['schedule', 'weeklySchedule', 'monday', 'hours', 0, 'start'],
      ])
    },
  )

  it('accepts well-formed schedule times such as 12:00 AM and 11:59 PM', async () => {
    const { client, seen } = answeringClient(() => json({ data: {} }))
    await client.subscribers.preferences.update('u', {
      schedule: {
        isEnabled: true,
        weeklySchedule: { friday: { isEnabled: true, hours: [{ start: '12:00 AM', end: '11:59 PM' }] } },
      },
    })
    expect(seen).toHaveLength(1)
  })

  it('a topic spelt `type: "topic"` names the field and the value it must have', async () => {
    const topic = unchecked<string>({ type: 'topic', topicKey: 'beta-users' })
    const one = await refusedBeforeSending((client) => client.events.trigger({ name: 'w', to: topic }))
    expect(one.issues).toEqual([{ path: ['to', 'type'], message: "must be 'Topic'" }])
    const inList = await refusedInBulk((client) =>
      client.events.triggerBulk([
        { name: 'w', to: 'u' },
        { name: 'w', to: ['u', topic] },
      ]),
    )
    expect(inList.issues.map((issue) => issue.path)).toEqual([[1, 'to', 1, 'type']])
  })

  it('a subscriber object with a misspelt key names the missing and the unknown key', async () => {
    const error = await refusedBeforeSending((client) =>
      client.events.trigger({ name: 'w', to: unchecked<string>({ subscriberID: 'user-1' }) }),
    )
    expect(error.issues).toEqual([
      { path: ['to', 'subscriberId'], message: expect.stringContaining('expected string') },
      { path: ['to'], message: 'Unrecognized key: "subscriberID"' },
    ])
  })

  it('a misspelt body key names the key probably meant, as a misspelt option does', async () => {
    const error = await refusedBeforeSending((client) =>
      client.events.trigger(unchecked({ name: 'welcome', to: 'u', payloadd: { firstName: 'Ada' } })),
    )
    expect(error.issues).toEqual([
      { path: [], message: 'Unrecognized key: "payloadd"; did you mean `payload`?' },
    ])
    expect(error.message).toBe(
      'Invalid events.trigger request: Unrecognized key: "payloadd"; did you mean `payload`?',
    )
  })

  it('in a bulk event and a broadcast too; several keys each get theirs, and a key like none gets none', async () => {
    const bulk = await refusedInBulk((client) =>
      client.events.triggerBulk([
        { name: 'w', to: 'u' },
        unchecked({ name: 'w', to: 'u', actr: 'x', zzz: 1 }),
      ]),
    )
    expect(bulk.issues).toEqual([
      { path: [1], message: 'Unrecognized keys: "actr", "zzz"; did you mean `actor` for "actr"?' },
    ])
    const broadcast = await refusedBeforeSending((client) =>
      client.events.broadcast(unchecked({ name: 'w', payload: {}, tenantt: 'acme' })),
    )
    expect(broadcast.issues[0]?.message).toBe('Unrecognized key: "tenantt"; did you mean `tenant`?')
    const unlike = await refusedBeforeSending((client) =>
      client.events.trigger(unchecked({ name: 'w', to: 'u', qqq: 1 })),
    )
    expect(unlike.issues[0]?.message).toBe('Unrecognized key: "qqq"')
  })

  it.each([
    ['a number', 42],
    ['null', null],
    ['a nested list', [['user-1']]],
  ])('`to` of no accepted shape (%s) lists the shapes accepted', async (_what, to) => {
    const error = await refusedBeforeSending((client) =>
      client.events.trigger({ name: 'w', to: unchecked<string>(to) }),
    )
    expect(error.issues).toHaveLength(1)
    expect(error.issues[0]?.message).toContain(
      "a subscriberId, { subscriberId, … } or { type: 'Topic', topicKey }",
    )
    expect(error.issues[0]?.message).not.toContain('Invalid input')
  })

  it('exactly 100 recipients are sent', async () => {
    const to = Array.from({ length: 100 }, (_, index) => `user-${index}`)
    const { client, seen } = answeringClient(() =>
      json({ data: { acknowledged: true, status: 'processed' } }, 201),
    )
    await client.events.trigger({ name: 'w', to })
    expect((onlyRequest(seen).body as { to: string[] }).to).toHaveLength(100)
  })

  it('a bad event in a bulk call is refused with its index, alone: the other is sent', async () => {
    const events = [
      { name: 'w', to: 'u1' },
      unchecked<{ name: string; to: string }>({ name: 'w', to: 'u2', payload: 'not an object' }),
    ]
    const error = await refusedInBulk((client) => client.events.triggerBulk(events))
    expect(error.issues.map((issue) => issue.path)).toEqual([[1, 'payload']])
  })

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a line feed', 'key\nx-injected: 1'],
    ['with a carriage return', 'key\r'],
    ['with a NUL', 'key\u0000'],
    ['empty', ''],
    ['non-ASCII', 'clé'],
  ])('an idempotency key %s', async (_what, idempotencyKey) => {
    const error = await refusedBeforeSending((client) =>
      client.events.trigger({ name: 'w', to: 'u' }, { idempotencyKey }),
    )
    expect(error.issues.map((issue) => issue.path)).toEqual([['idempotencyKey']])
  })

  it('an idempotency key of exactly 255 printable characters is sent as is', async () => {
    const { client, seen } = answeringClient(() =>
      json({ data: { acknowledged: true, status: 'processed' } }, 201),
    )
    const idempotencyKey = `${'k'.repeat(250)}:~ !#`
    await client.events.trigger({ name: 'w', to: 'u' }, { idempotencyKey })
    expect(seen[0]?.headers['idempotency-key']).toBe(idempotencyKey)
  })

  it('a per-request header value with CR/LF', async () => {
    const error = await refusedBeforeSending((client) =>
      client.events.cancel('tx', { headers: { 'x-trace': 'a\r\nx-evil: 1' } }),
    )
    expect(error.issues.map((issue) => issue.path)).toEqual([['headers', 'x-trace']])
  })
})

describe('unknown call options (plain JavaScript, or a cast): refused, naming the closest option', () => {
  it.each([
    ['timeOutMs', 'timeoutMs'],
    ['idempotency_key', 'idempotencyKey'],
    ['deadline', 'deadlineMs'],
    ['header', 'headers'],
  ])('`%s` → `%s`, for a call and a bulk call', async (typo, meant) => {
    const options = unchecked<{ timeoutMs?: number }>({ [typo]: 'order-42' })
    for (const call of [
      (client: NotificationClient) => client.events.trigger({ name: 'w', to: 'u' }, options),
      (client: NotificationClient) => client.events.triggerBulk([{ name: 'w', to: 'u' }], options),
      (client: NotificationClient) => client.notifications.get('n-1', options),
    ]) {
      const error = await refusedBeforeSending(call)
      expect(error.issues).toEqual([{ path: [typo], message: `unknown option; did you mean \`${meant}\`?` }])
      expect(error.message).toBe(
        `Invalid request options: ${typo}: unknown option; did you mean \`${meant}\`?`,
      )
    }
  })

  it('a bulk option is known to bulk calls only', async () => {
    const error = await refusedBeforeSending((client) =>
      client.events.trigger({ name: 'w', to: 'u' }, unchecked({ concurrency: 4 })),
    )
    expect(error.issues[0]?.message).toBe('unknown option')
    const bulk = await refusedBeforeSending((client) =>
      client.events.triggerBulk([{ name: 'w', to: 'u' }], unchecked({ concurency: 4 })),
    )
    expect(bulk.issues[0]?.message).toBe('unknown option; did you mean `concurrency`?')
  })

  it('every known option, undefined ones included, is accepted', async () => {
    const { client, seen } = answeringClient(() =>
      json({ data: [{ acknowledged: true, status: 'processed' }] }, 201),
    )
    await client.events.triggerBulk([{ name: 'w', to: 'u' }], {
      idempotencyKey: 'k-1',
      signal: new AbortController().signal,
      timeoutMs: 1_000,
      deadlineMs: 2_000,
      maxRetries: 0,
      headers: { 'x-trace': 't' },
      concurrency: 1,
      onProgress: () => {},
    })
    await client.events.cancel('tx', { timeoutMs: undefined, headers: undefined })
    expect(seen).toHaveLength(2)
  })
})

/** A notification that drifted: a required field missing and one with the wrong type. */
const driftedNotification = {
  _id: 'n-1',
  _organizationId: 'org-1',
  _subscriberId: 's-1',
  transactionId: 'tx-1',
  critical: 'yes',
  brandNew: [1, 2, 3],
}
const driftedBody = JSON.stringify({ data: driftedNotification })

function driftingClient(options: Parameters<typeof answeringClient>[1]): WireClient {
  return answeringClient(
    () => new Response(driftedBody, { headers: { 'content-type': 'application/json' } }),
    options,
  )
}

describe('response validation', () => {
  it('lenient (default) returns drifted data as received and warns once per operation', async () => {
    const logger = spyLogger()
    const { client } = driftingClient({ logger })
    await expect(client.notifications.get('n-1')).resolves.toStrictEqual(driftedNotification)
    await expect(client.notifications.get('n-1')).resolves.toStrictEqual(driftedNotification)
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.warn.mock.calls[0]?.[0]).toContain('notifications.get')
    expect(JSON.stringify(logger.warn.mock.calls[0])).toContain('_environmentId')
  })

  it('lenient accepts unknown enum values without a warning', async () => {
    const logger = spyLogger()
    const result = {
      acknowledged: true,
      status: 'queued_for_review',
      transactionId: 'tx-1',
    }
    const notification = {
      _id: 'n-1',
      _environmentId: 'e',
      _organizationId: 'o',
      _subscriberId: 's',
      transactionId: 'tx-1',
      channels: ['carrier_pigeon'],
      severity: 'catastrophic',
      jobs: [
        { type: 'ai_summary', status: 'teleported', executionDetails: [{ status: 'Maybe', source: 'Moon' }] },
      ],
    }
    const trigger = answeringClient(() => json({ data: result }, 201), { logger })
    const get = answeringClient(() => json({ data: notification }), { logger, responseValidation: 'strict' })
    await expect(trigger.client.events.trigger({ name: 'w', to: 'u' })).resolves.toStrictEqual(result)
    // Open enums hold in strict mode too: a new value is not drift.
    await expect(get.client.notifications.get('n-1')).resolves.toStrictEqual(notification)
    // No drift warning; the one line is about the trigger status, whose meaning this version does
    // not know (trigger-status.test.ts).
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringMatching(/status "queued_for_review"/),
      expect.anything(),
    )
  })

  it('strict throws ResponseValidationError with the raw body and the issues', async () => {
    const logger = spyLogger()
    const { client } = driftingClient({ logger, responseValidation: 'strict' })
    const error = (await rejectionOf(client.notifications.get('n-1'))) as ResponseValidationError
    expect(error).toBeInstanceOf(ResponseValidationError)
    expect(error.code).toBe('NOTIFYKIT_RESPONSE_VALIDATION')
    expect(error.status).toBe(200)
    expect(error.body).toBe(driftedBody)
    expect(error.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([['_environmentId'], ['critical']]),
    )
    expect(error.attempts).toBe(1)
  })

  it('off does no parsing: drifted data, even of another kind, is returned without a warning', async () => {
    const logger = spyLogger()
    const { client } = driftingClient({ logger, responseValidation: 'off' })
    await expect(client.notifications.get('n-1')).resolves.toStrictEqual(driftedNotification)
    const odd = answeringClient(() => json({ data: 'accepted' }, 201), { logger, responseValidation: 'off' })
    await expect(odd.client.events.trigger({ name: 'w', to: 'u' })).resolves.toBe('accepted')
    expect(logger.warn).not.toHaveBeenCalled()
  })

  it.each([
    ['acknowledged missing', { status: 'processed', transactionId: 'tx-1' }],
    ['status a number', { acknowledged: true, status: 7 }],
    ['error a string', { acknowledged: true, status: 'processed', error: 'workflow_not_found' }],
    ['nulls everywhere', { acknowledged: null, status: null, transactionId: null }],
  ])('a 2xx trigger whose result drifted (%s) never throws in lenient mode', async (_what, drifted) => {
    const logger = spyLogger()
    const { client, seen } = answeringClient(() => json({ data: drifted }, 201), { logger })
    await expect(client.events.trigger({ name: 'w', to: 'u' })).resolves.toStrictEqual(drifted)
    expect(seen).toHaveLength(1)
    expect(logger.warn).toHaveBeenCalledTimes(1)
  })

  it.each(['lenient', 'off'] as const)(
    'a non-JSON 2xx body is a ResponseValidationError with the text kept (%s)',
    async (responseValidation) => {
      const { client } = answeringClient(
        () => HttpResponse.html('<html>maintenance</html>', { status: 200 }),
        {
          responseValidation,
        },
      )
      const error = (await rejectionOf(client.notifications.get('n-1'))) as ResponseValidationError
      expect(error).toBeInstanceOf(ResponseValidationError)
      expect(error.status).toBe(200)
      expect(error.body).toBe('<html>maintenance</html>')
      expect(error.message).toContain('not JSON')
    },
  )
})
