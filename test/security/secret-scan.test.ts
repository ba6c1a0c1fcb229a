import { inspect } from 'node:util'
import { HttpResponse } from 'msw'
import { MockAgent } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ApiError,
  type Logger,
  NotificationClient,
  type NotificationClientOptions,
  NotifyKitError,
} from '../../src/index.js'
import { captureLogs } from '../helpers/logs.js'
import { CANARY_KEY, expectNoSecret, renderings } from '../helpers/secrets.js'
import { startServer, type TestServer } from '../helpers/servers.js'
import { nodeFetch, TRANSPORTS } from '../helpers/transport.js'
import { inMemory, settle } from '../helpers/wire.js'

/** Every error class the SDK has: the scan must have seen each one. */
const ALL_ERROR_CLASSES = [
  'NotifyKitError',
  'ApiError',
  'BadRequestError',
  'AuthenticationError',
  'PermissionDeniedError',
  'NotFoundError',
  'ConflictError',
  'UnprocessableEntityError',
  'RateLimitError',
  'InternalServerError',
  'ConnectionError',
  'TimeoutError',
  'AbortError',
  'RequestValidationError',
  'ResponseValidationError',
  'ResponseTooLargeError',
  'BulkTriggerError',
]

const TRIGGERED = { acknowledged: true, status: 'processed', transactionId: 't1' }

describe.each(TRANSPORTS)('over %s', (transport) => {
  /** Node's fetch over the real socket, or the client's own undici Agent. */
  const overSocket = transport === 'fetch' ? { fetch: nodeFetch } : {}

  describe('the API key never leaks', () => {
    let server: TestServer
    const calls = new Map<string, number>()

    beforeAll(async () => {
      server = await startServer((request, response) => {
        const id = decodeURIComponent(request.url?.split('/').at(-1) ?? '')
        const count = (calls.get(id) ?? 0) + 1
        calls.set(id, count)
        const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
          response.writeHead(status, { 'content-type': 'application/json', ...headers })
          response.end(JSON.stringify(body))
        }
        const status = /^status-(\d+)$/.exec(id)?.[1]
        if (status) {
          const code = Number(status)
          return json(code, { statusCode: code, message: `failure ${code}`, error: 'Error' })
        }
        switch (id) {
          case 'bulk':
            return json(422, { statusCode: 422, message: 'workflow_not_found' })
          case 'flaky':
            // Fails once, asking for a 1 ms wait: a retry, logged at info.
            return count === 1
              ? json(503, { message: 'busy' }, { 'retry-after-ms': '1' })
              : json(200, { data: true })
          case 'drift':
            return json(200, { data: { _id: 42, _environmentId: 'e1' } })
          case 'missing':
            return json(200, { data: null })
          case 'not-json':
            response.writeHead(200, { 'content-type': 'application/json' })
            return response.end('<html>oops</html>')
          case 'big':
            return json(200, { data: 'x'.repeat(10_000) })
          case 'redirect':
            response.writeHead(302, { location: 'https://elsewhere.test/' })
            return response.end()
          case 'reset':
            return request.socket.destroy()
          case 'hang':
            return
          default:
            return json(200, { data: true })
        }
      })
    })
    afterAll(async () => {
      await server.close()
    })

    it('not in any log line, error, cause, withResponse() result or client rendering, on every error path', async () => {
      const logs = captureLogs()
      const { logger } = logs

      const options: NotificationClientOptions = {
        apiKey: CANARY_KEY,
        baseUrl: server.baseUrl,
        logger,
        logLevel: 'debug',
        logBodies: true,
        maxRetries: 0,
        timeoutMs: 300,
        maxResponseBytes: 1_024,
        ...overSocket,
      }
      const client = new NotificationClient(options)
      const artifacts: unknown[] = [client, client.events, client.subscribers, client.notifications]
      const errors: unknown[] = []
      const attempt = async (promise: PromiseLike<unknown>) => {
        const outcome = await settle(promise)
        if (outcome.ok) artifacts.push(outcome.value)
        else errors.push(outcome.error)
      }
      const construct = (overrides: NotificationClientOptions) => {
        try {
          artifacts.push(new NotificationClient({ ...options, ...overrides }))
        } catch (error) {
          errors.push(error)
        }
      }

      // Configuration errors, with the key where it does not belong.
      construct({ apiKey: `${CANARY_KEY}\r\nx-injected: 1` })
      construct({ apiKey: ` ${CANARY_KEY}` })
      construct({ baseUrl: `https://user:${CANARY_KEY}@api.test` })
      construct({ baseUrl: `https://api.test/?key=${CANARY_KEY}` })
      construct({ defaultHeaders: { 'x-api-key': `${CANARY_KEY}\n` } })

      // Every status family, and a redirect.
      for (const status of [400, 401, 403, 404, 409, 418, 422, 429, 500, 502]) {
        await attempt(client.events.cancel(`status-${status}`))
      }
      await attempt(client.events.cancel('redirect'))

      // A retry (logged at info), then success; withResponse() objects are scanned too.
      await attempt(client.withOptions({ maxRetries: 1 }).events.cancel('flaky').withResponse())
      await attempt(
        client.events.trigger({ name: 'welcome', to: 'u1', payload: { note: 'hi' } }).withResponse(),
      )

      // Responses that do not fit: lenient drift (a warning), strict, not JSON, data: null, too large.
      await attempt(client.notifications.get('drift'))
      await attempt(client.withOptions({ responseValidation: 'strict' }).notifications.get('drift'))
      await attempt(client.events.cancel('not-json'))
      await attempt(client.notifications.get('missing'))
      await attempt(client.events.cancel('big'))

      // No response: reset, timeout, the caller's abort, connection refused.
      await attempt(client.events.cancel('reset'))
      await attempt(client.events.cancel('hang'))
      await attempt(client.events.cancel('hang', { signal: AbortSignal.timeout(50) }))
      const refused = client.withOptions({ baseUrl: 'http://127.0.0.1:1' })
      await attempt(refused.events.cancel('t1'))
      await attempt(client.withOptions({ timeoutMs: 100 }).events.cancel('hang', { deadlineMs: 50 }))

      // Refused before sending: bad body, bad path parameter, bad headers, bad idempotency key.
      await attempt(client.events.trigger({ name: '', to: 'u1' }))
      await attempt(client.events.cancel('..'))
      await attempt(client.events.cancel('t1', { headers: { authorization: `ApiKey ${CANARY_KEY}` } }))
      await attempt(client.events.cancel('t1', { headers: { 'x-api-key': `${CANARY_KEY}\r\n` } }))
      await attempt(client.events.trigger({ name: 'w', to: 'u1' }, { idempotencyKey: `${CANARY_KEY}\n` }))
      await attempt(client.events.trigger({ name: 'w', to: 'u1' }, { idempotencyKey: 'k'.repeat(256) }))

      // A bulk call whose request fails.
      await attempt(client.events.triggerBulk([{ name: 'w', to: 'u1' }]))

      // Answers that never reach a real socket, for a write and a read each: an error status, a proxy's
      // HTML page, a dropped connection, a result of the wrong kind.
      const answers = [
        () =>
          HttpResponse.json(
            { statusCode: 401, message: 'API Key not found', error: 'Unauthorized' },
            { status: 401 },
          ),
        () => HttpResponse.text('<html>Bad gateway</html>', { status: 502 }),
        () => Response.error(),
        () => HttpResponse.json({ data: 'not an object' }, { status: 201 }),
      ]
      for (const answer of answers) {
        const answering = client.withOptions({
          baseUrl: 'https://api.test',
          ...inMemory(() => answer(), transport),
          responseValidation: 'strict',
        })
        await attempt(answering.events.trigger({ name: 'welcome', to: 'u1', payload: { note: 'hi' } }))
        await attempt(answering.notifications.get('n-1'))
      }

      // Senders that put the request headers into their errors: undici's MockAgent does (a dispatcher,
      // so undici only), and a user's own dispatcher or fetch may.
      const mockAgent = new MockAgent()
      mockAgent.disableNetConnect()
      mockAgent
        .get('https://api.test')
        .intercept({ path: '/v1/events/trigger/t1', method: 'DELETE', headers: { 'x-never': 'sent' } })
        .reply(200, { data: true })
      if (transport === 'undici') {
        await attempt(
          client.withOptions({ baseUrl: 'https://api.test', dispatcher: mockAgent }).events.cancel('t1'),
        )
      }
      const tattler = inMemory((request) => {
        const headers = Object.fromEntries(request.headers)
        const inner = new Error(`upstream refused ${JSON.stringify(headers)}`)
        throw new AggregateError([inner], `could not send with ${request.headers.get('authorization')}`, {
          cause: { request: { headers } },
        })
      }, transport)
      await attempt(client.withOptions({ baseUrl: 'https://api.test', ...tattler }).events.cancel('t1'))
      await mockAgent.close()
      await client.close()

      // The scan saw what it claims to have seen: every class, the key really sent, logs at every level.
      const classes = new Set(errors.map((error) => (error as Error).name))
      expect([...classes].sort()).toEqual(expect.arrayContaining(ALL_ERROR_CLASSES))
      expect(errors.every((error) => error instanceof NotifyKitError)).toBe(true)
      expect(
        server.received.some((request) => request.headers.authorization === `ApiKey ${CANARY_KEY}`),
      ).toBe(true)
      // One fewer over fetch: the MockAgent call is undici's alone.
      expect(errors).toHaveLength(transport === 'undici' ? 42 : 41)
      const levels = new Set(logs.lines.map((line) => line.level))
      expect([...levels].sort()).toEqual(['debug', 'info', 'warn'])
      expect(logs.lines.some((line) => line.rendered.includes('responseBody'))).toBe(true)
      expect(logs.retries()).not.toEqual([])

      const lines = logs.lines.map((line) => line.rendered)
      const leaks = [...lines, ...[...errors, ...artifacts].flatMap(renderings)].filter((text) =>
        text.includes(CANARY_KEY),
      )
      expect(leaks).toEqual([])
      // Nor an Authorization value with its scheme, the key replaced or not.
      expectNoSecret([...lines, ...errors.flatMap(renderings)], CANARY_KEY, { headerName: true })
    })

    it('a server that echoes the key back in headers, bodies and paths: replaced before it reaches logs, errors or results', async () => {
      const logs = captureLogs()
      let calls = 0
      // A server (or proxy) that echoes what it got, the Authorization header included.
      const echo = inMemory(async (request) => {
        calls++
        const authorization = request.headers.get('authorization') ?? ''
        const headers = { 'x-echo': authorization }
        if (request.url.endsWith('/fail')) {
          const body = { message: `invalid key ${authorization}`, [authorization]: authorization }
          return Response.json(body, { status: 401, headers })
        }
        const seen = { body: await request.text(), credentials: authorization }
        if (calls === 1)
          return Response.json(seen, { status: 503, headers: { ...headers, 'retry-after-ms': '0' } })
        const result = { acknowledged: true, status: 'processed', transactionId: authorization, echo: seen }
        return Response.json({ data: result }, { status: 201, headers })
      }, transport)
      const client = new NotificationClient({
        apiKey: CANARY_KEY,
        baseUrl: 'https://api.test',
        ...echo,
        logger: logs.logger,
        logLevel: 'debug',
        logBodies: true,
      })

      // A 503 echoing the request, retried, then a 201 echoing it again, with the key in the payload.
      const succeeded = await client.events
        .trigger({ name: 'w', to: 'u1', payload: { note: `my key is ${CANARY_KEY}` } })
        .withResponse()
      expect(succeeded.data.transactionId).toBe('ApiKey [redacted]')
      const failed = await settle(client.events.cancel('fail'))
      const error = failed.ok ? undefined : (failed.error as ApiError)
      expect(error?.message).toMatch(/^401 invalid key ApiKey \[redacted\]; check the API key/)
      expect(error?.headers['x-echo']).toBe('ApiKey [redacted]')
      // The key as a path segment: the GET line and its drift warning carry it.
      await client.notifications.get(CANARY_KEY)

      expect(logs.countByLevel()).toEqual({ debug: 4, info: 1, warn: 1, error: 0 })
      // The probe sees what it should: bodies were logged, with the key replaced.
      expect(logs.lines.some((line) => line.rendered.includes('[redacted]'))).toBe(true)
      const lines = logs.lines.map((line) => line.rendered)
      const leaks = [...lines, ...renderings(error), ...renderings(succeeded)].filter((text) =>
        text.includes(CANARY_KEY),
      )
      expect(leaks).toEqual([])
      expectNoSecret(lines, CANARY_KEY, { headerName: false })
    })

    it('not in the client, its resources or a derived client, inspected or serialized', () => {
      const client = new NotificationClient({
        apiKey: CANARY_KEY,
        baseUrl: 'https://api.test',
        ...overSocket,
      })
      const derived = client.withOptions({ timeoutMs: 1_000 })
      expectNoSecret(
        [
          inspect(client, { depth: 10, showHidden: true }),
          inspect(client, { showHidden: true }),
          JSON.stringify(client),
          JSON.stringify({ nested: { client } }),
          String(client),
          inspect(client.events, { depth: 10 }),
          inspect(derived),
          inspect(derived, { depth: 10 }),
        ],
        CANARY_KEY,
        { headerName: false },
      )
    })
  })

  describe('log scrubbing', () => {
    it('a key holding a quote is also found in its JSON-escaped form', async () => {
      const key = 'sk_live_"quoted\\canary_123'
      const { logger, lines } = captureLogs()
      const echo = inMemory(
        (request) => Response.json({ message: request.headers.get('authorization') }, { status: 401 }),
        transport,
      )
      const client = new NotificationClient({
        apiKey: key,
        baseUrl: 'https://api.test',
        ...echo,
        logger,
        logLevel: 'debug',
        logBodies: true,
      })
      const outcome = await settle(client.events.cancel('t1'))
      const escaped = JSON.stringify(key).slice(1, -1)
      const texts = [
        ...lines.map((line) => line.rendered),
        ...renderings(outcome.ok ? undefined : outcome.error),
      ]
      expect(texts.filter((text) => text.includes(key) || text.includes(escaped))).toEqual([])
    })

    it('a key of exactly 16 characters, the shortest real key, echoed in a body and a header: scrubbed', async () => {
      const key = 'nk_16_chars_key!'
      expect(key).toHaveLength(16)
      const echo = inMemory((request) => {
        const authorization = request.headers.get('authorization') ?? ''
        const body = { message: `API Key ${key} not found`, key, [key]: authorization }
        return Response.json(body, { status: 401, headers: { 'x-echo': key, location: `/keys/${key}` } })
      }, transport)
      const client = new NotificationClient({ apiKey: key, baseUrl: 'https://api.test', ...echo })
      const outcome = await settle(client.events.cancel('t1'))
      const error = outcome.ok ? undefined : (outcome.error as ApiError)
      expect(error?.message).toContain('API Key [redacted] not found')
      expect(error?.headers['x-echo']).toBe('[redacted]')
      expect(error?.headers.location).toBe('/keys/[redacted]')
      expect(renderings(error).filter((text) => text.includes(key))).toEqual([])
    })

    it('a test key shorter than 16 characters is not looked for in responses', async () => {
      const notification = {
        _id: 'test-1',
        _environmentId: 'test',
        _organizationId: 'o',
        _subscriberId: 's',
        transactionId: 't',
      }
      const connection = inMemory(() => Response.json({ data: notification }), transport)
      const client = new NotificationClient({ apiKey: 'test', baseUrl: 'https://api.test', ...connection })
      await expect(client.notifications.get('n1')).resolves.toEqual(notification)
    })

    it('a test key of one character is replaced where it stands alone, without breaking words or details apart', async () => {
      const received: unknown[][] = []
      const logger: Logger = {
        debug: (...args) => received.push(args),
        info: (...args) => received.push(args),
        warn: (...args) => received.push(args),
        error: (...args) => received.push(args),
      }
      const connection = inMemory(() => Response.json({ data: { e: 'false null true e' } }), transport)
      const client = new NotificationClient({
        apiKey: 'e',
        baseUrl: 'https://api.test',
        ...connection,
        logger,
        logLevel: 'debug',
        logBodies: true,
        responseValidation: 'off',
      })
      await expect(client.notifications.get('n1')).resolves.toEqual({ e: 'false null true e' })
      const [message, details] = received[0] as [string, Record<string, unknown>]
      expect(message).toMatch(
        /^notifykit: GET \/v1\/notifications\/n1 200 in \d+ ms \(attempt 1, request none\)$/,
      )
      expect(details).toEqual({
        method: 'GET',
        path: '/v1/notifications/n1',
        status: 200,
        durationMs: expect.any(Number),
        attempt: 1,
        requestId: undefined,
        requestBody: undefined,
        responseBody: '{"data":{"[redacted]":"false null true [redacted]"}}',
      })
    })

    it("a test key such as 'k' leaves the log text whole, and is replaced where it is the key", async () => {
      const logs = captureLogs()
      // A server that echoes the Authorization header into its error, and a path that is the key.
      const echo = inMemory(
        (request) =>
          Response.json(
            { statusCode: 404, message: `no such key: ${request.headers.get('authorization')}` },
            { status: 404 },
          ),
        transport,
      )
      const client = new NotificationClient({
        apiKey: 'k',
        baseUrl: 'https://api.test',
        ...echo,
        logger: logs.logger,
        logLevel: 'debug',
        logBodies: true,
      })
      await settle(client.notifications.get('kind-k'))
      await settle(client.notifications.get('k'))
      const [first, second] = logs.lines
      expect(first?.message).toMatch(
        /^notifykit: GET \/v1\/notifications\/kind-k 404 in \d+ ms \(attempt 1, request none\)$/,
      )
      expect(first?.details?.path).toBe('/v1/notifications/kind-k')
      expect(first?.details?.responseBody).toBe(
        '{"statusCode":404,"message":"no such key: ApiKey [redacted]"}',
      )
      expect(second?.message).toMatch(/^notifykit: GET \/v1\/notifications\/\[redacted\] 404 in /)
      expectNoSecret(
        logs.lines.map((line) => line.rendered),
        'ApiKey k',
        { headerName: false },
      )
    })

    it('a logger that throws does not change the outcome of the call', async () => {
      const throwing = () => {
        throw new Error('log sink down')
      }
      const connection = inMemory(() => Response.json({ data: TRIGGERED }, { status: 201 }), transport)
      const client = new NotificationClient({
        apiKey: 'key',
        baseUrl: 'https://api.test',
        ...connection,
        logger: { debug: throwing, info: throwing, warn: throwing, error: throwing },
        logLevel: 'debug',
      })
      await expect(client.events.trigger({ name: 'w', to: 'u1' })).resolves.toEqual(TRIGGERED)
    })
  })
})
