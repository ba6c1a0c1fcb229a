import { HttpError } from './http.js'
import {
  channelsOf,
  type FakeState,
  type StoredPreferences,
  type StoredWorkflow,
  type StoredWorkflowPreferences,
} from './state.js'
import type { FakeChannel, FakeChannelPreferences, FakePreferences, FakeSchedule } from './types.js'
import type { PreferencesInput } from './validation.js'

/**
 * PATCH /v2/subscribers/:subscriberId/preferences, as the server stores it: the subscriber's global
 * level and each workflow's level are documents of their own, read together when a step runs and
 * when the preferences are listed (see {@link resolveChannel}).
 *
 * - With `workflowId`, the channels given merge into that workflow's level (its `updatedAt` moves);
 *   a `schedule` beside them is stored nowhere, since schedules are global only.
 * - Without it, the channels given merge into the global level and are removed from every
 *   workflow's level that set them, so the global switch of a channel is the last word until a
 *   workflow sets it again. A `schedule` replaces the stored one whole (days left out are gone); an
 *   update without one keeps it.
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
  const channels = input.channels ?? {}
  const now = state.isoNow()
  if (workflowKey !== undefined) {
    const own = prefs.workflows.get(workflowKey)
    prefs.workflows.set(workflowKey, { channels: { ...own?.channels, ...channels }, updatedAt: now })
  } else {
    const global = prefs.global ?? { channels: {}, schedule: undefined }
    Object.assign(global.channels, channels)
    if (input.schedule) global.schedule = structuredClone(input.schedule)
    prefs.global = global
    unsetFromWorkflows(prefs, Object.keys(channels) as FakeChannel[], now)
  }
  return preferencesView(state, subscriberId)
}

/** The server unsets the global update's channels in every workflow level holding one of them. */
function unsetFromWorkflows(prefs: StoredPreferences, channels: FakeChannel[], now: string): void {
  if (channels.length === 0) return
  for (const own of prefs.workflows.values()) {
    if (!channels.some((channel) => own.channels[channel] !== undefined)) continue
    for (const channel of channels) delete own.channels[channel]
    own.updatedAt = now
  }
}

/** Which level decided a channel step of a workflow, for the worker's execution detail. */
export type PreferenceLevel = 'workflow' | 'global' | 'default'

/**
 * Whether `channel` is on for the subscriber in `workflow`, and which level of preferences the
 * server names when it is off. Levels merge in order (the workflow's defaults, every channel on;
 * the subscriber's global level; the subscriber's level for the workflow), the later one winning
 * channel by channel; the level named is the last one that exists, whichever set the channel.
 */
export function resolveChannel(
  state: FakeState,
  subscriberId: string,
  workflow: StoredWorkflow,
  channel: FakeChannel,
): { enabled: boolean; level: PreferenceLevel; channels: FakeChannelPreferences } {
  const prefs = state.preferences.get(subscriberId)
  const own = prefs?.workflows.get(workflow._id)
  const channels = mergedChannels(prefs, own, channelsOf(workflow))
  const level: PreferenceLevel = own ? 'workflow' : prefs?.global ? 'global' : 'default'
  return { enabled: channels[channel] ?? false, level, channels }
}

function mergedChannels(
  prefs: StoredPreferences | undefined,
  own: StoredWorkflowPreferences | undefined,
  channels: FakeChannel[],
): FakeChannelPreferences {
  return pick(channels, (channel) => own?.channels[channel] ?? prefs?.global?.channels[channel] ?? true)
}

/**
 * The v2 preferences shape, as the server lists it. `global.channels` lists the channels the
 * environment's active workflows use (the fake also lists any channel the subscriber set globally,
 * so a test that sets one sees it); `global.schedule` is there once one was stored. `workflows[]`
 * lists the active workflows that `listed` keeps (by default those that are not critical), each with the channels of its steps, and
 * `updatedAt` when the subscriber set preferences for it.
 */
export function preferencesView(
  state: FakeState,
  subscriberId: string,
  listed: (workflow: StoredWorkflow) => boolean = (workflow) => !workflow.critical,
): FakePreferences {
  const prefs = state.preferences.get(subscriberId)
  const active = [...state.workflows.values()].filter((workflow) => workflow.active)
  const used = new Set<FakeChannel>(active.flatMap(channelsOf))
  const global = prefs?.global
  for (const channel of Object.keys(global?.channels ?? {}) as FakeChannel[]) used.add(channel)
  return {
    global: {
      enabled: true,
      channels: pick([...used], (channel) => global?.channels[channel] ?? true),
      ...(global?.schedule ? { schedule: structuredClone(global.schedule) } : {}),
    },
    workflows: active.filter(listed).map((workflow) => {
      const own = prefs?.workflows.get(workflow._id)
      const channels = channelsOf(workflow)
      return {
        enabled: true,
        channels: mergedChannels(prefs, own, channels),
        overrides: overridesOf(channels),
        ...(own ? { updatedAt: own.updatedAt } : {}),
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

/**
 * The server's `overrides`: its merge compares each override's source with the channel's boolean,
 * which never match, so every channel of the workflow ends up listed with `source: "subscriber"`,
 * whoever set it.
 */
export function overridesOf(channels: FakeChannel[]): { channel: FakeChannel; source: 'subscriber' }[] {
  return channels.map((channel) => ({ channel, source: 'subscriber' as const }))
}

function pick(channels: FakeChannel[], value: (channel: FakeChannel) => boolean): FakeChannelPreferences {
  const result: FakeChannelPreferences = {}
  for (const channel of channels) result[channel] = value(channel)
  return result
}

/** A stored schedule, for the worker's check. */
export function scheduleOf(state: FakeState, subscriberId: string): FakeSchedule | undefined {
  return state.preferences.get(subscriberId)?.global?.schedule
}
