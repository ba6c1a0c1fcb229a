import { describe, expect, it } from 'vitest'
import { changedBy, fidelityFake, IN_APP_AND_EMAIL } from './setup.js'

// What the server's request checks refuse and what they let through, for the fields whose rules
// changed since October 2024: the trigger's DTO (apps/api/src/app/events/dtos/trigger-event-request.dto.ts),
// the context check (libs/application-generic/src/decorators/is-valid-context-payload.decorator.ts),
// the schedule DTO (apps/api/src/app/shared/dtos/schedule.ts) and the preferences route's DTO and
// commands. Raw requests: the SDK refuses some of these before sending.

const DTO = 'apps/api/src/app/events/dtos/trigger-event-request.dto.ts'
const CONTEXT = 'libs/application-generic/src/decorators/is-valid-context-payload.decorator.ts'
const SCHEDULE = 'apps/api/src/app/shared/dtos/schedule.ts'
const PREFS = 'apps/api/src/app/subscribers-v2/dtos/patch-subscriber-preferences.dto.ts'
const STRUCTURE =
  'Invalid context payload structure. Expected object with context types as keys and string IDs or {id, data} objects as values'

const setup = () =>
  fidelityFake({
    workflows: [{ identifier: 'welcome', steps: IN_APP_AND_EMAIL }],
    subscribers: [{ subscriberId: 'alice' }],
  })

/** The DTO's messages of a refused request, or `undefined` when it was not refused by the DTO. */
const general = (body: Record<string, unknown>) =>
  (body.errors as { general?: { messages: string[] } } | undefined)?.general?.messages

describe(`request checks, as ${DTO} and the checks it uses`, () => {
  it(`context: refuses {}, more than 5 types, an id outside ^[a-zA-Z0-9_-]+$ or over 100 characters, data over 64 KB [${CONTEXT}] ${changedBy('triggerContext')}`, async () => {
    const { send } = setup()
    const trigger = (context: unknown) =>
      send('POST', '/v1/events/trigger', { name: 'welcome', to: 'alice', context })
    const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [k, 'x']))
    const refused: [unknown, string][] = [
      [{}, STRUCTURE],
      [six, 'Too many contexts: 6 provided, maximum allowed is 5'],
      [{ tenant: 'has space' }, STRUCTURE],
      [{ tenant: 'x'.repeat(101) }, STRUCTURE],
      [{ tenant: { invalid: 'value' } }, STRUCTURE],
      [{ tenant: { id: 'acme', data: 'text' } }, STRUCTURE],
      [[], STRUCTURE],
      [
        { tenant: { id: 'acme', data: { blob: 'x'.repeat(65 * 1024) } } },
        "Context 'tenant' Data is too large: 65KB exceeds 64KB limit",
      ],
    ]
    for (const [context, message] of refused) {
      const answer = await trigger(context)
      expect(answer.status, JSON.stringify(context).slice(0, 60)).toBe(422)
      expect(general(answer.body)).toEqual([message])
    }
    const five = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((k) => [k, 'x']))
    for (const context of [
      five,
      { tenant: 'x'.repeat(100) },
      { t: 'A-z_0-9' },
      { t: { id: 'a', data: {} } },
      null,
    ]) {
      expect((await trigger(context)).status).toBe(201)
    }
  })

  it(`context on a preferences update: the same rules [${PREFS}: @IsValidContextPayload({ maxCount: 5 })] ${changedBy('preferencesContext')}`, async () => {
    const { send } = setup()
    const answer = await send('PATCH', '/v2/subscribers/alice/preferences', { context: {} })
    expect(answer.status).toBe(422)
    expect(general(answer.body)).toEqual([STRUCTURE])
    expect(
      (await send('PATCH', '/v2/subscribers/alice/preferences', { context: { tenant: 'acme' } })).status,
    ).toBe(200)
  })

  it(`an actor object is checked as a subscriber (its email, locale, timezone, subscriberId); a string is an id [${DTO}: actor @ValidateNested SubscriberPayloadDto] ${changedBy('subscriberDto')}`, async () => {
    const { send } = setup()
    const trigger = (actor: unknown) =>
      send('POST', '/v1/events/trigger', { name: 'welcome', to: 'alice', actor })
    const bad = await trigger({
      subscriberId: 'bob',
      email: 'not-an-email',
      locale: 'english!',
      timezone: 'Mars/Base',
    })
    expect(bad.status).toBe(422)
    expect(general(bad.body)).toEqual([
      'actor.email must be an email',
      'actor.locale must be locale',
      'actor.timezone must be a valid IANA time-zone',
    ])
    expect(general((await trigger({ email: 'bob@example.com' })).body)).toEqual([
      'actor.subscriberId should not be null or undefined',
      'actor.SubscriberId is required',
      'actor.subscriberId must be a string',
    ])
    expect(general((await trigger(5)).body)).toEqual(['nested property actor must be either object or array'])
    expect(general((await trigger({ subscriberId: 'bob', channels: 'x' })).body)).toEqual([
      'actor.channels must be an array',
    ])
    const good = {
      subscriberId: 'bob',
      email: 'bob@example.com',
      locale: 'en-US',
      timezone: 'Europe/Paris',
      phone: null,
    }
    expect((await trigger(good)).status).toBe(201)
    expect((await trigger('bob')).status).toBe(201)
  })

  it(`to: any defined value passes the API (more than 100 recipients, an empty list); only a missing one is refused [${DTO}: to @IsDefined only]`, async () => {
    const { fake, send } = setup()
    const to = Array.from({ length: 120 }, (_, i) => `r${i}`)
    expect((await send('POST', '/v1/events/trigger', { name: 'welcome', to })).body.data).toMatchObject({
      status: 'processed',
    })
    expect(fake.notifications).toHaveLength(120)
    expect((await send('POST', '/v1/events/trigger', { name: 'welcome', to: [] })).body.data).toMatchObject({
      status: 'processed',
    })
    expect(fake.notifications).toHaveLength(120)
    const missing = await send('POST', '/v1/events/trigger', { name: 'welcome', to: null })
    expect(general(missing.body)).toEqual(['to should not be null or undefined'])
  })

  it(`name: an empty string passes the checks and names no workflow (422 workflow_not_found) [${DTO}: name @IsString @IsDefined]`, async () => {
    const { send } = setup()
    const answer = await send('POST', '/v1/events/trigger', { name: '', to: 'alice' })
    expect(answer.status).toBe(422)
    expect(answer.body).toMatchObject({ message: 'workflow_not_found', error: 'Unprocessable Entity' })
  })

  it(`tenant: an object's identifier and name must be strings; a number is no tenant object [${DTO}: tenant @ValidateNested TenantPayloadDto]`, async () => {
    const { send } = setup()
    const object = await send('POST', '/v1/events/trigger', {
      name: 'welcome',
      to: 'alice',
      tenant: { identifier: 5 },
    })
    expect(general(object.body)).toEqual(['tenant.identifier must be a string'])
    const number = await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'alice', tenant: 5 })
    expect(general(number.body)).toEqual(['nested property tenant must be either object or array'])
  })
})

describe(`the weekly schedule, as ${SCHEDULE}`, () => {
  const update = (schedule: unknown, extra: Record<string, unknown> = {}) => {
    const { fake, send } = setup()
    return { fake, answer: send('PATCH', '/v2/subscribers/alice/preferences', { schedule, ...extra }) }
  }
  const day = (hours: { start: string; end: string }[]) => ({ isEnabled: true, hours })

  it(`takes the server's 12-hour times, with or without a leading zero or the space, any case [${SCHEDULE}: @IsTime12HourFormat] ${changedBy('schedule')}`, async () => {
    for (const [start, end] of [
      ['9:00 AM', '5:00 PM'],
      ['09:00 AM', '05:30 PM'],
      ['9:00am', '12:59pm'],
    ] as const) {
      const { fake, answer } = update({ isEnabled: true, weeklySchedule: { monday: day([{ start, end }]) } })
      expect((await answer).status, `${start}-${end}`).toBe(200)
      expect(fake.preferences('alice')?.global.schedule?.weeklySchedule?.monday?.hours).toEqual([
        { start, end },
      ])
    }
  })

  it(`refuses other times, naming each one [${SCHEDULE}: @IsTime12HourFormat] ${changedBy('schedule')}`, async () => {
    const { answer } = update({
      isEnabled: true,
      weeklySchedule: {
        monday: day([{ start: '13:00 PM', end: '17:00' }]),
        friday: day([{ start: '0:30 AM', end: '9 AM' }]),
      },
    })
    const format = 'must be in 12-hour format (e.g., 09:00 AM or 9:00 AM)'
    expect(general((await answer).body)).toEqual([
      `schedule.weeklySchedule.monday.hours.0.start ${format}`,
      `schedule.weeklySchedule.monday.hours.0.end ${format}`,
      `schedule.weeklySchedule.friday.hours.0.start ${format}`,
      `schedule.weeklySchedule.friday.hours.0.end ${format}`,
    ])
  })

  it(`when enabled, needs at least one day and only weekday names; when disabled, takes either [${SCHEDULE}: @WeeklyScheduleValidation] ${changedBy('schedule')}`, async () => {
    expect(general((await update({ isEnabled: true, weeklySchedule: {} }).answer).body)).toEqual([
      'schedule.weeklySchedule must contain at least one day configuration when isEnabled is true',
    ])
    expect(
      general(
        (await update({ isEnabled: true, weeklySchedule: { funday: { isEnabled: true } } }).answer).body,
      ),
    ).toEqual([
      'schedule.weeklySchedule contains invalid day names: funday. Valid days are: monday, tuesday, wednesday, thursday, friday, saturday, sunday',
    ])
    expect((await update({ isEnabled: false, weeklySchedule: {} }).answer).status).toBe(200)
    expect(
      (await update({ isEnabled: false, weeklySchedule: { funday: { isEnabled: true } } }).answer).status,
    ).toBe(200)
  })

  it(`needs isEnabled as a boolean on the schedule and on each day [${SCHEDULE}: @IsBoolean] ${changedBy('schedule')}`, async () => {
    expect(general((await update({ weeklySchedule: { monday: { hours: [] } } }).answer).body)).toEqual([
      'schedule.isEnabled must be a boolean value',
      'schedule.weeklySchedule.monday.isEnabled must be a boolean value',
    ])
    expect(general((await update('always').answer).body)).toEqual([
      'nested property schedule must be either object or array',
    ])
  })

  it(`a schedule sent with workflowId is answered 200 and stored nowhere: schedules are global [apps/api/src/app/inbox/usecases/update-preferences/update-preferences.usecase.ts: storePreferences passes schedule only to the global upsert] ${changedBy('schedule')}`, async () => {
    const schedule = {
      isEnabled: true,
      weeklySchedule: { monday: day([{ start: '9:00 AM', end: '5:00 PM' }]) },
    }
    const { fake, answer } = update(schedule, { workflowId: 'welcome' })
    const result = await answer
    expect(result.status).toBe(200)
    // The global schedule is absent until one is stored.
    expect((result.body.data as { global: { schedule?: unknown } }).global.schedule).toBeUndefined()
    expect(fake.preferences('alice')?.global.schedule).toBeUndefined()
  })
})

describe(`the preferences route's commands, as ${PREFS}`, () => {
  it(`workflowId: a non-string is the command's 422; an empty one updates the global preferences [apps/api/src/app/subscribers-v2/usecases/update-subscriber-preferences/update-subscriber-preferences.command.ts] ${changedBy('preferencesV2')}`, async () => {
    const { fake, send } = setup()
    const number = await send('PATCH', '/v2/subscribers/alice/preferences', { workflowId: 5 })
    expect(number.status).toBe(422)
    expect(number.body).toMatchObject({
      message:
        'Validation failed for UpdateSubscriberPreferencesCommand: workflowIdOrInternalId: workflowIdOrInternalId must be a string',
      errors: { workflowIdOrInternalId: { value: 5 } },
    })
    const empty = await send('PATCH', '/v2/subscribers/alice/preferences', {
      workflowId: '',
      channels: { email: false },
    })
    expect(empty.status).toBe(200)
    expect(fake.preferences('alice')?.global.channels.email).toBe(false)
    // A switch sent as null passes the command (it is optional) and, in the fake, changes nothing.
    const cleared = await send('PATCH', '/v2/subscribers/alice/preferences', { channels: { email: null } })
    expect(cleared.status).toBe(200)
    expect(fake.preferences('alice')?.global.channels.email).toBe(false)
  })
})
