import { HttpError } from './http.js'
import {
  channelsOf,
  type FakeState,
  isChannel,
  type StoredStep,
  type StoredSubscriber,
  type StoredTopic,
  type StoredWorkflow,
} from './state.js'
import type { FakeExecutionDetail, FakeJob, FakeNotification } from './types.js'
import type { BroadcastInput, RecipientInput, TriggerInput } from './validation.js'

/**
 * What the fake answers to one trigger, inside `{ data }`: the server's acknowledgement, not the SDK's
 * parsed `TriggerResult`.
 */
export interface TriggerOutcome {
  acknowledged: boolean
  status: string
  transactionId?: string
  error?: string[]
}

/** One subscriber a trigger reaches, with the `to` and topic the notification records. */
interface Target {
  subscriber: StoredSubscriber
  to: Record<string, unknown>
  topic: StoredTopic | undefined
}

const DEFAULT_PROVIDER: Record<string, string> = {
  in_app: 'novu',
  email: 'sendgrid',
  sms: 'twilio',
  push: 'fcm',
  chat: 'slack',
}

/** POST /v1/events/trigger. Throws the 422 and 400 the server answers with. */
export function trigger(state: FakeState, input: TriggerInput): TriggerOutcome {
  return run(state, input, (actorId) => expandRecipients(state, input.to, actorId))
}

/** POST /v1/events/trigger/broadcast: every subscriber that exists when it is processed. */
export function broadcast(state: FakeState, input: BroadcastInput): TriggerOutcome {
  return run(state, input, () =>
    [...state.subscribers.values()].map((subscriber) => ({
      subscriber,
      to: { subscriberId: subscriber.subscriberId },
      topic: undefined,
    })),
  )
}

/** POST /v1/events/trigger/bulk: each event on its own; a failing one fills its slot with an error result. */
export function triggerBulk(state: FakeState, inputs: TriggerInput[]): TriggerOutcome[] {
  return inputs.map((input) => {
    try {
      return trigger(state, input)
    } catch (error) {
      if (!(error instanceof HttpError)) throw error
      return { acknowledged: true, status: 'error', error: [error.message] }
    }
  })
}

/** DELETE /v1/events/trigger/:transactionId: `true` when a delayed or pending job was canceled. */
export function cancel(state: FakeState, transactionId: string): boolean {
  const now = new Date().toISOString()
  let canceled = false
  for (const notification of state.notifications) {
    if (notification.transactionId !== transactionId) continue
    for (const job of notification.jobs) {
      if (job.status !== 'delayed' && job.status !== 'pending') continue
      job.status = 'canceled'
      job.updatedAt = now
      job.executionDetails.push(detail(state, now, 'Success', 'Step canceled', job.providerId))
      notification.updatedAt = now
      canceled = true
    }
  }
  return canceled
}

function run(
  state: FakeState,
  input: BroadcastInput,
  targets: (actorId: string | undefined) => Target[],
): TriggerOutcome {
  const workflow = state.workflows.get(input.name)
  if (!workflow) throw new HttpError(422, 'workflow_not_found')
  checkPayload(workflow, input.payload)
  const transactionId = input.transactionId ?? globalThis.crypto.randomUUID()
  // The real server acknowledges a repeated transactionId like any trigger (201, `processed`, the same
  // transactionId) and its worker then drops it, so nothing new is created and nothing says so.
  if (state.transactions.has(transactionId)) return { acknowledged: true, status: 'processed', transactionId }
  if (!workflow.active) {
    return {
      acknowledged: true,
      status: 'trigger_not_active',
      error: ['Workflow is not active'],
      transactionId,
    }
  }
  if (workflow.steps.length === 0) {
    return {
      acknowledged: true,
      status: 'no_workflow_steps_defined',
      error: ['Workflow has no steps'],
      transactionId,
    }
  }
  state.transactions.add(transactionId)
  const actor = input.actor ? resolve(state, input.actor) : undefined
  for (const target of targets(actor?.subscriberId)) {
    state.notifications.push(createNotification(state, workflow, target, input.payload, transactionId))
  }
  return { acknowledged: true, status: 'processed', transactionId }
}

function checkPayload(workflow: StoredWorkflow, payload: Record<string, unknown>): void {
  const schema = workflow.payloadSchema
  if (!schema) return
  const errors: { field: string; message: string; value?: unknown }[] = []
  for (const key of schema.required ?? []) {
    if (!(key in payload)) errors.push({ field: key, message: `must have required property '${key}'` })
  }
  for (const [key, { type }] of Object.entries(schema.properties ?? {})) {
    if (type === undefined || !(key in payload)) continue
    const value = payload[key]
    if (!hasJsonType(value, type)) errors.push({ field: key, message: `must be ${type}`, value })
  }
  if (errors.length > 0) {
    throw new HttpError(400, 'Payload validation failed', { type: 'PAYLOAD_VALIDATION_ERROR', errors })
  }
}

function hasJsonType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value)
    case 'array':
      return Array.isArray(value)
    case 'null':
      return value === null
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return typeof value === type
  }
}

/**
 * A string names a subscriber; like the real server (which creates the subscriber while processing
 * the trigger), the fake creates one with only that id when it does not exist yet.
 */
function resolve(state: FakeState, recipient: RecipientInput): StoredSubscriber | undefined {
  if (recipient.kind === 'id') {
    return (
      state.subscribers.get(recipient.subscriberId) ??
      state.upsertSubscriber({ subscriberId: recipient.subscriberId })
    )
  }
  if (recipient.kind === 'subscriber') return state.upsertSubscriber(recipient.subscriber)
  return undefined
}

/**
 * One target per distinct subscriber. Topics expand to their subscribers minus `exclude`, minus the
 * actor (the server does not notify the actor of its own action through a topic), minus anyone
 * already named directly; an unknown topic reaches no one.
 */
function expandRecipients(state: FakeState, to: RecipientInput[], actorId: string | undefined): Target[] {
  const targets = new Map<string, Target>()
  for (const recipient of to) {
    const subscriber = resolve(state, recipient)
    if (!subscriber || targets.has(subscriber.subscriberId)) continue
    const given =
      recipient.kind === 'subscriber'
        ? structuredClone(recipient.given)
        : { subscriberId: subscriber.subscriberId }
    targets.set(subscriber.subscriberId, { subscriber, to: given, topic: undefined })
  }
  for (const recipient of to) {
    if (recipient.kind !== 'topic') continue
    const topic = state.topics.get(recipient.topicKey)
    if (!topic) continue
    const excluded = new Set(recipient.exclude)
    if (actorId !== undefined) excluded.add(actorId)
    for (const subscriberId of topic.subscribers) {
      if (excluded.has(subscriberId) || targets.has(subscriberId)) continue
      const subscriber = state.subscribers.get(subscriberId) ?? state.upsertSubscriber({ subscriberId })
      targets.set(subscriberId, { subscriber, to: { subscriberId }, topic })
    }
  }
  return [...targets.values()]
}

function detail(
  state: FakeState,
  at: string,
  status: FakeExecutionDetail['status'],
  text: string,
  providerId: string,
): FakeExecutionDetail {
  return {
    _id: state.ids.next(),
    createdAt: at,
    status,
    detail: text,
    isRetry: false,
    isTest: false,
    providerId,
    raw: '',
    source: 'Internal',
  }
}

function channelEnabled(
  state: FakeState,
  workflow: StoredWorkflow,
  subscriberId: string,
  step: StoredStep,
): boolean {
  if (workflow.critical || !isChannel(step.type)) return true
  const prefs = state.preferences.get(subscriberId)
  if (!prefs) return true
  return prefs.workflows.get(workflow._id)?.[step.type] ?? prefs.channels[step.type] ?? true
}

/**
 * Jobs run in step order until the first digest or delay, which waits (`delayed`) and holds back every
 * later step (`pending`); the fake's clock never releases them, only `cancel` ends them. A channel the
 * subscriber switched off is `skipped` unless the workflow is critical.
 */
function createNotification(
  state: FakeState,
  workflow: StoredWorkflow,
  target: Target,
  payload: Record<string, unknown>,
  transactionId: string,
): FakeNotification {
  const now = new Date().toISOString()
  const notificationId = state.ids.next()
  const { subscriber } = target
  let waiting = false
  const jobs = workflow.steps.map((step): FakeJob => {
    const providerId = step.providerId ?? DEFAULT_PROVIDER[step.type] ?? 'novu'
    const job: FakeJob = {
      _id: state.ids.next(),
      type: step.type,
      status: 'pending',
      step: {
        _id: step._id,
        stepId: step.stepId,
        name: step.name,
        active: true,
        _templateId: workflow._id,
        filters: [],
        template: {},
        variants: [],
        metadata: step.amount === undefined ? {} : { amount: step.amount, unit: step.unit ?? 'seconds' },
      },
      executionDetails: [],
      overrides: { workflowId: workflow.identifier, stepId: step.stepId },
      payload: structuredClone(payload),
      providerId,
      updatedAt: now,
      scheduleExtensionsCount: 0,
    }
    if (step.type === 'digest') {
      job.digest = {
        ...(step.digestKey === undefined ? {} : { digestKey: step.digestKey }),
        amount: step.amount ?? 5,
        unit: step.unit ?? 'seconds',
        type: 'regular',
        events: [structuredClone(payload)],
        backoff: false,
      }
    }
    if (waiting) return job
    if (step.type === 'digest' || step.type === 'delay') {
      waiting = true
      job.status = 'delayed'
      job.executionDetails.push(detail(state, now, 'Pending', `Step ${step.type} started`, providerId))
    } else if (channelEnabled(state, workflow, subscriber.subscriberId, step)) {
      job.status = 'completed'
      job.executionDetails.push(detail(state, now, 'Success', 'Message sent', providerId))
      if (step.type === 'in_app') {
        state.messages.push({
          _id: state.ids.next(),
          _notificationId: notificationId,
          subscriberId: subscriber.subscriberId,
          transactionId,
          workflowIdentifier: workflow.identifier,
          stepId: step.stepId,
          feedIdentifier: step.feedIdentifier ?? null,
          read: false,
          seen: false,
          payload: structuredClone(payload),
          createdAt: now,
          updatedAt: now,
        })
      }
    } else {
      job.status = 'skipped'
      job.executionDetails.push(
        detail(state, now, 'Success', 'Step skipped by subscriber preferences', providerId),
      )
    }
    return job
  })
  return {
    _id: notificationId,
    _environmentId: state.environmentId,
    _organizationId: state.organizationId,
    _subscriberId: subscriber._id,
    transactionId,
    _templateId: workflow._id,
    createdAt: now,
    updatedAt: now,
    channels: channelsOf(workflow),
    subscriber: {
      _id: subscriber._id,
      subscriberId: subscriber.subscriberId,
      ...stringFields(subscriber),
    },
    template: {
      _id: workflow._id,
      name: workflow.name,
      origin: 'external',
      triggers: [
        {
          type: 'event',
          identifier: workflow.identifier,
          variables: Object.keys(workflow.payloadSchema?.properties ?? {}).map((name) => ({ name })),
          subscriberVariables: [],
        },
      ],
    },
    jobs,
    payload: structuredClone(payload),
    tags: [...workflow.tags],
    controls: {},
    to: target.to,
    topics: target.topic ? [{ _topicId: target.topic._id, topicKey: target.topic.topicKey }] : [],
    severity: workflow.severity,
    critical: workflow.critical,
  }
}

function stringFields(
  subscriber: StoredSubscriber,
): Partial<Record<'firstName' | 'lastName' | 'email' | 'phone', string>> {
  const result: Partial<Record<'firstName' | 'lastName' | 'email' | 'phone', string>> = {}
  for (const key of ['firstName', 'lastName', 'email', 'phone'] as const) {
    const value = subscriber[key]
    if (typeof value === 'string') result[key] = value
  }
  return result
}
