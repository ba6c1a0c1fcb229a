import { describe, expect, it } from 'vitest'
import type { FakeJob } from '../../../src/testing/index.js'
import { fidelityFake } from './setup.js'

// What the worker does with an email or SMS step it has no address for. It creates the message,
// then skips the step: the job ends canceled (a skipped step, since 4a123afc90, #8926, which gave
// it its delivery lifecycle "skipped / missing_email"), its last execution detail says why, and
// the other steps of the notification run on.
const SEND_EMAIL = 'apps/worker/src/app/workflow/usecases/send-message/send-message-email.usecase.ts'
const SEND_SMS = 'apps/worker/src/app/workflow/usecases/send-message/send-message-sms.usecase.ts'
const RUN_JOB = 'apps/worker/src/app/workflow/usecases/run-job/run-job.usecase.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }, { type: 'sms' }] },
      { identifier: 'later', steps: [{ type: 'delay', amount: 1, unit: 'minutes' }, { type: 'email' }] },
    ],
  })

const details = (job: FakeJob | undefined) => job?.executionDetails.map((d) => [d.detail, d.status])
const statuses = (jobs: FakeJob[] | undefined) => jobs?.map((job) => `${job.type}:${job.status}`)

describe(`fidelity: a step with no address to send to [${SEND_EMAIL}, ${SEND_SMS}]`, () => {
  it(`skips the email and SMS steps of a subscriber without email or phone, and still sends the in-app step [${SEND_EMAIL}: sendErrors, SUBSCRIBER_MISSING_EMAIL_ADDRESS; ${SEND_SMS}: SUBSCRIBER_MISSING_PHONE_NUMBER; ${RUN_JOB}: SKIPPED ends the job canceled]`, async () => {
    const { fake, client } = setup()
    const result = await client.events.trigger({ name: 'welcome', to: 'no-address' })
    expect(result.status).toBe('processed')
    const notification = fake.notifications[0]
    expect(statuses(notification?.jobs)).toEqual(['in_app:completed', 'email:canceled', 'sms:canceled'])
    expect(details(notification?.jobs[1])).toEqual([
      ['Step queued', 'Pending'],
      ['Message created', 'Pending'],
      ['Subscriber missing email address', 'Failed'],
    ])
    expect(details(notification?.jobs[2])).toEqual([
      ['Step queued', 'Pending'],
      ['Message created', 'Pending'],
      ['Subscriber missing phone number', 'Failed'],
    ])
    // The notification is recorded and its in-app message sent all the same.
    expect(fake.notifications).toHaveLength(1)
    expect(fake.messages('no-address')).toHaveLength(1)
  })

  it(`sends to the trigger's overrides.email.toRecipient and the payload's phone when the subscriber has neither [${SEND_EMAIL}: overrides.email.toRecipient || subscriber.email; ${SEND_SMS}: payload.phone || subscriber.phone]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'welcome',
      to: 'no-address',
      payload: { phone: '+15550100' },
      overrides: { email: { toRecipient: 'ops@example.com' } },
    })
    expect(statuses(fake.notifications[0]?.jobs)).toEqual([
      'in_app:completed',
      'email:completed',
      'sms:completed',
    ])
  })

  it(`sends to the addresses the subscriber has, each step on its own [${SEND_EMAIL}; ${SEND_SMS}]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({
      name: 'welcome',
      to: { subscriberId: 'mail-only', email: 'm@example.com' },
    })
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'phone-only', phone: '+15550100' } })
    expect(fake.notifications.map((n) => statuses(n.jobs))).toEqual([
      ['in_app:completed', 'email:completed', 'sms:canceled'],
      ['in_app:completed', 'email:canceled', 'sms:completed'],
    ])
    expect(details(fake.notifications[0]?.jobs[1])?.at(-1)).toEqual(['Message sent', 'Success'])
  })

  it(`reads the address when the step runs, after a delay [${SEND_EMAIL}: the subscriber of the compile context, fetched when the job runs]`, async () => {
    const { fake, client, wait } = setup()
    await client.events.trigger({ name: 'later', to: 'late' })
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'late', email: 'late@example.com' } })
    wait(60_000)
    expect(statuses(fake.notifications[0]?.jobs)).toEqual(['delay:completed', 'email:completed'])
  })
})
