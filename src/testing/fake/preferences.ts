import { HttpError } from './http.js'
import { channelsOf, type FakeState, type StoredPreferences, type StoredWorkflow } from './state.js'
import type { FakeChannel, FakeChannelPreferences, FakePreferences, FakeSchedule } from './types.js'
import type { PreferencesInput } from './validation.js'

/**
 * PATCH /v2/subscribers/:subscriberId/preferences. Channels merge into the global or the workflow's
 * switches. Schedules are global only: one sent with `workflowId` is not stored; weekdays of a new
 * global schedule merge into the stored ones.
 */
export function updatePreferences(
  state: FakeState,
  subscriberId: string,
  input: PreferencesInput,
): FakePreferences {
  if (!state.subscribers.has(subscriberId)) {
    throw new HttpError(404, `Subscriber with id: ${subscriberId} is not found`)
  }
  let workflowKey: string | undefined
  if (input.workflowId !== undefined) {
    const workflow = state.findWorkflow(input.workflowId)
    if (!workflow) throw new HttpError(404, `Workflow with id: ${input.workflowId} is not found`)
    if (workflow.critical) {
      throw new HttpError(400, `Critical workflow with id: ${input.workflowId} can not be updated`)
    }
    workflowKey = workflow._id
  }
  const prefs = state.preferencesOf(subscriberId)
  if (input.channels) {
    if (workflowKey === undefined) Object.assign(prefs.channels, input.channels)
    else prefs.workflows.set(workflowKey, { ...prefs.workflows.get(workflowKey), ...input.channels })
  }
  if (input.schedule && workflowKey === undefined)
    prefs.schedule = mergeSchedule(prefs.schedule, input.schedule)
  return preferencesView(state, subscriberId)
}

function mergeSchedule(previous: FakeSchedule | undefined, next: FakeSchedule): FakeSchedule {
  const weeklySchedule = { ...previous?.weeklySchedule, ...next.weeklySchedule }
  return Object.keys(weeklySchedule).length > 0
    ? { isEnabled: next.isEnabled, weeklySchedule: structuredClone(weeklySchedule) }
    : { isEnabled: next.isEnabled }
}

/**
 * The v2 preferences shape. Like the server, `channels` list the channels the environment's
 * workflows use; the fake also lists any channel the subscriber set globally, so a test that sets
 * one sees it. Inactive workflows are left out (the server lists active ones), and so are critical
 * ones unless `listed` says otherwise: their preferences cannot be changed. A channel never set is on.
 */
export function preferencesView(
  state: FakeState,
  subscriberId: string,
  listed: (workflow: StoredWorkflow) => boolean = (workflow) => workflow.active && !workflow.critical,
): FakePreferences {
  const prefs: StoredPreferences = state.preferences.get(subscriberId) ?? {
    channels: {},
    schedule: undefined,
    workflows: new Map(),
  }
  const workflows = [...state.workflows.values()]
  const used = new Set<FakeChannel>(workflows.flatMap(channelsOf))
  for (const channel of Object.keys(prefs.channels) as FakeChannel[]) used.add(channel)
  const global = pick([...used], (channel) => prefs.channels[channel] ?? true)
  return {
    global: {
      enabled: true,
      channels: global,
      schedule: structuredClone(prefs.schedule ?? { isEnabled: false }),
    },
    workflows: workflows.filter(listed).map((workflow) => {
      const own = prefs.workflows.get(workflow._id) ?? {}
      const channels = channelsOf(workflow)
      return {
        enabled: true,
        channels: pick(channels, (channel) => own[channel] ?? prefs.channels[channel] ?? true),
        overrides: channels
          .filter((channel) => own[channel] !== undefined)
          .map((channel) => ({ channel, source: 'subscriber' as const })),
        workflow: {
          slug: workflow.slug,
          identifier: workflow.identifier,
          name: workflow.name,
          updatedAt: workflow.updatedAt,
        },
      }
    }),
  }
}

function pick(channels: FakeChannel[], value: (channel: FakeChannel) => boolean): FakeChannelPreferences {
  const result: FakeChannelPreferences = {}
  for (const channel of channels) result[channel] = value(channel)
  return result
}
