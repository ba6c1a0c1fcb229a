import { isRecord, isTimeZone } from './http.js'
import { overridesOf, resolveChannel, scheduleOf } from './preferences.js'
import {
  channelsOf,
  type FakeState,
  isChannel,
  type StoredStep,
  type StoredSubscriber,
  type StoredWorkflow,
} from './state.js'
import type { FakeExecutionDetail, FakeJob, FakeNotification, FakeSchedule, FakeStepType } from './types.js'

/**
 * What happens to an accepted trigger, for one subscriber: its steps become jobs that run in order
 * on the fake's clock, the way the server's worker runs them. A delay or digest waits (`delayed`)
 * until it is due and holds back the steps after it (`pending`); a second trigger into a pending
 * digest of the same subscriber, workflow and digest key value is `merged` into it. A channel step
 * ends `canceled` when it falls outside the subscriber's schedule, when the subscriber's
 * preferences switch it off, or when the subscriber has no address for it (an email step without
 * an email, an SMS step without a phone); each says why in its last execution detail, in the
 * worker's words.
 */

/** The recipient of one notification, with the `to` and topic it records. */
export interface Delivery {
  workflow: StoredWorkflow
  subscriber: StoredSubscriber
  to: Record<string, unknown>
  topic: { _id: string; topicKey: string } | undefined
  payload: Record<string, unknown>
  /** The trigger's `overrides`; `delay: { amount, unit }` replaces the wait of delay and digest steps. */
  overrides: Record<string, unknown>
  transactionId: string
}

/** The execution-detail texts of the server's worker. */
const DETAIL = {
  queued: 'Step queued',
  delayed: 'Step delayed',
  digested: 'Step digested',
  digestTriggered: 'Digest triggered events',
  messageCreated: 'Message created',
  messageSent: 'Message sent',
  delayFinished: 'Delay is finished',
  merged: 'Digest was merged with other digest',
  outsideSchedule: "The step was skipped as it fell outside the subscriber's schedule",
  missingEmail: 'Subscriber missing email address',
  missingPhone: 'Subscriber missing phone number',
} as const

/** What the worker writes for a step the preferences switched off, by the level it names. */
const FILTERED = {
  workflow: 'Step filtered by subscriber workflow preferences',
  global: 'Step filtered by subscriber global preferences',
  default: 'Step filtered by workflow preferences',
} as const

const DEFAULT_PROVIDER: Record<string, string> = {
  in_app: 'novu',
  email: 'sendgrid',
  sms: 'twilio',
  push: 'fcm',
  chat: 'slack',
}

/**
 * Steps the server runs whatever the subscriber's schedule: in-app messages are always delivered,
 * and the workflow's own steps (trigger, delay, digest, an HTTP request) are not messages. Every
 * other step (email, SMS, push, chat, custom, throttle) is held to it.
 */
const OUTSIDE_SCHEDULE: readonly FakeStepType[] = ['in_app', 'trigger', 'delay', 'digest', 'http_request']

/**
 * Records the notification for one recipient and runs its jobs as far as they go now. Its
 * transactionId is taken from then on: the worker drops a later trigger that repeats it (see
 * {@link isTransactionTaken}). A workflow without steps still records a notification, with no jobs.
 */
export function deliver(state: FakeState, delivery: Delivery): FakeNotification {
  const notification = createNotification(state, delivery)
  state.notifications.push(notification)
  state.transactions.add(delivery.transactionId)
  state.triggerOverrides.set(notification._id, delivery.overrides)
  runFrom(state, notification, 0, state.now())
  return notification
}

/**
 * Whether a trigger with this transactionId would be dropped by the worker: it refuses one that a
 * job of the environment already carries, after the API acknowledged it (so `processed`, and
 * nothing created).
 */
export function isTransactionTaken(state: FakeState, transactionId: string): boolean {
  return state.transactions.has(transactionId)
}

/**
 * Runs every delay and digest that is due by the fake's clock, with the steps after it, earliest
 * first (so a digest a delay releases joins the one released before it).
 */
export function advance(state: FakeState): void {
  const now = state.now()
  for (;;) {
    let next: [string, number] | undefined
    for (const entry of state.due) if (entry[1] <= now && (!next || entry[1] < next[1])) next = entry
    if (!next) return
    const [jobId, due] = next
    state.due.delete(jobId)
    const found = locate(state, jobId)
    if (found?.job.status === 'delayed') release(state, found.notification, found.job, due)
    // A cancelled digest's timer still fires: it runs the digest now pending in its place.
    else if (found?.job.status === 'canceled' && found.job.type === 'digest') {
      const follower = activeDigestLike(state, found.notification, found.job)
      if (follower) release(state, follower.notification, follower.job, due)
    }
  }
}

function locate(
  state: FakeState,
  jobId: string,
): { notification: FakeNotification; job: FakeJob } | undefined {
  for (const notification of state.notifications) {
    const job = notification.jobs.find((j) => j._id === jobId)
    if (job) return { notification, job }
  }
  return undefined
}

/**
 * The pending digest the worker runs when a cancelled one's timer fires: a `delayed` digest of the
 * same subscriber and workflow, with the same value at the digest key when the cancelled one had a
 * value there (without one, any of the subscriber's pending digests of the workflow).
 */
function activeDigestLike(
  state: FakeState,
  own: FakeNotification,
  canceled: FakeJob,
): { notification: FakeNotification; job: FakeJob } | undefined {
  const key = canceled.digest?.digestKey
  const value = key === undefined ? undefined : valueAt(canceled.payload, key)
  for (const notification of state.notifications) {
    if (notification._templateId !== own._templateId || notification._subscriberId !== own._subscriberId)
      continue
    const job = notification.jobs.find((j) => j.type === 'digest' && j.status === 'delayed')
    if (!job) continue
    if (key !== undefined && value && valueAt(job.payload, key) !== value) continue
    return { notification, job }
  }
  return undefined
}

/** Completes a delay or digest at `due` and runs the steps after it. */
function release(state: FakeState, notification: FakeNotification, job: FakeJob, due: number): void {
  const at = new Date(due).toISOString()
  const index = notification.jobs.indexOf(job)
  if (job.type === 'digest' && job.digest) {
    const digest = job.digest
    digest.events = digestEvents(state, job)
    // The steps after a digest run with its events, as the server hands them on.
    for (const later of notification.jobs.slice(index + 1)) later.digest = structuredClone(digest)
    const raw = JSON.stringify(digest.events)
    job.executionDetails.push(detail(state, at, 'Success', DETAIL.digestTriggered, job.providerId, raw))
  } else {
    job.executionDetails.push(detail(state, at, 'Success', DETAIL.delayFinished, job.providerId))
  }
  setStatus(job, 'completed', at)
  notification.updatedAt = at
  runFrom(state, notification, index + 1, due)
}

/**
 * DELETE /v1/events/trigger/:transactionId, as the server's cancel does: every `delayed` or
 * `merged` job of the transaction, for all its subscribers, and (when one of them is a delay or
 * digest) every `pending` one, ends `canceled`. The first pending digest among them hands over to
 * the oldest trigger merged into it, which becomes the pending digest with its own later steps;
 * the others' merged triggers are left `merged`, and never run. A cancelled digest's timer still
 * fires when it was due, and runs whichever digest is pending in its place then (see
 * {@link advance}).
 */
export function cancel(state: FakeState, transactionId: string): boolean {
  const now = state.isoNow()
  const own = state.notifications.filter((n) => n.transactionId === transactionId)
  const waiting = own.flatMap((n) =>
    n.jobs.filter((job) => job.status === 'delayed' || job.status === 'merged'),
  )
  if (waiting.length === 0) return false
  const behindAction = waiting.some((job) => job.type === 'delay' || job.type === 'digest')
  const mainDigest = waiting.find((job) => job.type === 'digest' && job.status === 'delayed')
  const joined = new Set(
    waiting.flatMap((job) => (job.type === 'digest' && job._mergedDigestId ? [job._mergedDigestId] : [])),
  )
  for (const notification of own) {
    let changed = false
    for (const job of notification.jobs) {
      const { status } = job
      if (status !== 'delayed' && status !== 'merged' && !(behindAction && status === 'pending')) continue
      setStatus(job, 'canceled', now)
      // A cancelled delay's timer does nothing; a cancelled digest's keeps its time (see advance).
      if (job.type !== 'digest') state.due.delete(job._id)
      if (job.digest) job.digest.events = []
      changed = true
    }
    if (changed) notification.updatedAt = now
  }
  if (mainDigest) promoteFollower(state, mainDigest, now)
  for (const mainId of joined) {
    const main = locate(state, mainId)?.job
    if (main?.digest && main.status === 'delayed') main.digest.events = digestEvents(state, main)
  }
  return true
}

function promoteFollower(state: FakeState, main: FakeJob, now: string): void {
  const followers = mergedInto(state, main._id)
  const first = followers[0]
  if (!first) return
  const { notification, job } = first
  const index = notification.jobs.indexOf(job)
  notification.jobs.forEach((later, i) => {
    if (i <= index || later.status !== 'merged') return
    setStatus(later, 'pending', now)
    delete later._mergedDigestId
  })
  delete job._mergedDigestId
  setStatus(job, 'delayed', now)
  for (const other of followers.slice(1)) {
    for (const merged of other.notification.jobs) {
      if (merged._mergedDigestId === main._id) merged._mergedDigestId = job._id
    }
  }
  if (job.digest) job.digest.events = digestEvents(state, job)
}

/** The digest jobs merged into `digestId`, oldest first, with their notifications. */
function mergedInto(state: FakeState, digestId: string): { notification: FakeNotification; job: FakeJob }[] {
  const found: { notification: FakeNotification; job: FakeJob }[] = []
  for (const notification of state.notifications) {
    const job = notification.jobs.find(
      (j) => j.type === 'digest' && j.status === 'merged' && j._mergedDigestId === digestId,
    )
    if (job) found.push({ notification, job })
  }
  return found
}

/** A pending digest's events: its own trigger's payload, then those merged into it, in order. */
function digestEvents(state: FakeState, main: FakeJob): Record<string, unknown>[] {
  return [main, ...mergedInto(state, main._id).map((m) => m.job)].map((job) => structuredClone(job.payload))
}

/** Runs `notification`'s pending jobs from `start` until one has to wait. */
function runFrom(state: FakeState, notification: FakeNotification, start: number, now: number): void {
  const at = new Date(now).toISOString()
  for (const job of notification.jobs.slice(start)) {
    if (job.status !== 'pending') continue
    job.executionDetails.push(detail(state, at, 'Pending', DETAIL.queued, job.providerId))
    notification.updatedAt = at
    if (job.type === 'digest') {
      const main = pendingDigestFor(state, notification, job)
      if (main) {
        mergeInto(notification, job, main, at)
        if (main.digest) main.digest.events = digestEvents(state, main)
        job.executionDetails.push(detail(state, at, 'Success', DETAIL.merged, job.providerId))
        return
      }
    }
    if (job.type === 'digest' || job.type === 'delay') {
      setStatus(job, 'delayed', at)
      state.due.set(job._id, now + (state.waits.get(job._id) ?? 0))
      const text = job.type === 'delay' ? DETAIL.delayed : DETAIL.digested
      job.executionDetails.push(detail(state, at, 'Pending', text, job.providerId))
      return
    }
    runStep(state, notification, job, now)
  }
}

function runStep(state: FakeState, notification: FakeNotification, job: FakeJob, now: number): void {
  const at = new Date(now).toISOString()
  const subscriberId = notification.subscriber.subscriberId
  const workflow = state.workflows.get(job.overrides.workflowId)
  const subscriber = state.subscribers.get(subscriberId)
  const skip = (status: FakeExecutionDetail['status'], text: string, raw = '') => {
    job.executionDetails.push(detail(state, at, status, text, job.providerId, raw))
    setStatus(job, 'canceled', at)
  }
  // The worker checks the schedule before the preferences, so a step both rule out says the first.
  const schedule = scheduleOf(state, subscriberId)
  const timezone = subscriber?.timezone ?? undefined
  if (
    !notification.critical &&
    !OUTSIDE_SCHEDULE.includes(job.type) &&
    !isWithinSchedule(schedule, now, timezone)
  ) {
    skip('Success', DETAIL.outsideSchedule, JSON.stringify({ schedule, timezone }))
    return
  }
  if (!notification.critical && workflow && isChannel(job.type)) {
    const preference = resolveChannel(state, subscriberId, workflow, job.type)
    if (!preference.enabled) {
      const raw = {
        enabled: true,
        channels: preference.channels,
        overrides: overridesOf(channelsOf(workflow)),
      }
      skip('Success', FILTERED[preference.level], JSON.stringify(raw))
      return
    }
  }
  if (isChannel(job.type)) {
    job.executionDetails.push(detail(state, at, 'Pending', DETAIL.messageCreated, job.providerId))
  }
  // The worker creates the message, then finds it has nowhere to send it: the step is skipped.
  const missing = missingAddress(state, notification, job, subscriber)
  if (missing) {
    skip('Failed', missing)
    return
  }
  if (job.type === 'in_app') {
    const step = workflow?.steps.find((s) => s.stepId === job.step.stepId)
    // The server keeps attachments for the providers, never on the message.
    const { attachments: _attachments, ...payload } = job.payload
    state.messages.push({
      _id: state.ids.next(),
      _notificationId: notification._id,
      subscriberId,
      transactionId: notification.transactionId,
      workflowIdentifier: job.overrides.workflowId,
      stepId: job.step.stepId,
      feedIdentifier: step?.feedIdentifier ?? null,
      read: false,
      seen: false,
      payload: structuredClone(payload),
      createdAt: at,
      updatedAt: at,
    })
  }
  if (isChannel(job.type)) {
    job.executionDetails.push(detail(state, at, 'Success', DETAIL.messageSent, job.providerId))
  }
  setStatus(job, 'completed', at)
}

/**
 * Why an email or SMS step cannot be sent, in the worker's words: an email step needs the
 * trigger's `overrides.email.toRecipient` or the subscriber's email, an SMS step the payload's
 * `phone` or the subscriber's phone, each read when the step runs.
 */
function missingAddress(
  state: FakeState,
  notification: FakeNotification,
  job: FakeJob,
  subscriber: StoredSubscriber | undefined,
): string | undefined {
  if (job.type === 'email') {
    const email = state.triggerOverrides.get(notification._id)?.email
    const toRecipient = isRecord(email) ? email.toRecipient : undefined
    return toRecipient || subscriber?.email ? undefined : DETAIL.missingEmail
  }
  if (job.type === 'sms') return job.payload.phone || subscriber?.phone ? undefined : DETAIL.missingPhone
  return undefined
}

/**
 * The pending digest `job` joins: the same workflow and subscriber, `delayed`, and, when the step
 * has a digest key, the same value at that path of the payload.
 */
function pendingDigestFor(state: FakeState, own: FakeNotification, job: FakeJob): FakeJob | undefined {
  const value = digestValueOf(job)
  for (const notification of state.notifications) {
    if (notification === own || notification._templateId !== own._templateId) continue
    if (notification._subscriberId !== own._subscriberId) continue
    const main = notification.jobs.find((j) => j.type === 'digest' && j.status === 'delayed')
    if (main && digestValueOf(main) === value) return main
  }
  return undefined
}

/** The server files a trigger without a value at the digest key (or a falsy one) under one value. */
const NO_DIGEST_VALUE = 'No-Value-Provided'

function digestValueOf(job: FakeJob): unknown {
  const key = job.digest?.digestKey
  return (key === undefined ? undefined : valueAt(job.payload, key)) || NO_DIGEST_VALUE
}

function mergeInto(notification: FakeNotification, digest: FakeJob, main: FakeJob, at: string): void {
  const index = notification.jobs.indexOf(digest)
  for (const job of notification.jobs.slice(index)) {
    setStatus(job, 'merged', at)
    job._mergedDigestId = main._id
  }
  if (digest.digest) digest.digest.events = []
}

/** A dotted path into the payload, as the server reads a digest key (`post.id`). */
function valueAt(payload: Record<string, unknown>, path: string): unknown {
  let value: unknown = payload
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

/** A delay or digest step seeded without an amount waits this many of its unit. */
const DEFAULT_AMOUNT = 5

const UNIT_MS: Record<string, number> = {
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
  months: 2_592_000_000,
}

/** A delay or digest step's wait; a valid `overrides.delay` replaces the step's own, as on the server. */
function waitMs(step: StoredStep, overrides: Record<string, unknown>): number {
  const override = overrides.delay
  if (isRecord(override) && typeof override.amount === 'number' && typeof override.unit === 'string') {
    const unitMs = UNIT_MS[override.unit]
    if (unitMs !== undefined) return override.amount * unitMs
  }
  return (step.amount ?? DEFAULT_AMOUNT) * (UNIT_MS[step.unit ?? 'seconds'] ?? 1_000)
}

function setStatus(job: FakeJob, status: FakeJob['status'], at: string): void {
  job.status = status
  job.updatedAt = at
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const

/**
 * Whether `time` falls inside the subscriber's weekly schedule, read in the subscriber's timezone
 * (UTC without one). Ranges include both ends; a range that ends before it starts runs past
 * midnight, so the previous day's ranges are also tried when it has such a range.
 */
export function isWithinSchedule(
  schedule: FakeSchedule | undefined,
  time: number,
  timezone?: string,
): boolean {
  const weekly = schedule?.isEnabled ? schedule.weeklySchedule : undefined
  if (!weekly) return true
  const { day, minutes } = localTime(time, timezone)
  const previous = WEEKDAYS[(day + 6) % 7] ?? 'saturday'
  const days = [WEEKDAYS[day] ?? 'sunday']
  const overnight = weekly[previous]?.hours?.some((h) => toMinutes(h.end) < toMinutes(h.start))
  if (weekly[previous]?.isEnabled && overnight) days.push(previous)
  return days.some((name) => {
    const entry = weekly[name]
    if (!entry?.isEnabled) return false
    return (entry.hours ?? []).some(({ start, end }) => {
      const from = toMinutes(start)
      const to = toMinutes(end)
      return to < from ? minutes >= from || minutes <= to : minutes >= from && minutes <= to
    })
  })
}

function localTime(time: number, timezone: string | undefined): { day: number; minutes: number } {
  let zone = timezone ?? 'UTC'
  if (!isTimeZone(zone)) zone = 'UTC'
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(time)
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? ''
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(part('weekday'))
  return { day, minutes: Number(part('hour')) * 60 + Number(part('minute')) }
}

/** `"09:30 PM"` as minutes after midnight. */
function toMinutes(time: string): number {
  const [clock = '', period] = time.split(' ')
  const [hours = 0, minutes = 0] = clock.split(':').map(Number)
  return ((hours % 12) + (period === 'PM' ? 12 : 0)) * 60 + minutes
}

function detail(
  state: FakeState,
  at: string,
  status: FakeExecutionDetail['status'],
  text: string,
  providerId: string,
  raw = '',
): FakeExecutionDetail {
  return {
    _id: state.ids.next(),
    createdAt: at,
    status,
    detail: text,
    isRetry: false,
    isTest: false,
    providerId,
    raw,
    source: 'Internal',
  }
}

function createNotification(state: FakeState, delivery: Delivery): FakeNotification {
  const { workflow, subscriber, payload, transactionId } = delivery
  const now = state.isoNow()
  const jobs = workflow.steps.map((step): FakeJob => {
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
      providerId: step.providerId ?? DEFAULT_PROVIDER[step.type] ?? 'novu',
      updatedAt: now,
      scheduleExtensionsCount: 0,
    }
    if (step.type === 'digest' || step.type === 'delay')
      state.waits.set(job._id, waitMs(step, delivery.overrides))
    if (step.type === 'digest') {
      job.digest = {
        ...(step.digestKey === undefined ? {} : { digestKey: step.digestKey }),
        amount: step.amount ?? DEFAULT_AMOUNT,
        unit: step.unit ?? 'seconds',
        type: 'regular',
        events: [structuredClone(payload)],
        backoff: false,
      }
    }
    return job
  })
  return {
    _id: state.ids.next(),
    _environmentId: state.environmentId,
    _organizationId: state.organizationId,
    _subscriberId: subscriber._id,
    transactionId,
    _templateId: workflow._id,
    createdAt: now,
    updatedAt: now,
    channels: channelsOf(workflow),
    subscriber: { _id: subscriber._id, subscriberId: subscriber.subscriberId, ...stringFields(subscriber) },
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
    to: delivery.to,
    topics: delivery.topic ? [{ _topicId: delivery.topic._id, topicKey: delivery.topic.topicKey }] : [],
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
