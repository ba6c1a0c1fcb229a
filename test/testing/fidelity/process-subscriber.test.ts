import { describe, expect, it } from 'vitest'
import { fidelityFake, IN_APP_AND_EMAIL } from './setup.js'

const SOURCE = 'apps/api/src/app/events/e2e/process-subscriber.e2e.ts'
const SEND_MESSAGE = 'apps/worker/src/app/workflow/usecases/send-message/send-message.usecase.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'regular', steps: IN_APP_AND_EMAIL },
      { identifier: 'critical', critical: true, steps: IN_APP_AND_EMAIL },
    ],
    subscribers: [{ subscriberId: 'sub-1', firstName: 'Old', email: 'old@email.novu' }],
  })

const statuses = (notification: { jobs: { status: string }[] } | undefined) =>
  notification?.jobs.map((j) => j.status)

describe(`fidelity: ${SOURCE}`, () => {
  it(`updates an existing subscriber with the fields a trigger gives [${SOURCE}: "should update a subscriber based on event"]`, async () => {
    const { fake, client } = setup()
    const defined = {
      subscriberId: 'sub-1',
      firstName: 'New Test Name',
      lastName: 'New Last of name',
      email: 'newtest@email.novu',
      locale: 'en',
    }
    await client.events.trigger({ name: 'regular', to: defined })
    expect(fake.subscriber('sub-1')).toMatchObject(defined)
  })

  it(`cancels the step of a channel the subscriber switched off for the workflow, and sends the others, saying which preferences did it [${SOURCE}: "should send only email trigger second time based on the subscriber preference"; ${SEND_MESSAGE}: STEP_FILTERED_BY_SUBSCRIBER_WORKFLOW_PREFERENCES since bda2d7ef32, #6581]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'regular', to: 'sub-1' })
    await client.subscribers.preferences.update('sub-1', {
      workflowId: 'regular',
      channels: { in_app: false },
    })
    await client.events.trigger({ name: 'regular', to: 'sub-1' })
    const [first, second] = fake.notifications
    expect(statuses(first)).toEqual(['completed', 'completed'])
    expect(statuses(second)).toEqual(['canceled', 'completed'])
    expect(second?.jobs[0]?.executionDetails.at(-1)).toMatchObject({
      detail: 'Step filtered by subscriber workflow preferences',
      status: 'Success',
    })
    expect(fake.messages('sub-1')).toHaveLength(1)
  })

  it(`sends every step of a critical workflow whatever the subscriber's preferences [${SOURCE}: "should ignore subscriber preference and send all triggers for system critical template"]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', { channels: { in_app: false, email: false } })
    await client.events.trigger({ name: 'critical', to: 'sub-1' })
    await client.events.trigger({ name: 'regular', to: 'sub-1' })
    expect(fake.notifications.map(statuses)).toEqual([
      ['completed', 'completed'],
      ['canceled', 'canceled'],
    ])
  })
})
