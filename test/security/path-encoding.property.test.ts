import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NotificationClient, RequestValidationError } from '../../src/index.js'
import { silentLogger } from '../helpers/logs.js'
import { startServer, type TestServer } from '../helpers/servers.js'
import { nodeFetch, TRANSPORTS } from '../helpers/transport.js'
import { countingConnection, settle } from '../helpers/wire.js'

/** One operation with a path parameter, the route it must reach, and a valid answer from that route. */
interface PathOperation {
  name: string
  param: 'subscriberId' | 'transactionId' | 'notificationId'
  method: string
  /** The route's segments; `null` marks the parameter. */
  route: (string | null)[]
  status: number
  data: unknown
  call(client: NotificationClient, value: string): PromiseLike<unknown>
}

const OPERATIONS: PathOperation[] = [
  {
    name: 'subscribers.preferences.update',
    param: 'subscriberId',
    method: 'PATCH',
    route: ['v2', 'subscribers', null, 'preferences'],
    status: 200,
    data: { global: { enabled: true, channels: { email: true } }, workflows: [] },
    call: (client, value) => client.subscribers.preferences.update(value, { channels: { email: true } }),
  },
  {
    name: 'subscribers.messages.markAll',
    param: 'subscriberId',
    method: 'POST',
    route: ['v1', 'subscribers', null, 'messages', 'mark-all'],
    status: 201,
    data: 3,
    call: (client, value) => client.subscribers.messages.markAll(value, { markAs: 'read' }),
  },
  {
    name: 'events.cancel',
    param: 'transactionId',
    method: 'DELETE',
    route: ['v1', 'events', 'trigger', null],
    status: 200,
    data: true,
    call: (client, value) => client.events.cancel(value),
  },
  {
    name: 'notifications.get',
    param: 'notificationId',
    method: 'GET',
    route: ['v1', 'notifications', null],
    status: 200,
    data: {
      _id: 'n1',
      _environmentId: 'e1',
      _organizationId: 'o1',
      _subscriberId: 's1',
      transactionId: 't1',
    },
    call: (client, value) => client.notifications.get(value),
  },
]

/**
 * What a server's router does with a raw path: split on `/` (never decoding first), match the
 * literal segments, decode the parameter segment once. `undefined` when the route does not match,
 * which is exactly what a traversal or a smuggled `/`, `?` or `#` would cause.
 */
function matchRoute(operation: PathOperation, method: string, rawPath: string): string | undefined {
  if (method !== operation.method) return undefined
  const segments = rawPath.split('/')
  if (segments.shift() !== '' || segments.length !== operation.route.length) return undefined
  let param: string | undefined
  for (const [index, literal] of operation.route.entries()) {
    const segment = segments[index] as string
    if (literal === null) param = decodeURIComponent(segment)
    else if (segment !== literal) return undefined
  }
  return param
}

/** The values the SDK refuses to send: navigation segments, and strings that cannot be encoded. */
function isRefused(value: string): boolean {
  return value === '' || value === '.' || value === '..' || !value.isWellFormed()
}

// Values picked by hand for what routers and URL parsers do with them.
const CRAFTED = [
  '',
  '.',
  '..',
  '...',
  '.a',
  '%2F',
  '%2f',
  '%2e%2e',
  '%2E',
  '%252F',
  '../admin',
  '..%2F..%2Fadmin',
  '..\\..\\admin',
  '?x',
  '#y',
  'a?b=c#d',
  'a/b',
  '/',
  '//',
  '\\',
  ' ',
  '+',
  '%',
  '%zz',
  "!'()*",
  ';jsessionid=1',
  'a&b=c',
  '\u0000',
  '\r\nX-Injected: 1',
  'é',
  'e\u0301',
  '🙂',
  '👩‍👩‍👧',
  '\u202egnp.exe',
  '\ufeff',
  '\uD800',
  'a\uDC00b',
  '__proto__',
  'constructor',
]
const crafted = fc.constantFrom(...CRAFTED)
/** Every crafted value with every operation, run before the random draws (fast-check counts them in numRuns). */
const EVERY_PAIR: [PathOperation, string][] = OPERATIONS.flatMap((op) =>
  CRAFTED.map((value): [PathOperation, string] => [op, value]),
)
/** Every crafted value once, the operations taken in turn: for the slower real-socket run. */
const EACH_VALUE: [PathOperation, string][] = CRAFTED.map((value, index) => [
  OPERATIONS[index % OPERATIONS.length] as PathOperation,
  value,
])
// A small alphabet made of the characters that matter, so that combinations of them come up often.
const dangerousCharacter = fc.constantFrom(
  '.',
  '/',
  '\\',
  '%',
  '2',
  'e',
  'F',
  'f',
  '?',
  '#',
  '&',
  '=',
  '+',
  ' ',
  ';',
  ':',
  '@',
  '\u0000',
  '\n',
  'é',
  '🙂',
  '\uD800',
  '\uDFFF',
  'a',
)
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code))

const pathValue = fc.oneof(
  crafted,
  fc.string({ unit: dangerousCharacter, maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 16 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 16 }),
  fc.string({ unit: 'binary-ascii', maxLength: 16 }),
  fc.string({ maxLength: 16 }),
  // Any UTF-16 code unit: the only way to get lone surrogates.
  fc.string({ unit: anyCodeUnit, maxLength: 6 }),
)
const operation = fc.constantFrom(...OPERATIONS)

describe.each(TRANSPORTS)('over %s', (transport) => {
  describe('a path parameter reaches the server as exactly one segment of the intended route', () => {
    it('for arbitrary strings, in memory (property: 156 crafted pairs + 200 random runs)', async () => {
      let current: PathOperation | undefined
      let seen: string | undefined
      const { connection, sent } = countingConnection((request) => {
        const route = current as PathOperation
        seen = matchRoute(route, request.method, new URL(request.url).pathname)
        if (seen === undefined) return Response.json({ message: 'no such route' }, { status: 404 })
        return Response.json({ data: route.data }, { status: route.status })
      }, transport)
      const client = new NotificationClient({
        apiKey: 'key',
        baseUrl: 'https://api.test',
        ...connection,
        maxRetries: 0,
        logger: silentLogger,
      })

      await fc.assert(
        fc.asyncProperty(operation, pathValue, async (op, value) => {
          current = op
          seen = undefined
          sent.length = 0
          const outcome = await settle(op.call(client, value))
          if (isRefused(value)) {
            expect(outcome.ok).toBe(false)
            const error = outcome.ok ? undefined : outcome.error
            expect(error).toBeInstanceOf(RequestValidationError)
            expect((error as RequestValidationError).issues[0]?.path).toEqual([op.param])
            expect((error as RequestValidationError).attempts).toBe(0)
            expect(sent).toHaveLength(0)
            return
          }
          expect(outcome).toEqual({ ok: true, value: op.data })
          expect(sent).toHaveLength(1)
          expect(seen).toBe(value)
        }),
        { numRuns: EVERY_PAIR.length + 200, examples: EVERY_PAIR },
      )
    })

    describe('through a real node:http server on 127.0.0.1', () => {
      let server: TestServer
      let current: PathOperation = OPERATIONS[0] as PathOperation
      let seen: string | undefined
      let client: NotificationClient

      beforeAll(async () => {
        server = await startServer((request, response) => {
          seen = matchRoute(current, request.method ?? '', request.url ?? '')
          response.writeHead(seen === undefined ? 404 : current.status, {
            'content-type': 'application/json',
          })
          response.end(
            JSON.stringify(seen === undefined ? { message: 'no such route' } : { data: current.data }),
          )
        })
        client = new NotificationClient({
          apiKey: 'key',
          baseUrl: server.baseUrl,
          ...(transport === 'fetch' ? { fetch: nodeFetch } : {}),
          maxRetries: 0,
          logger: silentLogger,
        })
      })
      afterAll(async () => {
        await client.close()
        await server.close()
      })

      it('the raw request line decodes to the input, route intact (property: 39 crafted values + 150 random runs)', async () => {
        await fc.assert(
          fc.asyncProperty(operation, pathValue, async (op, value) => {
            current = op
            seen = undefined
            const before = server.received.length
            const outcome = await settle(op.call(client, value))
            if (isRefused(value)) {
              expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(RequestValidationError)
              expect(server.received.length).toBe(before)
              return
            }
            expect(outcome).toEqual({ ok: true, value: op.data })
            expect(server.received.length).toBe(before + 1)
            expect(seen).toBe(value)
          }),
          { numRuns: EACH_VALUE.length + 150, examples: EACH_VALUE },
        )
      })

      it("sends reserved characters percent-encoded, `!'()*` included, and keeps unicode", async () => {
        current = OPERATIONS[2] as PathOperation
        await client.events.cancel("a/b?c#d%2F..!'()* é🙂")
        expect(server.received.at(-1)?.path).toBe(
          '/v1/events/trigger/a%2Fb%3Fc%23d%252F..%21%27%28%29%2A%20%C3%A9%F0%9F%99%82',
        )
      })
    })

    it('keeps the base URL path prefix in front of the route', async () => {
      const { connection, sent } = countingConnection(() => Response.json({ data: true }), transport)
      const client = new NotificationClient({
        apiKey: 'key',
        baseUrl: 'https://api.test/proxy/notify/',
        ...connection,
      })
      await client.events.cancel('../../admin')
      expect(new URL(sent[0]?.url ?? '').pathname).toBe('/proxy/notify/v1/events/trigger/..%2F..%2Fadmin')
    })

    it.each([
      ['a number', 42],
      ['null', null],
      ['an object', { toString: () => 'x' }],
    ])('refuses %s where a string id is expected, before sending', async (_label, value) => {
      const { connection, sent } = countingConnection(() => Response.json({ data: true }), transport)
      const client = new NotificationClient({ apiKey: 'key', baseUrl: 'https://api.test', ...connection })
      // A JavaScript caller, or a value typed `any`, can pass anything.
      const outcome = await settle(client.events.cancel(value as unknown as string))
      expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(RequestValidationError)
      expect(sent).toHaveLength(0)
    })
  })
})
