import { describe, expect, it } from 'vitest'
import type { FakeJob } from '../../../src/testing/index.js'
import { fidelityFake } from './setup.js'
import { e2eSubscriber } from './subscribers.js'

// How the worker decides a channel step from the subscriber's two levels of preferences, and what
// it writes when they switch the step off.
const E2E = 'apps/api/src/app/events/e2e/trigger-event-preferences.e2e.ts'
const SEND_MESSAGE = 'apps/worker/src/app/workflow/usecases/send-message/send-message.usecase.ts'
const MERGE = 'libs/application-generic/src/usecases/merge-preferences/merge-preferences.usecase.ts'
const UPSERT = 'libs/application-generic/src/usecases/upsert-preferences/upsert-preferences.usecase.ts'

const WORKFLOW_LEVEL = 'Step filtered by subscriber workflow preferences'
const GLOBAL_LEVEL = 'Step filtered by subscriber global preferences'

const setup = () =>
  fidelityFake({
    workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] }],
    subscribers: [e2eSubscriber()],
  })

const statuses = (jobs: FakeJob[] | undefined) => jobs?.map((job) => `${job.type}:${job.status}`)
const last = (job: FakeJob | undefined) => job?.executionDetails.at(-1)

describe(`fidelity: preferences when a step runs [${SEND_MESSAGE}: evaluateChannelPreference]`, () => {
  it(`skips a step the subscriber switched off for the workflow, saying so, with the preferences it read as raw [${E2E}: "should skip in-app notification when subscriber disables in-app channel for workflow" (c11f1131a9, #9576)]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', {
      workflowId: 'welcome',
      channels: { in_app: false },
    })
    await client.events.trigger({ name: 'welcome', to: 'sub-1' })
    const jobs = fake.notifications[0]?.jobs
    expect(statuses(jobs)).toEqual(['in_app:canceled', 'email:completed'])
    expect(last(jobs?.[0])).toMatchObject({ detail: WORKFLOW_LEVEL, status: 'Success' })
    expect(JSON.parse(last(jobs?.[0])?.raw ?? '')).toEqual({
      enabled: true,
      channels: { in_app: false, email: true },
      overrides: [
        { channel: 'in_app', source: 'subscriber' },
        { channel: 'email', source: 'subscriber' },
      ],
    })
    expect(fake.messages('sub-1')).toEqual([])
  })

  it(`names the global level when the subscriber set only that one [${SEND_MESSAGE}: STEP_FILTERED_BY_SUBSCRIBER_GLOBAL_PREFERENCES]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', { channels: { email: false } })
    await client.events.trigger({ name: 'welcome', to: 'sub-1' })
    const jobs = fake.notifications[0]?.jobs
    expect(statuses(jobs)).toEqual(['in_app:completed', 'email:canceled'])
    expect(last(jobs?.[1])).toMatchObject({ detail: GLOBAL_LEVEL, status: 'Success' })
  })

  it(`with both levels, a channel the workflow level leaves alone follows the global one, and the detail names the workflow level [${MERGE}: merged in order, the type of the last level]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', { channels: { email: false } })
    await client.subscribers.preferences.update('sub-1', {
      workflowId: 'welcome',
      channels: { in_app: true },
    })
    await client.events.trigger({ name: 'welcome', to: 'sub-1' })
    const jobs = fake.notifications[0]?.jobs
    expect(statuses(jobs)).toEqual(['in_app:completed', 'email:canceled'])
    expect(last(jobs?.[1])?.detail).toBe(WORKFLOW_LEVEL)
  })

  it(`with both levels, the workflow level wins for a channel it sets [${MERGE}: subscriber workflow preferences merged last]`, async () => {
    const { fake, client } = setup()
    await client.subscribers.preferences.update('sub-1', { channels: { email: false } })
    await client.subscribers.preferences.update('sub-1', { workflowId: 'welcome', channels: { email: true } })
    await client.events.trigger({ name: 'welcome', to: 'sub-1' })
    expect(statuses(fake.notifications[0]?.jobs)).toEqual(['in_app:completed', 'email:completed'])
  })

  it(`a later global switch of a channel removes it from the workflow level, so the global one decides [${UPSERT}: deleteSubscriberWorkflowChannelPreferences (bd2f04dee4, #6767)]`, async () => {
    const { fake, client, wait } = setup()
    const welcome = () =>
      fake.preferences('sub-1')?.workflows.find((w) => w.workflow.identifier === 'welcome')
    await client.subscribers.preferences.update('sub-1', {
      workflowId: 'welcome',
      channels: { email: true, in_app: false },
    })
    const before = welcome()
    wait(1_000)
    await client.subscribers.preferences.update('sub-1', { channels: { email: false } })
    const after = welcome()
    // The workflow keeps the in-app switch it set; its email now follows the global level.
    expect(after?.channels).toEqual({ in_app: false, email: false })
    expect(after?.updatedAt).not.toBe(before?.updatedAt)
    await client.events.trigger({ name: 'welcome', to: 'sub-1' })
    expect(statuses(fake.notifications[0]?.jobs)).toEqual(['in_app:canceled', 'email:canceled'])
    // A global switch of another channel leaves the workflow level as it was.
    wait(1_000)
    await client.subscribers.preferences.update('sub-1', { channels: { sms: false } })
    expect(welcome()?.updatedAt).toBe(after?.updatedAt)
  })

  it(`ignores both levels for a critical workflow [${MERGE}: subscriber preferences excluded when the workflow's are read-only]`, async () => {
    const { fake, client } = fidelityFake({
      workflows: [{ identifier: 'security', critical: true, steps: [{ type: 'email' }] }],
      subscribers: [e2eSubscriber()],
    })
    await client.subscribers.preferences.update('sub-1', { channels: { email: false } })
    await client.events.trigger({ name: 'security', to: 'sub-1' })
    expect(statuses(fake.notifications[0]?.jobs)).toEqual(['email:completed'])
  })
})
