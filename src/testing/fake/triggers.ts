import { cancel as cancelTransaction, deliver, isTransactionTaken } from './engine.js'
import { HttpError, isRecord } from './http.js'
import type { FakeState, StoredSubscriber, StoredTopic, StoredWorkflow } from './state.js'
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

/**
 * POST /v1/events/trigger/bulk: each event on its own, as the server runs them one after the other;
 * an event that fails (unknown workflow, invalid fields) fills its slot with an error result and the
 * others still run.
 */
export function triggerBulk(state: FakeState, inputs: (TriggerInput | HttpError)[]): TriggerOutcome[] {
  return inputs.map((input) => {
    try {
      if (input instanceof HttpError) throw input
      return trigger(state, input)
    } catch (error) {
      if (!(error instanceof HttpError)) throw error
      return { acknowledged: true, status: 'error', error: errorMessages(error) }
    }
  })
}

/** The server's `message` of a failed event, as a list. */
function errorMessages(error: HttpError): string[] {
  const errors = error.extras.errors
  if (!isRecord(errors)) return [error.message]
  return Object.values(errors).flatMap((entry) =>
    isRecord(entry) && Array.isArray(entry.messages) ? entry.messages.map(String) : [],
  )
}

/** DELETE /v1/events/trigger/:transactionId: `true` when a delayed or merged job was canceled. */
export function cancel(state: FakeState, transactionId: string): boolean {
  return cancelTransaction(state, transactionId)
}

function run(
  state: FakeState,
  input: BroadcastInput,
  targets: (actorId: string | undefined) => Target[],
): TriggerOutcome {
  const workflow = state.workflows.get(input.name)
  if (!workflow) throw new HttpError(422, 'workflow_not_found')
  // The server looks a tenant up by identifier, whether given as a string or an object, and never
  // creates one from a trigger; an empty string is no tenant at all.
  if (input.tenant && !state.tenants.has(input.tenant))
    return { acknowledged: true, status: 'no_tenant_found' }
  if (input.tenant === null) return { acknowledged: true, status: 'no_tenant_found' }
  checkPayload(workflow, input.payload)
  const transactionId = input.transactionId ?? globalThis.crypto.randomUUID()
  if (!workflow.active) {
    return {
      acknowledged: true,
      status: 'trigger_not_active',
      error: ['Workflow is not active'],
      transactionId,
    }
  }
  // The real server acknowledges a repeated transactionId like any trigger (201, `processed`, the same
  // transactionId) and its worker then drops it, so nothing new is created and nothing says so.
  if (isTransactionTaken(state, transactionId))
    return { acknowledged: true, status: 'processed', transactionId }
  const actor = input.actor ? resolve(state, input.actor) : undefined
  const payload = withoutAttachmentFiles(input.payload)
  for (const target of targets(actor?.subscriberId)) {
    deliver(state, { workflow, ...target, payload, overrides: input.overrides, transactionId })
  }
  return { acknowledged: true, status: 'processed', transactionId }
}

/** The server uploads each attachment's `file` to its storage and keeps the rest on the payload. */
function withoutAttachmentFiles(payload: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(payload.attachments)) return payload
  const attachments = payload.attachments.map((attachment: unknown) => {
    if (!isRecord(attachment)) return attachment
    const { file: _file, ...rest } = attachment
    return rest
  })
  return { ...payload, attachments }
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
    const summary = errors.map((e) => `${e.field} ${e.message}`).join('; ')
    throw new HttpError(400, `Payload validation failed: ${summary}`, {
      type: 'PAYLOAD_VALIDATION_ERROR',
      errors,
    })
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
