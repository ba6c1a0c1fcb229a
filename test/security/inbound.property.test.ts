import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  BulkTriggerError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  NotificationClient,
  NotifyKitError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
} from '../../src/index.js'
import { silentLogger } from '../helpers/logs.js'
import { TRANSPORTS, type TransportName } from '../helpers/transport.js'
import { countingConnection, settle } from '../helpers/wire.js'

type Mode = 'lenient' | 'strict' | 'off'

interface Answer {
  status: number
  body: string
  contentType?: string
}

/** A client whose every request gets `answer()`, with no retries so that each run is one exchange. */
function answeringOver(transport: TransportName, answer: () => Answer, responseValidation: Mode = 'lenient') {
  const { connection } = countingConnection(() => {
    const { status, body, contentType } = answer()
    // Fetch refuses a body on these statuses; a real server sends none either.
    const noBody = status === 204 || status === 205 || status === 304
    return new Response(noBody ? null : body, {
      status,
      headers: contentType ? { 'content-type': contentType } : {},
    })
  }, transport)
  return new NotificationClient({
    apiKey: 'key',
    baseUrl: 'https://api.test',
    ...connection,
    maxRetries: 0,
    responseValidation,
    logger: silentLogger,
  })
}

/** Every operation of the client, called with valid input. */
const OPERATIONS: { name: string; call(client: NotificationClient): PromiseLike<unknown> }[] = [
  {
    name: 'subscribers.preferences.update',
    call: (client) => client.subscribers.preferences.update('u1', { channels: { email: true } }),
  },
  {
    name: 'subscribers.messages.markAll',
    call: (client) => client.subscribers.messages.markAll('u1', { markAs: 'read' }),
  },
  { name: 'events.trigger', call: (client) => client.events.trigger({ name: 'welcome', to: 'u1' }) },
  { name: 'events.cancel', call: (client) => client.events.cancel('t1') },
  {
    name: 'events.triggerBulk',
    call: (client) => client.events.triggerBulk([{ name: 'welcome', to: 'u1' }]),
  },
  {
    name: 'events.broadcast',
    call: (client) => client.events.broadcast({ name: 'announcement', payload: {} }),
  },
  { name: 'notifications.get', call: (client) => client.notifications.get('n1') },
  // withResponse() is a second way to the same outcome.
  { name: 'notifications.get withResponse', call: (client) => client.notifications.get('n1').withResponse() },
]

/**
 * The error class each status must raise, written out status by status from the documented API
 * rather than computed like the SDK computes it: a mistake in the SDK's mapping cannot repeat here.
 * Exact classes: a `NotFoundError` is an `ApiError` too, so the check is on the constructor.
 */
const EXPECTED_ERROR_CLASS: readonly (readonly [status: number, errorClass: typeof ApiError])[] = [
  [400, BadRequestError],
  [401, AuthenticationError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [422, UnprocessableEntityError],
  [429, RateLimitError],
  [500, InternalServerError],
  [501, InternalServerError],
  [502, InternalServerError],
  [503, InternalServerError],
  [504, InternalServerError],
  [599, InternalServerError],
  // Any other status that is not 2xx: the base class.
  [302, ApiError],
  [304, ApiError],
  [402, ApiError],
  [405, ApiError],
  [408, ApiError],
  [410, ApiError],
  [413, ApiError],
  [418, ApiError],
  [451, ApiError],
  [499, ApiError],
]

/** A value with an own `__proto__` key, as `JSON.parse` builds one (a literal would set the prototype). */
function withOwnProto(value: unknown): Record<string, unknown> {
  return Object.defineProperty({}, '__proto__', {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

/** An error body as sent, and the `error.body` it must give: JSON parsed, anything else the text. */
interface ErrorBodyCase {
  text: string
  body: unknown
}

/** Bodies whose reading is written out by hand. */
const ERROR_BODY_CASES: readonly ErrorBodyCase[] = [
  { text: '', body: undefined },
  { text: 'null', body: null },
  { text: '{"data":null}', body: { data: null } },
  { text: '{"data":', body: '{"data":' },
  { text: '<html>502</html>', body: '<html>502</html>' },
  { text: '{"__proto__":{"polluted":true}}', body: withOwnProto({ polluted: true }) },
  {
    text: '{"data":{"constructor":{"prototype":{"polluted":true}}}}',
    body: { data: { constructor: { prototype: { polluted: true } } } },
  },
  { text: '{"message":[{"toString":1}]}', body: { message: [{ toString: 1 }] } },
  { text: '[{"acknowledged":true}]', body: [{ acknowledged: true }] },
  { text: '1e999', body: Number.POSITIVE_INFINITY },
  { text: '"quoted"', body: 'quoted' },
  { text: 'quoted', body: 'quoted' },
  { text: '{"statusCode":404,"message":"Not found"}', body: { statusCode: 404, message: 'Not found' } },
  { text: 'Service Unavailable', body: 'Service Unavailable' },
]

/** True when `value` holds a -0 anywhere, which JSON writes as 0. */
function hasNegativeZero(value: unknown): boolean {
  if (typeof value === 'number') return Object.is(value, -0)
  if (value === null || typeof value !== 'object') return false
  return Object.values(value).some(hasNegativeZero)
}

const DEEP = 100_000
const deepArray = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`
const deepObject = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`
// `variants` is the one recursive schema (a step's variants are steps): checking it recurses.
const deepVariants = `{"data":{"_id":"n1","jobs":[{"step":${'{"variants":['.repeat(DEEP)}${']}'.repeat(DEEP)}}]}}`

describe.each(TRANSPORTS)('over %s', (transport) => {
  const answering = (answer: () => Answer, responseValidation?: Mode) =>
    answeringOver(transport, answer, responseValidation)

  describe('malformed and hostile response bodies', () => {
    it.each(OPERATIONS)(
      '$name: malformed JSON in a 2xx is a ResponseValidationError with the raw text',
      async (op) => {
        const text = `{"data": {"acknowledged": tru${'e'.repeat(5_000)}`
        const outcome = await settle(op.call(answering(() => ({ status: 200, body: text }))))
        const error = outcome.ok ? undefined : outcome.error
        expect(error).toBeInstanceOf(
          op.name === 'events.triggerBulk' ? BulkTriggerError : ResponseValidationError,
        )
        const cause =
          error instanceof BulkTriggerError ? error.failures[0]?.error : (error as ResponseValidationError)
        expect(cause).toBeInstanceOf(ResponseValidationError)
        expect((cause as ResponseValidationError).body).toBe(text)
        expect((cause as ResponseValidationError).status).toBe(200)
        // The message shows the start of the text, not all of it.
        expect(cause?.message).toContain('{"data": {"acknowledged": tru')
        expect(cause?.message.length).toBeLessThan(500)
      },
    )

    it.each([
      ['a JSON string', '"hello"'],
      ['a JSON number', '42'],
      ['a JSON array', '[1,2,3]'],
      ['null', 'null'],
      ['an enveloped string', '{"data":"hello"}'],
      ['an empty body', ''],
    ])(
      '%s where an object was expected is a ResponseValidationError with the raw text',
      async (_label, text) => {
        for (const mode of ['lenient', 'strict'] as const) {
          const outcome = await settle(
            answering(() => ({ status: 200, body: text }), mode).notifications.get('n1'),
          )
          const error = outcome.ok ? undefined : outcome.error
          // `null` (or `{"data": null}`) on notifications.get means "not found", as some servers answer.
          if (text === 'null') expect(error).toBeInstanceOf(NotFoundError)
          else {
            expect(error).toBeInstanceOf(ResponseValidationError)
            expect((error as ResponseValidationError).body).toBe(text)
          }
        }
      },
    )

    it('a UTF-8 byte order mark before the JSON is dropped, as fetch and undici read text', async () => {
      for (const mode of ['lenient', 'strict'] as const) {
        const client = answering(() => ({ status: 201, body: '\ufeff{"data":3}' }), mode)
        await expect(client.subscribers.messages.markAll('u1', { markAs: 'read' })).resolves.toBe(3)
      }
    })

    it.each(OPERATIONS)(
      '$name: a 100 000-level deep array in a 2xx is a typed error, not a crash',
      async (op) => {
        for (const mode of ['strict', 'lenient'] as const) {
          const outcome = await settle(op.call(answering(() => ({ status: 200, body: deepArray }), mode)))
          // Lenient mode may return an array where an array was expected (bulk), whatever its items.
          if (mode === 'lenient' && outcome.ok) continue
          const error = outcome.ok ? undefined : outcome.error
          const cause = error instanceof BulkTriggerError ? error.failures[0]?.error : error
          expect(cause).toBeInstanceOf(ResponseValidationError)
          expect((cause as ResponseValidationError).body).toBe(deepArray)
        }
      },
    )

    it('a 100 000-level deep structure inside a recursive schema is a ResponseValidationError', async () => {
      for (const mode of ['lenient', 'strict'] as const) {
        const outcome = await settle(
          answering(() => ({ status: 200, body: deepVariants }), mode).notifications.get('n1'),
        )
        const error = outcome.ok ? undefined : (outcome.error as ResponseValidationError)
        expect(error).toBeInstanceOf(ResponseValidationError)
        expect(error?.body).toBe(deepVariants)
      }
    })

    it('a 100 000-level deep value where the schema accepts anything is returned as received', async () => {
      const body = `{"data":{"_id":"n1","payload":${deepObject}}}`
      const notification = await answering(() => ({ status: 200, body })).notifications.get('n1')
      expect(notification._id).toBe('n1')
      expect(notification.payload).toHaveProperty('a.a.a.a')
    })

    it.each([
      [400, deepArray, BadRequestError],
      [404, deepObject, NotFoundError],
      [500, `{"message":${deepArray}}`, InternalServerError],
    ])(
      'a 100 000-level deep error body with status %i is the status’s ApiError',
      async (status, text, errorClass) => {
        const outcome = await settle(answering(() => ({ status, body: text })).events.cancel('t1'))
        const error = outcome.ok ? undefined : (outcome.error as ApiError)
        expect(error?.constructor).toBe(errorClass)
        expect(error?.status).toBe(status)
        expect(error?.message).toBe(`${status} (error body too deeply nested to show)`)
      },
    )

    it('an error body whose message items break String() keeps the status’s class', async () => {
      const body = '{"message":[{"toString":1,"valueOf":1},"second"]}'
      const outcome = await settle(answering(() => ({ status: 422, body })).events.cancel('t1'))
      const error = outcome.ok ? undefined : (outcome.error as ApiError)
      expect(error).toBeInstanceOf(UnprocessableEntityError)
      expect(error?.message).toBe('422 {"toString":1,"valueOf":1}; second')
      expect(error?.body).toEqual(JSON.parse(body))
    })

    describe('a content-type that lies', () => {
      const html = '<html><body><h1>502 Bad Gateway</h1></body></html>'

      it('HTML labelled JSON in a 2xx is a ResponseValidationError with the HTML kept', async () => {
        const outcome = await settle(
          answering(() => ({ status: 200, body: html, contentType: 'application/json' })).events.cancel('t1'),
        )
        const error = outcome.ok ? undefined : (outcome.error as ResponseValidationError)
        expect(error).toBeInstanceOf(ResponseValidationError)
        expect(error?.body).toBe(html)
        expect(error?.message).toContain('<html>')
      })

      it('HTML labelled JSON in a 502 is an InternalServerError with the HTML as its body', async () => {
        const outcome = await settle(
          answering(() => ({ status: 502, body: html, contentType: 'application/json' })).events.cancel('t1'),
        )
        const error = outcome.ok ? undefined : (outcome.error as InternalServerError)
        expect(error).toBeInstanceOf(InternalServerError)
        expect(error?.status).toBe(502)
        expect(error?.body).toBe(html)
        expect(error?.message).toBe(`502 ${html}`)
      })

      it('JSON labelled text/html is read by what it is: the content-type is not trusted either way', async () => {
        const client = answering(() => ({ status: 200, body: '{"data":true}', contentType: 'text/html' }))
        await expect(client.events.cancel('t1')).resolves.toBe(true)
      })
    })
  })

  describe('error responses, against the tables written out above', () => {
    it.each(
      EXPECTED_ERROR_CLASS.map(([status, errorClass]) => [status, errorClass.name, errorClass] as const),
    )('status %i is a %s', async (status, _name, errorClass) => {
      const outcome = await settle(
        answering(() => ({ status, body: '{"message":"refused"}' })).events.cancel('t1'),
      )
      const error = outcome.ok ? undefined : (outcome.error as ApiError)
      expect(error?.constructor).toBe(errorClass)
      expect(error?.status).toBe(status)
      expect(error?.body).toEqual(status === 304 ? undefined : { message: 'refused' })
    })

    it.each(ERROR_BODY_CASES)('the error body $text is read as $body', async ({ text, body }) => {
      for (const status of [400, 503]) {
        const outcome = await settle(answering(() => ({ status, body: text })).events.cancel('t1'))
        const error = outcome.ok ? undefined : (outcome.error as ApiError)
        expect(error?.status).toBe(status)
        expect(error?.body).toEqual(body)
      }
    })
  })

  describe('arbitrary responses to every operation', () => {
    const unhandled = vi.fn()
    beforeEach(() => {
      process.on('unhandledRejection', unhandled)
      process.on('uncaughtException', unhandled)
    })
    afterEach(() => {
      process.off('unhandledRejection', unhandled)
      process.off('uncaughtException', unhandled)
    })

    // Each body comes with what it must read as, known by construction: the JSON value it was written
    // from, or, for text no JSON parser accepts (it starts with `~`), the text itself.
    const jsonValue = fc.jsonValue({ maxDepth: 4 }).filter((value) => !hasNegativeZero(value))
    const body: fc.Arbitrary<ErrorBodyCase> = fc.oneof(
      jsonValue.map((value) => ({ text: JSON.stringify(value), body: value })),
      jsonValue.map((value) => ({ text: JSON.stringify({ data: value }), body: { data: value } })),
      fc.string({ unit: 'binary', maxLength: 40 }).map((text) => ({ text: `~${text}`, body: `~${text}` })),
      fc.constantFrom(...ERROR_BODY_CASES),
    )
    const answer = fc.record({
      // A 2xx, or a status whose error class the table above names.
      status: fc.oneof(
        fc.integer({ min: 200, max: 299 }),
        fc.constantFrom(...EXPECTED_ERROR_CLASS.map(([status]) => status)),
      ),
      body,
      contentType: fc.constantFrom('application/json', 'text/html', 'text/plain', undefined),
    })

    it('end as data or as one of the SDK’s errors, never anything else (property, 300 runs)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...OPERATIONS),
          answer,
          fc.constantFrom<Mode>('lenient', 'strict', 'off'),
          async (op, { status, body: sent, contentType }, mode) => {
            const outcome = await settle(
              op.call(answering(() => ({ status, body: sent.text, contentType }), mode)),
            )
            const success = status >= 200 && status < 300
            if (outcome.ok) {
              expect(success).toBe(true)
              return
            }
            const error = outcome.error
            expect(error).toBeInstanceOf(NotifyKitError)
            // Bulk reports each request's failure inside its own error.
            const cause = error instanceof BulkTriggerError ? error.failures[0]?.error : error
            expect(cause).toBeInstanceOf(NotifyKitError)
            if (!success) {
              const expected = EXPECTED_ERROR_CLASS.find(([listed]) => listed === status)?.[1]
              expect(cause?.constructor).toBe(expected)
              expect((cause as ApiError).status).toBe(status)
              // 204, 205 and 304 carry no body: the server sent none, whatever was meant.
              const bodyless = status === 204 || status === 205 || status === 304
              expect((cause as ApiError).body).toEqual(bodyless ? undefined : sent.body)
            } else if (cause instanceof ResponseValidationError) {
              expect(cause.status).toBe(status)
            } else {
              expect(cause).toBeInstanceOf(NotFoundError)
            }
          },
        ),
        { numRuns: 300 },
      )
      await new Promise((resolve) => setImmediate(resolve))
      expect(unhandled).not.toHaveBeenCalled()
    })
  })
})
