import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import {
  type BroadcastEventParams,
  NotificationClient,
  RequestValidationError,
  UnprocessableEntityError,
} from '../../../src/index.js'
import { createMswDispatcher } from '../../../src/testing/msw/index.js'
import { rejectionOf } from '../../helpers/wire.js'

const BASE_URL = 'https://api.test'
const BROADCAST_URL = `${BASE_URL}/v1/events/trigger/broadcast`

interface Seen {
  method: string
  url: string
  headers: Headers
  body: unknown
}

function broadcastServer(answer: () => Response) {
  const seen: Seen[] = []
  const dispatcher = createMswDispatcher([
    http.all(`${BASE_URL}/*`, async ({ request }) => {
      const text = await request.text()
      seen.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      })
      return request.url === BROADCAST_URL && request.method === 'POST'
        ? answer()
        : HttpResponse.json({ statusCode: 404, message: 'no such route' }, { status: 404 })
    }),
  ])
  const client = new NotificationClient({
    apiKey: 'secret-key',
    baseUrl: BASE_URL,
    dispatcher,
    maxRetries: 0,
  })
  return { client, seen }
}

const processed = {
  acknowledged: true,
  status: 'processed',
  transactionId: 'tx-announce',
  activityFeedLink: '/activities/1',
}

describe('events.broadcast', () => {
  it.each([200, 201])('posts the event to the broadcast path and resolves on %i', async (status) => {
    const server = broadcastServer(() => HttpResponse.json({ data: processed }, { status }))
    const params = {
      name: 'maintenance',
      payload: { startsAt: '2026-12-01T22:00:00Z', minutes: 30 },
      overrides: { email: { subject: 'Planned maintenance' } },
      transactionId: 'tx-announce',
      actor: 'ops-bot',
      tenant: { identifier: 'acme' },
    }

    const { data, response } = await server.client.events
      .broadcast(params, { idempotencyKey: 'maintenance-2026-12-01' })
      .withResponse()

    expect(data).toEqual(processed)
    expect(response.status).toBe(status)
    expect(server.seen).toHaveLength(1)
    const [request] = server.seen
    expect(request?.method).toBe('POST')
    expect(request?.url).toBe(BROADCAST_URL)
    expect(request?.body).toEqual(params)
    expect(request?.headers.get('authorization')).toBe('ApiKey secret-key')
    expect(request?.headers.get('content-type')).toBe('application/json')
    expect(request?.headers.get('idempotency-key')).toBe('maintenance-2026-12-01')
  })

  it('sends a generated idempotency key when the caller gives none', async () => {
    const server = broadcastServer(() => HttpResponse.json({ data: processed }, { status: 201 }))
    const { response } = await server.client.events
      .broadcast({ name: 'maintenance', payload: {} })
      .withResponse()
    expect(server.seen[0]?.headers.get('idempotency-key')).toBe(response.idempotencyKey)
    expect(response.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('refuses a broadcast without a payload before sending it', async () => {
    const server = broadcastServer(() => HttpResponse.json({ data: processed }, { status: 201 }))
    const withoutPayload = { name: 'maintenance' } as unknown as BroadcastEventParams
    const error = await rejectionOf(server.client.events.broadcast(withoutPayload))

    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([['payload']])
    expect(server.seen).toHaveLength(0)
  })

  it('refuses recipients: a broadcast goes to every subscriber', async () => {
    const server = broadcastServer(() => HttpResponse.json({ data: processed }, { status: 201 }))
    const withRecipients = { name: 'maintenance', payload: {}, to: 'user-1' } as BroadcastEventParams
    const error = await rejectionOf(server.client.events.broadcast(withRecipients))

    expect(error).toBeInstanceOf(RequestValidationError)
    expect(error).toHaveProperty('message', expect.stringContaining('to'))
    expect(server.seen).toHaveLength(0)
  })

  it('raises the API error the server answers with', async () => {
    const server = broadcastServer(() =>
      HttpResponse.json(
        { statusCode: 422, message: 'workflow_not_found', error: 'Unprocessable Entity' },
        { status: 422 },
      ),
    )
    const error = await rejectionOf(server.client.events.broadcast({ name: 'nope', payload: {} }))

    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect((error as UnprocessableEntityError).message).toContain('workflow_not_found')
    expect(server.seen).toHaveLength(1)
  })
})
