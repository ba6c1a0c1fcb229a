import { IdFactory } from './ids.js'
import type {
  FakeChannel,
  FakeChannelPreferences,
  FakeMessage,
  FakeNotification,
  FakePayloadSchema,
  FakeSchedule,
  FakeStepType,
  FakeSubscriber,
  FakeTenant,
  FakeTopic,
  FakeWorkflow,
} from './types.js'
import { CHANNELS, SUBSCRIBER_STRING_FIELDS } from './validation.js'

export interface StoredStep {
  _id: string
  stepId: string
  name: string
  type: FakeStepType
  feedIdentifier: string | undefined
  providerId: string | undefined
  amount: number | undefined
  unit: string | undefined
  digestKey: string | undefined
}

export interface StoredWorkflow {
  _id: string
  identifier: string
  name: string
  slug: string
  steps: StoredStep[]
  critical: boolean
  active: boolean
  severity: string
  tags: string[]
  payloadSchema: FakePayloadSchema | undefined
  createdAt: string
  updatedAt: string
}

export interface StoredSubscriber extends FakeSubscriber {
  _id: string
  createdAt: string
  updatedAt: string
}

export interface StoredTopic {
  _id: string
  topicKey: string
  name: string
  subscribers: string[]
}

/**
 * What the subscriber set, as the server's preference documents hold it: the global level only
 * once an update without `workflowId` was made, each workflow's level only once one with it was.
 */
export interface StoredPreferences {
  /** The global level, `undefined` until the subscriber set it. */
  global: { channels: FakeChannelPreferences; schedule: FakeSchedule | undefined } | undefined
  /** Keyed by workflow `_id`. */
  workflows: Map<string, StoredWorkflowPreferences>
}

/** One workflow's level: the channels the subscriber set for it, and when it last changed. */
export interface StoredWorkflowPreferences {
  channels: FakeChannelPreferences
  updatedAt: string
}

const SUBSCRIBER_FIELDS = [...SUBSCRIBER_STRING_FIELDS, 'data', 'channels'] as const

export function isChannel(type: FakeStepType): type is FakeChannel {
  return CHANNELS.includes(type as FakeChannel)
}

/** The channels a workflow delivers through, in step order, each once. */
export function channelsOf(workflow: StoredWorkflow): FakeChannel[] {
  return [...new Set(workflow.steps.map((s) => s.type).filter(isChannel))]
}

/**
 * Everything the fake remembers about one environment. Operations are synchronous so a request's
 * effects apply atomically even though `handle` is async.
 */
export class FakeState {
  readonly ids = new IdFactory()
  readonly environmentId: string
  readonly organizationId: string
  readonly workflows = new Map<string, StoredWorkflow>()
  readonly subscribers = new Map<string, StoredSubscriber>()
  readonly topics = new Map<string, StoredTopic>()
  readonly notifications: FakeNotification[] = []
  readonly messages: FakeMessage[] = []
  readonly preferences = new Map<string, StoredPreferences>()
  /** Keyed by identifier. */
  readonly tenants = new Map<string, FakeTenant>()
  /** How long each delay or digest job waits, in milliseconds, keyed by job `_id`. */
  readonly waits = new Map<string, number>()
  /**
   * When each `delayed` job is due, in clock milliseconds, keyed by job `_id`; a cancelled digest
   * keeps its time, as the server's timer of it still fires.
   */
  readonly due = new Map<string, number>()
  /** The trigger's `overrides`, keyed by notification `_id`: a step reads them when it runs. */
  readonly triggerOverrides = new Map<string, Record<string, unknown>>()
  /**
   * transactionIds that created jobs: the server's worker drops a later trigger that repeats one
   * (a trigger that reached no one, or was refused, leaves its transactionId free).
   */
  readonly transactions = new Set<string>()

  /** The fake's clock, in milliseconds since the epoch. */
  readonly now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
    this.organizationId = this.ids.next()
    this.environmentId = this.ids.next()
  }

  addWorkflow(input: FakeWorkflow): StoredWorkflow {
    const now = this.isoNow()
    const previous = this.workflows.get(input.identifier)
    const workflow: StoredWorkflow = {
      _id: previous?._id ?? this.ids.next(),
      identifier: input.identifier,
      name: input.name ?? input.identifier,
      slug: input.slug ?? input.identifier,
      steps: (input.steps ?? []).map((step, i) => ({
        _id: this.ids.next(),
        stepId: step.stepId ?? `${step.type}-${i}`,
        name: step.name ?? step.stepId ?? `${step.type}-${i}`,
        type: step.type,
        feedIdentifier: step.feedIdentifier,
        providerId: step.providerId,
        amount: step.amount,
        unit: step.unit,
        digestKey: step.digestKey,
      })),
      critical: input.critical ?? false,
      active: input.active ?? true,
      severity: input.severity ?? 'none',
      tags: [...(input.tags ?? [])],
      payloadSchema: input.payloadSchema,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    }
    this.workflows.set(workflow.identifier, workflow)
    return workflow
  }

  /** Finds a workflow the way the preferences route does: by `_id`, identifier or slug. */
  findWorkflow(idOrIdentifierOrSlug: string): StoredWorkflow | undefined {
    const byIdentifier = this.workflows.get(idOrIdentifierOrSlug)
    if (byIdentifier) return byIdentifier
    for (const workflow of this.workflows.values()) {
      if (workflow._id === idOrIdentifierOrSlug || workflow.slug === idOrIdentifierOrSlug) return workflow
    }
    return undefined
  }

  /** Creates the subscriber, or updates the fields given, as a trigger with a subscriber object does. */
  upsertSubscriber(input: FakeSubscriber): StoredSubscriber {
    const now = this.isoNow()
    const existing = this.subscribers.get(input.subscriberId)
    const subscriber: StoredSubscriber = existing ?? {
      _id: this.ids.next(),
      subscriberId: input.subscriberId,
      createdAt: now,
      updatedAt: now,
    }
    let changed = false
    for (const key of SUBSCRIBER_FIELDS) {
      if (input[key] === undefined) continue
      Object.assign(subscriber, { [key]: structuredClone(input[key]) })
      changed = true
    }
    if (existing && changed) subscriber.updatedAt = now
    this.subscribers.set(subscriber.subscriberId, subscriber)
    return subscriber
  }

  isoNow(): string {
    return new Date(this.now()).toISOString()
  }

  addTenant(input: FakeTenant): void {
    this.tenants.set(input.identifier, structuredClone(input))
  }

  addTopic(input: FakeTopic): StoredTopic {
    for (const id of input.subscribers ?? []) {
      if (!this.subscribers.has(id)) this.upsertSubscriber({ subscriberId: id })
    }
    const previous = this.topics.get(input.topicKey)
    const topic: StoredTopic = {
      _id: previous?._id ?? this.ids.next(),
      topicKey: input.topicKey,
      name: input.name ?? previous?.name ?? input.topicKey,
      subscribers: [...new Set([...(previous?.subscribers ?? []), ...(input.subscribers ?? [])])],
    }
    this.topics.set(topic.topicKey, topic)
    return topic
  }

  preferencesOf(subscriberId: string): StoredPreferences {
    let prefs = this.preferences.get(subscriberId)
    if (!prefs) {
      prefs = { global: undefined, workflows: new Map() }
      this.preferences.set(subscriberId, prefs)
    }
    return prefs
  }

  findNotification(id: string): FakeNotification | undefined {
    return this.notifications.find((n) => n._id === id)
  }
}
