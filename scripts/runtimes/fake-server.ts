// The Node side of one runtime's run: the fake service from the repo's `notifykit/testing`, served on
// 127.0.0.1 behind a few routes of the matrix's own (a 503 once per idempotency key, a redirect and
// its target), each recording what it saw for the checks after the run.
import { createFakeService, type FakeService, serveFetchHandler } from 'notifykit/testing'
import {
  BROADCAST_WORKFLOW,
  BULK_WORKFLOW,
  DELAYED_WORKFLOW,
  FLAKY_PREFIX,
  REDIRECT_PREFIX,
  REDIRECT_TARGET_PREFIX,
  SUBSCRIBER_ID,
  WELCOME_WORKFLOW,
} from './protocol.js'

export interface ServerRecords {
  /** The idempotency key of every request under FLAKY_PREFIX, in order ('' for none). */
  flakyKeys: string[]
  redirectHits: number
  redirectTargetHits: number
}

export interface MatrixServer {
  baseUrl: string
  fake: FakeService
  records: ServerRecords
  notificationId: string
  close(): Promise<void>
}

export async function startMatrixServer(apiKey: string): Promise<MatrixServer> {
  const fake = createFakeService({
    apiKey,
    workflows: [
      { identifier: WELCOME_WORKFLOW, steps: [{ type: 'in_app' }, { type: 'email' }] },
      {
        identifier: DELAYED_WORKFLOW,
        steps: [{ type: 'delay', amount: 1, unit: 'hours' }, { type: 'email' }],
      },
      { identifier: BULK_WORKFLOW, steps: [{ type: 'in_app' }] },
      { identifier: BROADCAST_WORKFLOW, steps: [{ type: 'in_app' }] },
    ],
    subscribers: [{ subscriberId: SUBSCRIBER_ID, email: 'matrix@example.com' }],
  })
  const notificationId = await seedNotification(fake, apiKey)
  const records: ServerRecords = { flakyKeys: [], redirectHits: 0, redirectTargetHits: 0 }
  const served = await serveFetchHandler((request) => route(request, fake, records))
  return { baseUrl: served.baseUrl, fake, records, notificationId, close: () => served.close() }
}

async function route(request: Request, fake: FakeService, records: ServerRecords): Promise<Response> {
  const url = new URL(request.url)
  if (url.pathname.startsWith(REDIRECT_TARGET_PREFIX)) {
    records.redirectTargetHits++
    return Response.json({ data: { acknowledged: true, status: 'processed', transactionId: 'followed' } })
  }
  if (url.pathname.startsWith(REDIRECT_PREFIX)) {
    records.redirectHits++
    const target = new URL(REDIRECT_TARGET_PREFIX + url.pathname.slice(REDIRECT_PREFIX.length), url)
    // The key echoed in the body and a header: the SDK must scrub it from the error it makes of this.
    const sent = request.headers.get('authorization') ?? ''
    return Response.json(
      { statusCode: 307, message: `Moved; you sent ${sent}`, error: 'Temporary Redirect' },
      { status: 307, headers: { location: target.href, 'x-echo-authorization': sent } },
    )
  }
  if (url.pathname.startsWith(FLAKY_PREFIX)) {
    const key = request.headers.get('idempotency-key') ?? ''
    const firstTime = !records.flakyKeys.includes(key)
    records.flakyKeys.push(key)
    if (firstTime) {
      return Response.json(
        { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable' },
        { status: 503, headers: { 'retry-after': '0' } },
      )
    }
    return fake.handle(await withPath(request, url.pathname.slice(FLAKY_PREFIX.length)))
  }
  return fake.handle(request)
}

async function withPath(request: Request, path: string): Promise<Request> {
  const url = new URL(request.url)
  url.pathname = path
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text()
  return new Request(url, { method: request.method, headers: request.headers, body })
}

/** A notification made before the runtime starts, for the scenario's `notifications.get`. */
async function seedNotification(fake: FakeService, apiKey: string): Promise<string> {
  const response = await fake.handle(
    new Request('http://127.0.0.1/v1/events/trigger', {
      method: 'POST',
      headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: WELCOME_WORKFLOW, to: SUBSCRIBER_ID, payload: { step: 'seed' } }),
    }),
  )
  const notification = fake.notifications[0]
  if (response.status !== 201 || !notification) {
    throw new Error(`seeding a notification failed: ${response.status} ${await response.text()}`)
  }
  return notification._id
}

/** A loopback port that was free a moment ago and is closed now: connecting to it is refused. */
export async function refusedLoopbackUrl(): Promise<string> {
  const server = await serveFetchHandler(() => new Response(null, { status: 500 }))
  await server.close()
  return server.baseUrl
}
