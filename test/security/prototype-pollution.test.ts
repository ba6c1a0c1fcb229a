import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { BadRequestError, NotificationClient } from '../../src/index.js'
import { silentLogger } from '../helpers/logs.js'
import { startServer, type TestServer } from '../helpers/servers.js'
import { nodeFetch, TRANSPORTS, type TransportName } from '../helpers/transport.js'
import { countingConnection, settle } from '../helpers/wire.js'

type Mode = 'lenient' | 'strict' | 'off'
const MODES: Mode[] = ['lenient', 'strict', 'off']

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype, String.prototype]
const ownNamesBefore = PROTOTYPES.map((prototype) => Object.getOwnPropertyNames(prototype).sort())

/** Nothing was added to, or changed on, the built-in prototypes. */
function expectNoPollution(): void {
  PROTOTYPES.forEach((prototype, index) => {
    expect(Object.getOwnPropertyNames(prototype).sort()).toEqual(ownNamesBefore[index])
  })
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(({} as Record<string, unknown>).acknowledged).toBeUndefined()
  expect(Object.prototype.toString).toBe(Object.prototype.toString)
  expect(typeof Object.prototype.hasOwnProperty).toBe('function')
}

/** A plain object with Object.prototype as its prototype, and the hostile key kept as its own data. */
function expectPlainWithOwnKey(value: unknown, key: string): void {
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
  expect(Object.hasOwn(value as object, key)).toBe(true)
  expect((value as Record<string, unknown>).polluted).toBeUndefined()
}

function answeringOver(transport: TransportName, body: string, mode: Mode, status = 200) {
  const { connection } = countingConnection(
    () => new Response(body, { status, headers: { 'content-type': 'application/json' } }),
    transport,
  )
  return new NotificationClient({
    apiKey: 'key',
    baseUrl: 'https://api.test',
    ...connection,
    maxRetries: 0,
    responseValidation: mode,
    logger: silentLogger,
  })
}

const HOSTILE = '{"polluted":"yes","acknowledged":false}'

describe.each(TRANSPORTS)('over %s', (transport) => {
  const answering = (body: string, mode: Mode, status?: number) =>
    answeringOver(transport, body, mode, status)

  describe('__proto__, constructor and prototype keys in responses', () => {
    afterEach(() => {
      expectNoPollution()
    })

    it.each(MODES)('in a notification, at every level (%s validation)', async (mode) => {
      const body = `{"data":{
        "_id":"n1","_environmentId":"e1","_organizationId":"o1","_subscriberId":"s1","transactionId":"t1",
        "__proto__":${HOSTILE},
        "constructor":{"prototype":${HOSTILE}},
        "prototype":${HOSTILE},
        "payload":{"__proto__":${HOSTILE}},
        "jobs":[{"_id":"j1","__proto__":${HOSTILE},
          "step":{"__proto__":${HOSTILE},"variants":[{"__proto__":${HOSTILE}}]}}]
      }}`
      const notification = (await answering(body, mode).notifications.get('n1')) as unknown as Record<
        string,
        unknown
      >
      expectPlainWithOwnKey(notification, '__proto__')
      expect(Object.hasOwn(notification, 'constructor')).toBe(true)
      expect(notification.constructor).toEqual({ prototype: JSON.parse(HOSTILE) })
      expectPlainWithOwnKey(notification.payload, '__proto__')
      const job = (notification.jobs as Record<string, unknown>[])[0] as Record<string, unknown>
      expectPlainWithOwnKey(job, '__proto__')
      const step = job.step as Record<string, unknown>
      expectPlainWithOwnKey(step, '__proto__')
      expectPlainWithOwnKey((step.variants as unknown[])[0], '__proto__')
    })

    it.each(MODES)(
      'as the only other key beside data, which is then no envelope (%s validation)',
      async (mode) => {
        const body = `{"__proto__":{"data":true},"data":{"acknowledged":true,"status":"processed","transactionId":"t1"}}`
        const outcome = await settle(answering(body, mode).events.trigger({ name: 'w', to: 'u1' }))
        // Not an envelope: the whole object is the result, or (strict) refused for its shape.
        if (outcome.ok) expectPlainWithOwnKey(outcome.value, '__proto__')
        else expect(mode).toBe('strict')
      },
    )

    it.each(MODES)(
      'in a trigger result, where a hostile prototype would flip `acknowledged` (%s validation)',
      async (mode) => {
        const body = `{"data":{"status":"processed","transactionId":"t1","__proto__":${HOSTILE}}}`
        const outcome = await settle(answering(body, mode).events.trigger({ name: 'w', to: 'u1' }))
        if (!outcome.ok) return expect(mode).toBe('strict')
        expectPlainWithOwnKey(outcome.value, '__proto__')
        expect(outcome.value.acknowledged).toBeUndefined()
      },
    )

    it.each(MODES)('in bulk results (%s validation)', async (mode) => {
      const body = `{"data":[{"acknowledged":true,"status":"processed","__proto__":${HOSTILE}}]}`
      const results = await answering(body, mode).events.triggerBulk([{ name: 'w', to: 'u1' }])
      expectPlainWithOwnKey(results[0], '__proto__')
    })

    it('in an error body: the error keeps its class and the body its keys', async () => {
      const body = `{"__proto__":{"message":"from the prototype"},"constructor":{"name":"Evil"},"message":"bad"}`
      const outcome = await settle(answering(body, 'lenient', 400).events.cancel('t1'))
      const error = outcome.ok ? undefined : (outcome.error as BadRequestError)
      expect(error).toBeInstanceOf(BadRequestError)
      expect(Object.getPrototypeOf(error)).toBe(BadRequestError.prototype)
      expect(error?.message).toBe('400 bad')
      expectPlainWithOwnKey(error?.body, '__proto__')
    })

    it('in a request payload: nothing is polluted on the way out', async () => {
      const { connection, sent } = countingConnection(
        () =>
          Response.json(
            { data: { acknowledged: true, status: 'processed', transactionId: 't1' } },
            { status: 201 },
          ),
        transport,
      )
      const client = new NotificationClient({ apiKey: 'key', baseUrl: 'https://api.test', ...connection })
      const payload = JSON.parse(`{"a":1,"__proto__":${HOSTILE},"constructor":{"prototype":${HOSTILE}}}`)
      await client.events.trigger({ name: 'w', to: 'u1', payload })
      const sentBody = JSON.parse(await (sent[0] as Request).text())
      expect(sentBody.payload.a).toBe(1)
      expect(sentBody.payload.constructor).toEqual({ prototype: JSON.parse(HOSTILE) })
    })
  })

  describe('hostile header names in responses', () => {
    let server: TestServer
    let client: NotificationClient

    beforeAll(async () => {
      server = await startServer((request, response) => {
        response.setHeader('__proto__', 'polluted')
        response.setHeader('constructor', 'polluted')
        response.setHeader('prototype', 'polluted')
        response.writeHead(request.url?.endsWith('/fail') ? 400 : 200, { 'content-type': 'application/json' })
        response.end(request.url?.endsWith('/fail') ? '{"message":"no"}' : '{"data":true}')
      })
      const connection = transport === 'fetch' ? { fetch: nodeFetch } : {}
      client = new NotificationClient({
        apiKey: 'key',
        baseUrl: server.baseUrl,
        maxRetries: 0,
        ...connection,
      })
    })
    afterAll(async () => {
      await client.close()
      await server.close()
    })

    // Over fetch the headers object is built by definition, not assignment: assigning would drop
    // `__proto__` and read `constructor` back from Object.prototype.
    it('are kept as headers on withResponse() and on errors, and pollute nothing', async () => {
      const { response } = await client.events.cancel('ok').withResponse()
      expect(Object.getPrototypeOf(response.headers)).toBe(Object.prototype)
      expect(Object.hasOwn(response.headers, '__proto__')).toBe(true)
      expect(response.headers.constructor).toBe('polluted')
      const outcome = await settle(client.events.cancel('fail'))
      const error = outcome.ok ? undefined : (outcome.error as BadRequestError)
      expect(error).toBeInstanceOf(BadRequestError)
      expect(error?.headers.prototype).toBe('polluted')
      expectNoPollution()
    })
  })
})
