import { getResponse } from 'msw'
import { Agent, request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { type FakeServer, serveFetchHandler } from '../../../src/testing/index.js'
import { createMswDispatcher, fakeHandlers } from '../../../src/testing/msw/index.js'
import { API_KEY, seededFake } from '../../helpers/fake.js'

const headers = { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' }
const body = JSON.stringify({ name: 'welcome', to: 'alice' })

describe('fake.dispatcher', () => {
  it('answers undici requests in memory', async () => {
    const fake = seededFake()
    const response = await request('https://fake.test/v1/events/trigger', {
      method: 'POST',
      headers,
      body,
      dispatcher: fake.dispatcher,
    })
    expect(response.statusCode).toBe(201)
    expect(await response.body.json()).toMatchObject({ data: { status: 'processed' } })
    expect(fake.notifications).toHaveLength(1)
  })

  it('turns a dropped connection into a socket error', async () => {
    const fake = seededFake()
    fake.failNext({ dropConnection: true })
    await expect(
      request('https://fake.test/v1/notifications/000000000000000000000000', {
        headers,
        dispatcher: fake.dispatcher,
      }),
    ).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' })
  })
})

describe('fakeHandlers(fake)', () => {
  it('serve the nine routes on any origin through msw', async () => {
    const fake = seededFake()
    const response = await request('https://anything.example/v1/events/trigger', {
      method: 'POST',
      headers,
      body,
      dispatcher: createMswDispatcher(fakeHandlers(fake)),
    })
    expect(response.statusCode).toBe(201)
    await response.body.dump()
    expect(fakeHandlers(fake)).toHaveLength(9)
  })

  it('leave other paths to other handlers', async () => {
    const fake = seededFake()
    expect(await getResponse(fakeHandlers(fake), new Request('https://x.test/v1/other'))).toBeUndefined()
    const encoded = await getResponse(
      fakeHandlers(fake),
      new Request('https://x.test/v1/subscribers/a%2Fb/messages/mark-all', {
        method: 'POST',
        headers,
        body: '{}',
      }),
    )
    // matched the mark-all route: its missing markAs is the server's 422
    expect(encoded?.status).toBe(422)
  })
})

describe('fake.listen', () => {
  let server: FakeServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('serves the fake on 127.0.0.1 over a real socket', async () => {
    const fake = seededFake()
    server = await fake.listen()
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const triggered = await request(`${server.baseUrl}/v1/events/trigger`, { method: 'POST', headers, body })
    expect(triggered.statusCode).toBe(201)
    // The server sends no request id header (its id is inside the result's activityFeedLink).
    expect(triggered.headers['x-request-id']).toBeUndefined()
    await triggered.body.dump()
    const id = fake.notifications[0]?._id
    const read = await request(`${server.baseUrl}/v1/notifications/${id}`, { headers })
    expect(await read.body.json()).toMatchObject({ data: { _id: id } })
  })

  it('drops the socket without answering for a dropped-connection fault', async () => {
    const fake = seededFake()
    server = await fake.listen()
    fake.failNext({ dropConnection: true })
    await expect(
      request(`${server.baseUrl}/v1/notifications/000000000000000000000000`, { headers }),
    ).rejects.toMatchObject({
      code: 'UND_ERR_SOCKET',
    })
  })

  it('closes idle keep-alive connections on close()', async () => {
    const fake = seededFake()
    server = await fake.listen()
    const agent = new Agent({ keepAliveTimeout: 60_000 })
    const response = await request(`${server.baseUrl}/v1/notifications/000000000000000000000000`, {
      headers,
      dispatcher: agent,
    })
    await response.body.dump()
    const started = Date.now()
    await server.close()
    server = undefined
    expect(Date.now() - started).toBeLessThan(1000)
    await agent.close()
  })
})

describe('serveFetchHandler', () => {
  it('answers 404 when the handler answers nothing', async () => {
    const served = await serveFetchHandler(() => undefined)
    try {
      const response = await request(`${served.baseUrl}/x`)
      expect(response.statusCode).toBe(404)
      await response.body.dump()
    } finally {
      await served.close()
    }
  })
})
