import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError, NotificationClient } from '../../src/index.js'
import { silentLogger } from '../helpers/logs.js'
import { CANARY_KEY } from '../helpers/secrets.js'
import { startServer, type TestServer } from '../helpers/servers.js'
import { settle } from '../helpers/wire.js'

describe('redirects are never followed', () => {
  let elsewhere: TestServer
  let origin: TestServer
  let client: NotificationClient

  beforeAll(async () => {
    // Stands for another host: any request reaching it would carry the key there.
    elsewhere = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('{"data":true}')
    })
    origin = await startServer((request, response) => {
      // The status to answer sits in the path: `/v1/events/trigger/302` or `/307/v1/events/trigger`.
      const status = Number(request.url?.split('/').find((segment) => /^3\d\d$/.test(segment)) ?? 500)
      response.writeHead(status, { location: `${elsewhere.baseUrl}/v1/events/trigger/stolen` })
      response.end()
    })
    client = new NotificationClient({
      apiKey: CANARY_KEY,
      baseUrl: origin.baseUrl,
      logger: silentLogger,
    })
  })
  afterAll(async () => {
    await client.close()
    await origin.close()
    await elsewhere.close()
  })

  it.each([301, 302, 303, 307, 308])(
    'a %i is an ApiError after one attempt; the Location is never contacted',
    async (status) => {
      const outcome = await settle(client.events.cancel(String(status)))
      const error = outcome.ok ? undefined : (outcome.error as ApiError)
      expect(error).toBeInstanceOf(ApiError)
      expect(error?.status).toBe(status)
      expect(error?.headers.location).toBe(`${elsewhere.baseUrl}/v1/events/trigger/stolen`)
      expect(error?.attempts).toBe(1)
      expect(elsewhere.received).toHaveLength(0)
    },
  )

  it('the same holds for a POST carrying a body', async () => {
    const outcome = await settle(
      client.withOptions({ baseUrl: `${origin.baseUrl}/307` }).events.trigger({ name: 'w', to: 'u' }),
    )
    expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(ApiError)
    expect(elsewhere.received).toHaveLength(0)
  })
})
