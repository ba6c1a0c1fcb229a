import { describe, expect, it } from 'vitest'
import { TriggerNotSentError } from '../../src/index.js'
import { captureLogs } from '../helpers/logs.js'
import { answeringClient, json, rejectionOf } from '../helpers/wire.js'

// Where the request id comes from. The 2026 server sends no request-id header: its id (`req_` and an
// ObjectId, apps/api/src/app/shared/middleware/request-id.middleware.ts) is only inside a trigger's
// answer, as the `selectedLogId` of `activityFeedLink` (parse-event-request.usecase.ts, since
// 0a1dbeafc1 "feat(api-service): add activity feed link to trigger response (#9430)"), whose origin
// is the server's dashboard setting (`undefined` where it has none).

const REQUEST_ID = 'req_6804b2f1c3a9e70012345678'
const link = (origin: string, id = REQUEST_ID) =>
  `${origin}/env/6615a0b1c2d3e4f500000001/activity/requests?selectedLogId=${id}`
const processed = (extra: Record<string, unknown> = {}) => ({
  acknowledged: true,
  status: 'processed',
  transactionId: 'txn_6804b2f1c3a9e700abcdef01',
  ...extra,
})

async function responseOf(data: unknown, headers: Record<string, string> = {}) {
  const { client } = answeringClient(() => json({ data }, 201, headers))
  return (await client.events.trigger({ name: 'welcome', to: 'user-1' }).withResponse()).response
}

describe('withResponse().response.requestId', () => {
  it('is the selectedLogId of the answer’s activityFeedLink, before any header', async () => {
    const response = await responseOf(processed({ activityFeedLink: link('https://dashboard.novu.co') }), {
      'x-request-id': 'from-a-proxy',
    })
    expect(response.requestId).toBe(REQUEST_ID)
  })

  it('reads the link whatever its origin, with the id among other parameters, percent-decoded', async () => {
    expect((await responseOf(processed({ activityFeedLink: link('undefined') }))).requestId).toBe(REQUEST_ID)
    const amid = 'https://eu.dashboard.novu.co/env/e/activity/requests?tab=logs&selectedLogId=req_a%2Bb#top'
    expect((await responseOf(processed({ activityFeedLink: amid }))).requestId).toBe('req_a+b')
  })

  it('falls back to a proxy’s x-request-id only when the answer has no link; else undefined', async () => {
    expect((await responseOf(processed(), { 'x-request-id': 'proxy-1' })).requestId).toBe('proxy-1')
    expect(
      (await responseOf(processed({ activityFeedLink: 'https://d/env/e/activity' }))).requestId,
    ).toBeUndefined()
    expect((await responseOf(processed({ activityFeedLink: 42 }))).requestId).toBeUndefined()
    expect((await responseOf(processed())).requestId).toBeUndefined()
  })

  it('of a bulk: the first event’s link that has one (one request, one id)', async () => {
    const { client } = answeringClient(() =>
      json(
        {
          data: [
            processed({ transactionId: 'txn_1' }),
            processed({ transactionId: 'txn_2', activityFeedLink: link('https://dashboard.novu.co') }),
          ],
        },
        201,
      ),
    )
    const { response } = await client.events
      .triggerBulk([
        { name: 'welcome', to: 'user-1', payload: {} },
        { name: 'welcome', to: 'user-2', payload: {} },
      ])
      .withResponse()
    expect(response.requestId).toBe(REQUEST_ID)
  })
})

describe('the debug line of an attempt', () => {
  it('names the request id of the answer’s link', async () => {
    const logs = captureLogs()
    const { client } = answeringClient(
      () => json({ data: processed({ activityFeedLink: link('https://dashboard.novu.co') }) }, 201),
      { logger: logs.logger, logLevel: 'debug' },
    )
    await client.events.trigger({ name: 'welcome', to: 'user-1' })
    const attempt = logs.lines.find((line) => line.details?.status === 201)
    expect(attempt?.details?.requestId).toBe(REQUEST_ID)
    expect(attempt?.message).toContain(`(attempt 1, request ${REQUEST_ID})`)
  })
})

describe('an error’s requestId', () => {
  it('a TriggerNotSentError has the id of the answer that says nothing was sent', async () => {
    const { client } = answeringClient(() =>
      json(
        {
          data: {
            acknowledged: true,
            status: 'trigger_not_active',
            transactionId: 'txn_1',
            activityFeedLink: link('https://dashboard.novu.co'),
          },
        },
        201,
      ),
    )
    const error = (await rejectionOf(
      client.events.trigger({ name: 'welcome', to: 'user-1' }),
    )) as TriggerNotSentError
    expect(error).toBeInstanceOf(TriggerNotSentError)
    expect(error.requestId).toBe(REQUEST_ID)
  })
})
