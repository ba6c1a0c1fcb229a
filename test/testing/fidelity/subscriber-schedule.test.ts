import { describe, expect, it } from 'vitest'
import type { FakeSchedule } from '../../../src/testing/index.js'
import { fidelityFake, MONDAY_NOON } from './setup.js'

// The schedule check sits in the worker, not in an e2e test of the API: the job of a step outside the
// subscriber's schedule ends canceled with its own execution detail; in-app, trigger, delay and
// digest steps and critical workflows are not held to it; the time is read in the subscriber's
// timezone, and a range that ends before it starts runs on past midnight.
const RUN_JOB = 'apps/worker/src/app/workflow/usecases/run-job/run-job.usecase.ts'
const VALIDATOR = 'schedule-validator.ts of @novu/application-generic (isWithinSchedule)'

const OUTSIDE = "The step was skipped as it fell outside the subscriber's schedule"

const weekdays = (start: string, end: string): FakeSchedule => ({
  isEnabled: true,
  weeklySchedule: {
    monday: { isEnabled: true, hours: [{ start, end }] },
    tuesday: { isEnabled: true, hours: [{ start, end }] },
  },
})

/** The server's e2e subscribers have an email and a phone, so every channel step can be sent. */
const SUB_1 = { subscriberId: 'sub-1', email: 'sub-1@example.com', phone: '+15550100' }

const setup = (subscriber: { subscriberId: string; timezone?: string } = SUB_1) =>
  fidelityFake({
    workflows: [
      {
        identifier: 'all-channels',
        steps: [{ type: 'in_app' }, { type: 'email' }, { type: 'sms' }, { type: 'push' }, { type: 'chat' }],
      },
      { identifier: 'critical', critical: true, steps: [{ type: 'email' }] },
      { identifier: 'later', steps: [{ type: 'delay', amount: 1, unit: 'hours' }, { type: 'email' }] },
    ],
    subscribers: [subscriber],
  })

const statuses = (notification: { jobs: { type: string; status: string }[] } | undefined) =>
  notification?.jobs.map((job) => `${job.type}:${job.status}`)

describe(`fidelity: the subscriber's schedule [${RUN_JOB}]`, () => {
  it(`cancels every channel step outside the schedule but in-app, with the server's detail [${RUN_JOB}: shouldSkipScheduleCheck, "The step was skipped as it fell outside the subscriber's schedule"]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', { schedule: weekdays('09:00 AM', '11:00 AM') })
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    const notification = fake.notifications[0]
    expect(statuses(notification)).toEqual([
      'in_app:completed',
      'email:canceled',
      'sms:canceled',
      'push:canceled',
      'chat:canceled',
    ])
    expect(notification?.jobs[1]?.executionDetails.at(-1)).toMatchObject({
      detail: OUTSIDE,
      status: 'Success',
    })
    expect(fake.messages('sub-1')).toHaveLength(1)
  })

  it(`lets an HTTP request step run outside the schedule and holds custom and throttle steps to it, with the schedule and timezone as raw [${RUN_JOB}: shouldSkipScheduleCheck, HTTP_REQUEST added by 9675e87ace, #10463]`, async () => {
    const { fake, client } = fidelityFake({
      workflows: [
        {
          identifier: 'actions',
          steps: [{ type: 'http_request' }, { type: 'custom' }, { type: 'throttle' }, { type: 'trigger' }],
        },
      ],
      subscribers: [{ ...SUB_1, timezone: 'Europe/Paris' }],
    })
    const schedule = weekdays('09:00 AM', '11:00 AM')
    await client.subscribers.preferences.update('sub-1', { schedule })
    await client.events.trigger({ name: 'actions', to: 'sub-1' })
    const jobs = fake.notifications[0]?.jobs
    expect(statuses(fake.notifications[0])).toEqual([
      'http_request:completed',
      'custom:canceled',
      'throttle:canceled',
      'trigger:completed',
    ])
    expect(JSON.parse(jobs?.[1]?.executionDetails.at(-1)?.raw ?? '')).toEqual({
      schedule,
      timezone: 'Europe/Paris',
    })
  })

  it(`checks the schedule before the preferences [${RUN_JOB}: the schedule checked before sendMessage, which applies preferences]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', {
      channels: { email: false },
      schedule: weekdays('09:00 AM', '11:00 AM'),
    })
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    expect(fake.notifications[0]?.jobs[1]?.executionDetails.at(-1)?.detail).toBe(OUTSIDE)
  })

  it(`delivers inside the schedule, both ends of a range included [${VALIDATOR}: isTimeInRange]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', { schedule: weekdays('09:00 AM', '12:00 PM') })
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    await client.subscribers.preferences.update('sub-1', { schedule: weekdays('12:00 PM', '01:00 PM') })
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    for (const notification of fake.notifications) {
      expect(notification.jobs.every((job) => job.status === 'completed')).toBe(true)
    }
  })

  it(`delivers a critical workflow outside the schedule [${RUN_JOB}: shouldSkipScheduleCheck, notification.critical]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', { schedule: weekdays('09:00 AM', '11:00 AM') })
    await client.events.trigger({ name: 'critical', to: 'sub-1' })
    expect(statuses(fake.notifications[0])).toEqual(['email:completed'])
  })

  it(`ignores a schedule that is not enabled, and cancels on a day the schedule leaves out [${VALIDATOR}: "should return true when no schedule is configured"]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', {
      schedule: { ...weekdays('09:00 AM', '11:00 AM'), isEnabled: false },
    })
    await client.events.trigger({ name: 'critical', to: 'sub-1' })
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    expect(fake.notifications[1]?.jobs.every((job) => job.status === 'completed')).toBe(true)
    await client.subscribers.preferences.update('sub-1', {
      schedule: {
        isEnabled: true,
        weeklySchedule: { tuesday: { isEnabled: true, hours: [{ start: '12:00 AM', end: '11:59 PM' }] } },
      },
    })
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    expect(fake.notifications[2]?.jobs[1]?.status).toBe('canceled')
  })

  it(`reads the time in the subscriber's timezone [${VALIDATOR}: "should handle timezone conversion correctly"]`, async () => {
    // Monday 12:00 UTC is Monday 07:00 in New York.
    const newYork = setup({ ...SUB_1, timezone: 'America/New_York' })
    await newYork.client.subscribers.preferences.update('sub-1', {
      schedule: weekdays('09:00 AM', '05:00 PM'),
    })
    await newYork.client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    expect(newYork.fake.notifications[0]?.jobs[1]?.status).toBe('canceled')
    const utc = setup()
    await utc.client.subscribers.preferences.update('sub-1', { schedule: weekdays('09:00 AM', '05:00 PM') })
    await utc.client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    expect(utc.fake.notifications[0]?.jobs[1]?.status).toBe('completed')
  })

  it(`keeps a range that runs past midnight open into the next day [${VALIDATOR}: overnight schedules checked on the previous day]`, async () => {
    const { fake, client, wait } = setup()
    await client.subscribers.preferences.update('sub-1', {
      schedule: {
        isEnabled: true,
        weeklySchedule: { sunday: { isEnabled: true, hours: [{ start: '10:00 PM', end: '02:00 AM' }] } },
      },
    })
    // Monday 01:00 UTC falls in Sunday's 10 PM to 2 AM range; Monday 03:00 does not.
    wait(-11 * 3_600_000)
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    expect(fake.notifications[0]?.jobs[1]?.status).toBe('completed')
    wait(2 * 3_600_000)
    await client.events.trigger({ name: 'all-channels', to: 'sub-1' })
    expect(fake.notifications[1]?.jobs[1]?.status).toBe('canceled')
  })

  it(`checks a step after a delay at the time it runs [${RUN_JOB}: the schedule read when the job runs]`, async () => {
    const { fake, client, wait } = setup()
    await client.subscribers.preferences.update('sub-1', { schedule: weekdays('09:00 AM', '12:30 PM') })
    await client.events.trigger({ name: 'later', to: 'sub-1' })
    expect(statuses(fake.notifications[0])).toEqual(['delay:delayed', 'email:pending'])
    wait(3_600_000)
    expect(statuses(fake.notifications[0])).toEqual(['delay:completed', 'email:canceled'])
    expect(new Date(MONDAY_NOON + 3_600_000).toISOString()).toBe(fake.notifications[0]?.jobs[1]?.updatedAt)
  })

  it(`runs a step released by a delay at the delay's time, even when read later [${RUN_JOB}: the worker runs the job when it is due]`, async () => {
    const { fake, client, wait } = setup()
    await client.subscribers.preferences.update('sub-1', { schedule: weekdays('09:00 AM', '12:30 PM') })
    const quarter = { delay: { amount: 15, unit: 'minutes' } }
    await client.events.trigger({ name: 'later', to: 'sub-1', overrides: quarter })
    wait(3_600_000)
    expect(statuses(fake.notifications[0])).toEqual(['delay:completed', 'email:completed'])
  })
})
