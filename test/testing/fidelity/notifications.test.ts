import { describe, expect, it } from 'vitest'
import { NotFoundError } from '../../../src/index.js'
import { fidelityFake } from './setup.js'

// The execution details a job collects on its way, in the worker's use cases.
const ADD_JOB = 'apps/worker/src/app/workflow/usecases/add-job/add-job.usecase.ts'
const SEND_MESSAGE = 'apps/worker/src/app/workflow/usecases/send-message/send-message.usecase.ts'
const SEND_IN_APP = 'apps/worker/src/app/workflow/usecases/send-message/send-message-in-app.usecase.ts'
const MERGE_DIGEST = 'apps/worker/src/app/workflow/usecases/add-job/merge-or-create-digest.usecase.ts'
const GET_ACTIVITY = 'apps/api/src/app/notifications/usecases/get-activity/get-activity.usecase.ts'
const GET_ACTIVITY_E2E = 'apps/api/src/app/notifications/e2e/get-activity.e2e.ts'
const DIGEST = 'apps/worker/src/app/workflow/usecases/send-message/digest/digest.usecase.ts'

const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] },
      { identifier: 'digest', steps: [{ type: 'digest', amount: 10 }, { type: 'in_app' }] },
      { identifier: 'delay', steps: [{ type: 'delay', amount: 10 }, { type: 'in_app' }] },
    ],
  })

const details = (job: { executionDetails?: { detail?: string; status?: string }[] } | undefined) =>
  job?.executionDetails?.map((d) => [d.detail, d.status])

describe('fidelity: a notification as GET /v1/notifications/:id returns it', () => {
  it(`lists every step of a sent message in its job's execution details, without "Start sending message" [${ADD_JOB}: STEP_QUEUED; ${SEND_IN_APP}: MESSAGE_CREATED, MESSAGE_SENT; ${SEND_MESSAGE}: START_SENDING dropped by 8505391c60, #9156; ${GET_ACTIVITY_E2E}: "should fallback to old method when traces query fails"]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'welcome', to: { subscriberId: 'u1', email: 'u1@example.com' } })
    const notification = await client.notifications.get(fake.notifications[0]?._id ?? '')
    const sent = [
      ['Step queued', 'Pending'],
      ['Message created', 'Pending'],
      ['Message sent', 'Success'],
    ]
    expect(details(notification.jobs?.[0])).toEqual(sent)
    expect(details(notification.jobs?.[1])).toEqual(sent)
  })

  it(`records a waiting digest, a merged one and a delay as the worker does [${ADD_JOB}: STEP_DIGESTED, STEP_DELAYED; ${MERGE_DIGEST}: DIGEST_MERGED]`, async () => {
    const { fake, client } = setup()
    await client.events.trigger({ name: 'digest', to: 'u1' })
    await client.events.trigger({ name: 'digest', to: 'u1' })
    await client.events.trigger({ name: 'delay', to: 'u1' })
    const [main, merged, delayed] = fake.notifications
    expect(details(main?.jobs[0])).toEqual([
      ['Step queued', 'Pending'],
      ['Step digested', 'Pending'],
    ])
    expect(details(merged?.jobs[0])).toEqual([
      ['Step queued', 'Pending'],
      ['Digest was merged with other digest', 'Success'],
    ])
    expect(details(delayed?.jobs[0])).toEqual([
      ['Step queued', 'Pending'],
      ['Step delayed', 'Pending'],
    ])
    expect(details(main?.jobs[1])).toEqual([])
  })

  it(`ends a digest that ran with "Digest triggered events", its events as raw, and no "Start digesting" [${DIGEST}: DIGEST_TRIGGERED_EVENTS, raw JSON.stringify(events); START_DIGESTING dropped by 8505391c60, #9156]`, async () => {
    const { fake, client, wait } = setup()
    await client.events.trigger({ name: 'digest', to: 'u1', payload: { n: 1 } })
    await client.events.trigger({ name: 'digest', to: 'u1', payload: { n: 2 } })
    wait(10_000)
    const notification = await client.notifications.get(fake.notifications[0]?._id ?? '')
    const digest = notification.jobs?.[0]
    expect(details(digest)).toEqual([
      ['Step queued', 'Pending'],
      ['Step digested', 'Pending'],
      ['Digest triggered events', 'Success'],
    ])
    expect(JSON.parse(String(digest?.executionDetails?.at(-1)?.raw))).toEqual([{ n: 1 }, { n: 2 }])
  })

  it(`answers an unknown notification 404 "Notification not found" [${GET_ACTIVITY}: the current server's 404]`, async () => {
    const { client, send } = setup()
    const error = await client.notifications.get('000000000000000000000000').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NotFoundError)
    const answer = await send('GET', '/v1/notifications/000000000000000000000000')
    expect(answer).toMatchObject({
      status: 404,
      body: { statusCode: 404, message: 'Notification not found' },
    })
  })
})
