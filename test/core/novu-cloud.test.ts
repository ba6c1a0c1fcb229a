import { ServerList } from '@novu/api/lib/config.js'
import { describe, expect, it } from 'vitest'
import { NOVU_CLOUD_BASE_URLS, NotificationClient } from '../../src/index.js'

describe('NOVU_CLOUD_BASE_URLS', () => {
  it('are the servers the official SDK lists: the US region first, its default, then the EU', () => {
    expect([NOVU_CLOUD_BASE_URLS.us, NOVU_CLOUD_BASE_URLS.eu]).toEqual([...ServerList])
  })

  it('are base URLs a client sends to as they are, no path added before the operation', async () => {
    for (const baseUrl of Object.values(NOVU_CLOUD_BASE_URLS)) {
      const urls: string[] = []
      const fetch = async (input: string | URL | Request) => {
        urls.push(String(input instanceof Request ? input.url : input))
        return Response.json(
          { data: { acknowledged: true, status: 'processed', transactionId: 't' } },
          { status: 201 },
        )
      }
      const client = new NotificationClient({ apiKey: 'k', baseUrl, fetch })
      await client.events.trigger({ name: 'welcome', to: 'u1' })
      expect(urls).toEqual([`${baseUrl}/v1/events/trigger`])
    }
  })
})
