import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { NotificationClient, NotifyKitError, RequestValidationError } from '../../src/index.js'
import { CANARY_KEY } from '../helpers/secrets.js'
import { TRANSPORTS, type TransportName } from '../helpers/transport.js'
import { countingConnection, settle } from '../helpers/wire.js'

const TRIGGER = { name: 'welcome', to: 'user-1' }
const TRIGGERED = { acknowledged: true, status: 'processed', transactionId: 't1' }

function clientOver(
  transport: TransportName,
  options: ConstructorParameters<typeof NotificationClient>[0] = {},
) {
  const wire = countingConnection(() => Response.json({ data: TRIGGERED }, { status: 201 }), transport)
  const instance = new NotificationClient({
    apiKey: 'key',
    baseUrl: 'https://api.test',
    ...wire.connection,
    maxRetries: 0,
    ...options,
  })
  return { client: instance, sent: wire.sent }
}

// Every C0 control character and DEL: CR, LF and NUL are the ones that split or end a request.
const controlCharacter = fc.oneof(
  fc.constantFrom('\r', '\n', '\r\n', '\u0000'),
  fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
  fc.constant('\u007f'),
)
const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 20 })
/** A printable string with control characters spliced in, as in `value\r\nX-Injected: 1`. */
const injected = fc
  .tuple(printable, controlCharacter, printable)
  .map(([before, control, after]) => `${before}${control}${after}`)

describe('a key from the environment', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  it('NOTIFYKIT_API_KEY with a control character fails at construction', () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', `${CANARY_KEY}\r\nX-Injected: 1`)
    expect(() => new NotificationClient({ baseUrl: 'https://api.test' })).toThrow(
      /API key contains a control character/,
    )
  })
})

describe.each(TRANSPORTS)('over %s', (transport) => {
  const client = (options: ConstructorParameters<typeof NotificationClient>[0] = {}) =>
    clientOver(transport, options)

  describe('header injection is refused before anything is sent', () => {
    afterEach(() => {
      vi.unstubAllEnvs()
    })

    it('an API key with a control character fails at construction, without repeating the key (property, 150 runs)', () => {
      fc.assert(
        fc.property(injected, (key) => {
          const secret = `${CANARY_KEY}${key}`
          let failure: unknown
          try {
            client({ apiKey: secret })
          } catch (error) {
            failure = error
          }
          expect(failure).toBeInstanceOf(NotifyKitError)
          expect((failure as NotifyKitError).code).toBe('NOTIFYKIT_CONFIGURATION')
          expect((failure as Error).message).toMatch(/API key contains a control character/)
          expect((failure as Error).message).not.toContain(CANARY_KEY)
        }),
        { numRuns: 150 },
      )
    })

    it.each([
      ['non-ASCII', `${CANARY_KEY}é`, /non-ASCII/],
      ['surrounding spaces', ` ${CANARY_KEY} `, /starts or ends with a space/],
      ['only spaces', '   ', /empty/],
    ])('an API key with %s fails at construction', (_label, apiKey, message) => {
      expect(() => client({ apiKey })).toThrow(message)
      expect(() => client({ apiKey })).not.toThrow(CANARY_KEY)
    })

    it('a defaultHeaders value with a control character fails at construction (property, 150 runs)', () => {
      fc.assert(
        fc.property(injected, (value) => {
          expect(() => client({ defaultHeaders: { 'x-team': value } })).toThrow(
            new NotifyKitError(
              'Header "x-team" in defaultHeaders has a control character (CR, LF, NUL, tab, …) in its value',
            ),
          )
        }),
        { numRuns: 150 },
      )
    })

    it('a per-call header value with a control character is a RequestValidationError, nothing sent (property, 150 runs)', async () => {
      const { client: instance, sent } = client()
      await fc.assert(
        fc.asyncProperty(injected, async (value) => {
          const outcome = await settle(instance.events.trigger(TRIGGER, { headers: { 'x-trace-id': value } }))
          expect(outcome.ok).toBe(false)
          const error = outcome.ok ? undefined : (outcome.error as RequestValidationError)
          expect(error).toBeInstanceOf(RequestValidationError)
          expect(error?.issues).toEqual([
            { path: ['headers', 'x-trace-id'], message: expect.stringMatching(/control character/) },
          ])
          expect(sent).toHaveLength(0)
        }),
        { numRuns: 150 },
      )
    })

    it.each([
      ['CR LF', 'x-a\r\nx-injected'],
      ['a space', 'x a'],
      ['a colon', 'x-a:'],
      ['nothing', ''],
      ['non-ASCII', 'x-é'],
    ])('a header name with %s is refused', async (_label, name) => {
      expect(() => client({ defaultHeaders: { [name]: 'v' } })).toThrow(/is not a valid header name/)
      const { client: instance, sent } = client()
      const outcome = await settle(instance.events.trigger(TRIGGER, { headers: { [name]: 'v' } }))
      expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(RequestValidationError)
      expect(sent).toHaveLength(0)
    })

    it.each([
      'Authorization',
      'idempotency-key',
      'Host',
      'content-length',
      'transfer-encoding',
      'connection',
      'expect',
    ])('the %s header cannot be set through headers options', async (name) => {
      expect(() => client({ defaultHeaders: { [name]: 'x' } })).toThrow(NotifyKitError)
      const { client: instance, sent } = client()
      const outcome = await settle(instance.events.trigger(TRIGGER, { headers: { [name]: 'x' } }))
      expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(RequestValidationError)
      expect(sent).toHaveLength(0)
    })

    it('a non-ASCII header value is refused at call time, not turned into a retried connection error', async () => {
      const { client: instance, sent } = client({ maxRetries: 2 })
      const outcome = await settle(instance.events.trigger(TRIGGER, { headers: { 'x-user': 'José €' } }))
      expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(RequestValidationError)
      expect(sent).toHaveLength(0)
    })

    // Over fetch the headers go as name and value pairs: fetch copies a record by assignment, which
    // would drop an own `__proto__` key without a word.
    it('a header named __proto__ is sent as a header, not swallowed as a prototype', async () => {
      const { client: instance, sent } = client({
        defaultHeaders: JSON.parse('{"__proto__":"from-defaults"}'),
      })
      await instance.events.trigger(TRIGGER)
      await instance.events.trigger(TRIGGER, { headers: JSON.parse('{"__proto__":"per-call"}') })
      expect(sent.map((request) => request.headers.get('__proto__'))).toEqual(['from-defaults', 'per-call'])
    })

    it('valid headers go out unchanged, and cannot displace the authorization header', async () => {
      const { client: instance, sent } = client({
        apiKey: CANARY_KEY,
        defaultHeaders: { 'X-Team': 'growth' },
      })
      await instance.events.trigger(TRIGGER, { headers: { 'x-trace-id': 'abc 123;=,"' } })
      expect(sent[0]?.headers.get('x-team')).toBe('growth')
      expect(sent[0]?.headers.get('x-trace-id')).toBe('abc 123;=,"')
      expect(sent[0]?.headers.get('authorization')).toBe(`ApiKey ${CANARY_KEY}`)
    })
  })

  // Header names are case-insensitive on the wire: one header per name, whatever case each source
  // wrote it in, or the server gets both values joined ("a, b") or picks either.
  describe('header names are merged without regard to case', () => {
    it("a call's x-tenant replaces a default X-Tenant: one value on the wire", async () => {
      const { client: instance, sent } = client({ defaultHeaders: { 'X-Tenant': 'from-defaults' } })
      await instance.events.trigger(TRIGGER, { headers: { 'x-tenant': 'per-call' } })
      await instance.events.trigger(TRIGGER, { headers: { 'X-TENANT': 'shouted' } })
      await instance.events.trigger(TRIGGER)
      expect(sent.map((request) => request.headers.get('x-tenant'))).toEqual([
        'per-call',
        'shouted',
        'from-defaults',
      ])
    })

    it("a user's Accept, Content-Type or User-Agent does not go beside the SDK's own", async () => {
      const mine = { Accept: 'text/plain', 'Content-Type': 'text/plain', 'User-Agent': 'mine/1' }
      const { client: instance, sent } = client({ defaultHeaders: mine })
      await instance.events.trigger(TRIGGER)
      await instance.events.trigger(TRIGGER, { headers: mine })
      for (const request of sent) {
        expect(request.headers.get('accept')).toBe('application/json')
        expect(request.headers.get('content-type')).toBe('application/json')
        expect(request.headers.get('user-agent')).toMatch(/^notifykit\/\S+ \S+$/)
      }
      expect(sent).toHaveLength(2)
    })
  })

  describe('idempotency keys', () => {
    it('256 characters is a RequestValidationError before sending; 255 goes out unchanged', async () => {
      const { client: instance, sent } = client()
      const outcome = await settle(instance.events.trigger(TRIGGER, { idempotencyKey: 'k'.repeat(256) }))
      const error = outcome.ok ? undefined : (outcome.error as RequestValidationError)
      expect(error).toBeInstanceOf(RequestValidationError)
      expect(error?.issues).toEqual([
        { path: ['idempotencyKey'], message: 'must be at most 255 characters (got 256)' },
      ])
      expect(error?.attempts).toBe(0)
      expect(sent).toHaveLength(0)

      const key = 'k'.repeat(255)
      const { response } = await instance.events.trigger(TRIGGER, { idempotencyKey: key }).withResponse()
      expect(sent[0]?.headers.get('idempotency-key')).toBe(key)
      expect(response.idempotencyKey).toBe(key)
    })

    it('a key with a control character is a RequestValidationError, nothing sent (property, 150 runs)', async () => {
      const { client: instance, sent } = client()
      await fc.assert(
        fc.asyncProperty(injected, async (key) => {
          const outcome = await settle(instance.events.trigger(TRIGGER, { idempotencyKey: key }))
          expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(RequestValidationError)
          expect(sent).toHaveLength(0)
        }),
        { numRuns: 150 },
      )
    })

    it.each([
      ['empty', ''],
      ['non-ASCII', 'commande-é'],
      ['not a string', 42],
    ])('a key that is %s is refused', async (_label, key) => {
      const { client: instance, sent } = client()
      const outcome = await settle(
        instance.subscribers.preferences.update('u1', {}, { idempotencyKey: key as unknown as string }),
      )
      expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(RequestValidationError)
      expect(sent).toHaveLength(0)
    })
  })
})
