import { describe, expect, it } from 'vitest'
import {
  type NotificationClient,
  RequestValidationError,
  type TriggerEventParams,
  type UpdateSubscriberPreferencesRequest,
} from '../../src/index.js'
import { answeringClient, json, rejectionOf } from '../helpers/wire.js'

// The local checks hold the 2026 server's rules, both ways: what it refuses is refused before
// sending, what it takes is sent. Server (NianJiuZst/novu at 2026-04-19):
// - context: packages/shared/src/types/context.ts and libs/application-generic/src/decorators/
//   is-valid-context-payload.decorator.ts, `@IsValidContextPayload({ maxCount: 5 })` on the trigger,
//   broadcast and preferences DTOs (3b45070654 for bulk and broadcast, c4b328934f for the ids).
// - actor: TriggerEventRequestDto validates an actor object as a SubscriberPayloadDto, whose
//   BaseSubscriberFieldsDto has `@IsEmail()` and `@IsTimeZone()` (f2d6bced1e).
// - schedule: apps/api/src/app/shared/dtos/schedule.ts, validators/is-time-12-hour-format and
//   weekly-schedule-disabled (ca3c6447cf); a schedule beside workflowId is stored nowhere:
//   update-preferences.usecase.ts's storePreferences passes it to the global upsert only.
// - recipients: `to` is `@IsDefined()` alone, no `@ArrayMaxSize`.

const processed = () => json({ data: { acknowledged: true, status: 'processed' } }, 201)

async function refused(call: (client: NotificationClient) => PromiseLike<unknown>) {
  const { client, seen } = answeringClient(processed)
  const error = await rejectionOf(call(client))
  expect(error).toBeInstanceOf(RequestValidationError)
  expect(seen).toHaveLength(0)
  return (error as RequestValidationError).issues
}

async function sent(call: (client: NotificationClient) => PromiseLike<unknown>) {
  const { client, seen } = answeringClient(processed)
  await call(client)
  expect(seen).toHaveLength(1)
  return seen[0]?.body
}

const trigger = (fields: object) => ({ name: 'w', to: 'u', ...fields }) as TriggerEventParams

describe('context', () => {
  const five = { a: 'x', b: 'x', c: 'x', d: 'x', e: 'x' }

  it('takes 1 to 5 context types; 6 are refused, and so is {}', async () => {
    await sent((client) => client.events.trigger(trigger({ context: five })))
    expect(
      await refused((client) => client.events.trigger(trigger({ context: { ...five, f: 'x' } }))),
    ).toEqual([{ path: ['context'], message: 'must hold at most 5 context types' }])
    expect(await refused((client) => client.events.trigger(trigger({ context: {} })))).toEqual([
      {
        path: ['context'],
        message: 'must hold at least one context type; leave `context` out instead of sending `{}`',
      },
    ])
  })

  it.each([
    ['a space', 'acme corp'],
    ['a dot', 'acme.io'],
    ['empty', ''],
    ['101 characters', 'a'.repeat(101)],
  ])('refuses an id with %s, as a string or as { id }', async (_what, id) => {
    const asString = await refused((client) => client.events.trigger(trigger({ context: { tenant: id } })))
    expect(asString.map((issue) => issue.path)).toEqual([['context', 'tenant']])
    const asObject = await refused((client) =>
      client.events.trigger(trigger({ context: { tenant: { id, data: {} } } })),
    )
    expect(asObject.map((issue) => issue.path)).toEqual([['context', 'tenant', 'id']])
  })

  it('takes ids of letters, digits, _ and -, up to 100', async () => {
    const id = `Acme_1-${'a'.repeat(93)}`
    expect(id).toHaveLength(100)
    await sent((client) => client.events.trigger(trigger({ context: { tenant: id, app: { id: 'jira' } } })))
  })

  it("refuses a context's data past 64 KB of JSON, and takes it at 64 KB", async () => {
    // {"k":"…"} is 8 characters around the value; é is 2 bytes of UTF-8.
    const data = (bytes: number) => ({ k: 'é'.repeat((bytes - 8) / 2) })
    await sent((client) =>
      client.subscribers.preferences.update('u', { context: { tenant: { id: 't', data: data(65_536) } } }),
    )
    const issues = await refused((client) =>
      client.events.broadcast({
        name: 'w',
        payload: {},
        context: { tenant: { id: 't', data: data(65_538) } },
      }),
    )
    expect(issues).toEqual([
      { path: ['context', 'tenant', 'data'], message: 'must be at most 64 KB as JSON' },
    ])
  })
})

describe('actor', () => {
  it.each(['ada', 'ada@', '@example.com', 'ada@example', 'ada @example.com'])(
    'refuses an actor whose email is %j, as the server checks an actor as a subscriber',
    async (email) => {
      const issues = await refused((client) =>
        client.events.trigger(trigger({ actor: { subscriberId: 'a', email } })),
      )
      expect(issues).toEqual([{ path: ['actor', 'email'], message: 'must be an email address' }])
    },
  )

  it('takes an actor with an email, or null, and a time zone', async () => {
    await sent((client) =>
      client.events.trigger(
        trigger({ actor: { subscriberId: 'a', email: 'ada+x@mail.example.co', timezone: 'Europe/Paris' } }),
      ),
    )
    await sent((client) => client.events.trigger(trigger({ actor: { subscriberId: 'a', email: null } })))
  })

  it('refuses an actor whose timezone is no IANA zone', async () => {
    const issues = await refused((client) =>
      client.events.trigger(trigger({ actor: { subscriberId: 'a', timezone: 'Paris' } })),
    )
    expect(issues.map((issue) => issue.path)).toEqual([['actor', 'timezone']])
  })

  it('leaves a recipient in `to` unchecked there, as the server does', async () => {
    await sent((client) =>
      client.events.trigger({ name: 'w', to: { subscriberId: 'r', email: 'not-an-email', timezone: 'x' } }),
    )
  })
})

describe('recipients', () => {
  it('takes more than 100 recipients, which the server fans out', async () => {
    const to = Array.from({ length: 250 }, (_, i) => `user-${i}`)
    const body = (await sent((client) => client.events.trigger({ name: 'w', to }))) as { to: string[] }
    expect(body.to).toHaveLength(250)
  })

  it('refuses an empty list, which the server would acknowledge for no one', async () => {
    const issues = await refused((client) => client.events.trigger({ name: 'w', to: [] }))
    expect(issues.map((issue) => issue.path)).toEqual([['to']])
  })
})

describe('schedule', () => {
  const update = (start: string, end = '05:00 PM') => ({
    schedule: {
      isEnabled: true,
      weeklySchedule: { monday: { isEnabled: true, hours: [{ start, end }] } },
    },
  })

  it.each(['9:00 AM', '09:00 AM', '09:00AM', '9:30 pm', '12:00 AM', '11:59 PM', '1:05 Am'])(
    'takes %j, a time the server takes',
    async (start) => {
      await sent((client) => client.subscribers.preferences.update('u', update(start)))
    },
  )

  it.each(['09:00', '13:00 PM', '0:30 AM', '09:60 AM', '21:00', '9:0 AM', ' 9:00 AM', '9:00  AM'])(
    'refuses %j, a time the server refuses',
    async (start) => {
      const issues = await refused((client) => client.subscribers.preferences.update('u', update(start)))
      expect(issues).toEqual([
        {
          path: ['schedule', 'weeklySchedule', 'monday', 'hours', 0, 'start'],
          message: 'Must be a 12-hour time like "09:30 AM" or "9:30 PM"',
        },
      ])
    },
  )

  it('refuses an enabled schedule whose weeklySchedule names no day', async () => {
    const issues = await refused((client) =>
      client.subscribers.preferences.update('u', { schedule: { isEnabled: true, weeklySchedule: {} } }),
    )
    expect(issues).toEqual([
      {
        path: ['schedule', 'weeklySchedule'],
        message: 'must hold at least one day when the schedule is enabled',
      },
    ])
  })

  it('takes an enabled schedule without weeklySchedule, and a disabled one with no day', async () => {
    await sent((client) => client.subscribers.preferences.update('u', { schedule: { isEnabled: true } }))
    await sent((client) =>
      client.subscribers.preferences.update('u', { schedule: { isEnabled: false, weeklySchedule: {} } }),
    )
  })

  it('refuses a schedule beside workflowId, which the server would acknowledge and store nowhere', async () => {
    const body = {
      workflowId: 'weekly-digest',
      schedule: { isEnabled: true },
    } as unknown as UpdateSubscriberPreferencesRequest
    const issues = await refused((client) => client.subscribers.preferences.update('u', body))
    expect(issues).toEqual([
      {
        path: ['schedule'],
        message:
          'a schedule is global: the server ignores it beside `workflowId`; send it in an update without `workflowId`',
      },
    ])
    // Each alone is sent.
    await sent((client) => client.subscribers.preferences.update('u', { workflowId: 'weekly-digest' }))
    await sent((client) => client.subscribers.preferences.update('u', { schedule: { isEnabled: false } }))
  })
})
