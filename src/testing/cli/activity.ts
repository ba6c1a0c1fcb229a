// What `notifykit fake` prints while it runs: one line per request, one per message a trigger led
// to (sent, or settled without sending), and one per reset. Never a header: the API key travels in
// `Authorization` and stays there.
import type { FakeService } from '../fake/service.js'
import type { FakeJob, FakeJobStatus, FakeNotification } from '../fake/types.js'

const CHANNELS: readonly string[] = ['in_app', 'email', 'sms', 'push', 'chat']
/** A job in one of these has not run yet: a delay or digest holds it, or it waits its turn. */
const WAITING: readonly FakeJobStatus[] = ['pending', 'queued', 'running', 'delayed']
/** The longest payload printed in a text line; `--json` prints it whole. */
const MAX_PAYLOAD_CHARS = 200

export type Activity =
  | { type: 'listening'; baseUrl: string; apiKey: 'any' | 'one'; seeded: Record<string, number> }
  | { type: 'request'; method: string; path: string; status: number | 'dropped'; ms: number }
  | {
      type: 'message'
      sent: boolean
      channel: string
      subscriberId: string
      to?: string
      workflow: string
      stepId: string
      transactionId: string
      /** For a message not sent: the job's status and its last execution detail. */
      reason?: string
      payload: Record<string, unknown>
    }
  | { type: 'reset'; by: string }
  | { type: 'stopped'; by: string }

export class ActivityLog {
  readonly #fake: FakeService
  readonly #write: (line: string) => void
  readonly #json: boolean
  readonly #printed = new Set<string>()

  constructor(fake: FakeService, write: (line: string) => void, json: boolean) {
    this.#fake = fake
    this.#write = write
    this.#json = json
  }

  print(activity: Activity): void {
    const line = this.#json ? JSON.stringify({ time: new Date().toISOString(), ...activity }) : text(activity)
    this.#write(line)
  }

  /**
   * Prints the channel jobs that settled since the last scan. Returns whether a job still waits
   * (a delay or a digest): the caller scans again later, since the fake runs due jobs only when asked.
   */
  scan(): boolean {
    let waiting = false
    for (const notification of this.#fake.notifications) {
      for (const job of notification.jobs) {
        if (WAITING.includes(job.status)) {
          waiting = true
          continue
        }
        if (!CHANNELS.includes(job.type) || job.status === 'merged' || this.#printed.has(job._id)) continue
        this.#printed.add(job._id)
        this.print(message(notification, job))
      }
    }
    return waiting
  }

  /** After a reset: the fake's notifications are gone, and new ones may reuse nothing, but start clean. */
  forget(): void {
    this.#printed.clear()
  }
}

function message(notification: FakeNotification, job: FakeJob): Activity {
  const { subscriber } = notification
  const to = job.type === 'email' ? subscriber.email : job.type === 'sms' ? subscriber.phone : undefined
  const sent = job.status === 'completed'
  const detail = job.executionDetails.at(-1)?.detail
  return {
    type: 'message',
    sent,
    channel: job.type,
    subscriberId: subscriber.subscriberId,
    ...(to ? { to } : {}),
    workflow: job.overrides.workflowId,
    stepId: job.step.stepId,
    transactionId: notification.transactionId,
    ...(sent ? {} : { reason: detail ? `${job.status}: ${detail}` : job.status }),
    payload: job.payload,
  }
}

function text(activity: Activity): string {
  const time = new Date().toISOString().slice(11, 23)
  switch (activity.type) {
    case 'listening': {
      const seeded = Object.entries(activity.seeded)
        .filter(([, count]) => count > 0)
        .map(([kind, count]) => `${count} ${count === 1 ? kind.slice(0, -1) : kind}`)
      const key = activity.apiKey === 'any' ? 'any API key accepted' : 'one API key accepted'
      return `listening on ${activity.baseUrl} (${[key, ...seeded].join(', ')})`
    }
    case 'request':
      return `${time} ${activity.method} ${activity.path} ${activity.status} ${activity.ms}ms`
    case 'message': {
      const recipient = activity.to ? `${activity.subscriberId} <${activity.to}>` : activity.subscriberId
      const outcome = activity.sent ? 'sent' : 'not sent'
      const where = `${activity.workflow}/${activity.stepId} ${activity.transactionId}`
      const tail = activity.sent ? `payload ${clip(JSON.stringify(activity.payload))}` : activity.reason
      return `${time}   ${outcome} ${activity.channel} to ${recipient} · ${where} · ${tail}`
    }
    case 'reset':
      return `${time} reset (${activity.by}): requests, notifications and messages forgotten, seeds kept`
    case 'stopped':
      return `${time} stopped (${activity.by})`
  }
}

function clip(value: string): string {
  return value.length <= MAX_PAYLOAD_CHARS ? value : `${value.slice(0, MAX_PAYLOAD_CHARS - 1)}…`
}
