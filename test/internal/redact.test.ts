import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BadRequestError } from '../../src/index.js'
import { keyRedactor, redactErrorSecret } from '../../src/internal/text/redact.js'
import { captureLogs } from '../helpers/logs.js'
import { answeringClient, rejectionOf } from '../helpers/wire.js'

const REAL_KEY = 'nk_live_9d2f61c0e8b34a7f'

describe('a real key (16 characters or more): replaced wherever it occurs', () => {
  const redact = keyRedactor(REAL_KEY)

  it.each([
    [`ApiKey ${REAL_KEY}`, 'ApiKey [redacted]'],
    [`/v1/notifications/${REAL_KEY}`, '/v1/notifications/[redacted]'],
    // Glued to other characters, as in an encoded query string or a concatenation.
    [`?q=key%3D${REAL_KEY}x`, '?q=key%3D[redacted]x'],
    [`x${REAL_KEY}${REAL_KEY}`, 'x[redacted][redacted]'],
  ])('%s', (text, expected) => {
    expect(redact(text)).toBe(expected)
  })

  it('never survives, whatever surrounds it and whatever the key holds', () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
      minLength: 16,
      maxLength: 40,
    })
    fc.assert(
      fc.property(
        printable.filter((key) => key.trim() === key),
        fc.string(),
        fc.string(),
        (key, before, after) => {
          const escaped = JSON.stringify(key).slice(1, -1)
          const redacted = keyRedactor(key)(`${before}${key}${after} ${JSON.stringify({ key })}`)
          expect(redacted).not.toContain(key)
          expect(redacted).not.toContain(escaped)
        },
      ),
    )
  })
})

describe('a test key (shorter than 16 characters): replaced where it stands alone, other text left whole', () => {
  const redact = keyRedactor('k')

  it.each([
    ['notifykit: POST /v1/events/trigger 201', 'notifykit: POST /v1/events/trigger 201'],
    ['Mock dispatch not matched', 'Mock dispatch not matched'],
    ['idempotency-key: k-1', 'idempotency-key: k-1'],
    ['ApiKey k', 'ApiKey [redacted]'],
    ['{"authorization":"ApiKey k"}', '{"authorization":"ApiKey [redacted]"}'],
    ['/v1/notifications/k', '/v1/notifications/[redacted]'],
    ['{"k":"k"}', '{"[redacted]":"[redacted]"}'],
  ])('%s', (text, expected) => {
    expect(redact(text)).toBe(expected)
  })

  it('a key of other characters matches itself only, not as a pattern', () => {
    expect(keyRedactor('a.b')('axb a.b')).toBe('axb [redacted]')
    expect(keyRedactor('(k)')('f(k) (k)')).toBe('f[redacted] [redacted]')
    expect(keyRedactor('te"st')('{"x":"te\\"st"} te"st')).toBe('{"x":"[redacted]"} [redacted]')
  })

  it('leaves any text unchanged in which the key is not a word of its own', () => {
    const word = fc.stringMatching(/^[a-z0-9_-]{1,12}$/)
    fc.assert(
      fc.property(word, fc.array(word), (key, words) => {
        fc.pre(!words.includes(key) && key !== 'notifykit')
        const text = `notifykit: ${words.join(' ')} (${words.join('/')})`
        expect(keyRedactor(key)(text)).toBe(text)
      }),
    )
  })
})

describe('the Authorization header: its value never shows, whatever key it holds', () => {
  const redact = keyRedactor('k')

  it.each([
    // The key glued to other characters, and another key than the client's.
    ['authorization: ApiKey k-suffix', 'authorization: ApiKey [redacted]'],
    ["{ authorization: 'ApiKey sk_other_tenant' }", "{ authorization: 'ApiKey [redacted]' }"],
    // Already replaced, and a stack frame that merely names a function: left as they are.
    ['ApiKey [redacted]', 'ApiKey [redacted]'],
    ['at checkApiKey (headers.ts:73)', 'at checkApiKey (headers.ts:73)'],
  ])('%s', (text, expected) => {
    expect(redact(text)).toBe(expected)
  })
})

describe('redactErrorSecret', () => {
  it('with a test key, scrubs the header value from a foreign error and leaves its words whole', () => {
    const error = new Error('Mock dispatch not matched for headers {"authorization":"ApiKey k"} at kafka', {
      cause: { request: { headers: { authorization: 'ApiKey k' } } },
    })
    redactErrorSecret(error, 'k')
    expect(error.message).toBe(
      'Mock dispatch not matched for headers {"authorization":"ApiKey [redacted]"} at kafka',
    )
    expect(error.cause).toEqual({ request: { headers: { authorization: 'ApiKey [redacted]' } } })
  })
})

describe('every Authorization value in a text is replaced, not only the first', () => {
  const TWO_FOREIGN = 'tenant a: ApiKey sk_tenant_a_111; tenant b: ApiKey sk_tenant_b_222'

  it('two foreign ApiKey values (neither the client’s key) are both replaced', () => {
    const redacted = keyRedactor(REAL_KEY)(TWO_FOREIGN)
    expect(redacted).toBe('tenant a: ApiKey [redacted]; tenant b: ApiKey [redacted]')
    // The same function reused on another text: a `g` regex keeps no state between calls.
    expect(keyRedactor(REAL_KEY)(`${TWO_FOREIGN} ${TWO_FOREIGN}`)).not.toMatch(/sk_tenant_/)
  })

  it('a logged response body (logBodies) shows neither of two foreign keys it echoes', async () => {
    const logs = captureLogs()
    const body = JSON.stringify({ message: TWO_FOREIGN })
    const { client } = answeringClient(() => new Response(body, { status: 400 }), {
      apiKey: REAL_KEY,
      logger: logs.logger,
      logLevel: 'debug',
      logBodies: true,
      maxRetries: 0,
    })
    expect(await rejectionOf(client.events.cancel('tx-1'))).toBeInstanceOf(BadRequestError)
    const attempt = logs.lines.find((line) => line.level === 'debug' && line.details?.status === 400)
    expect(attempt?.details?.responseBody).toBe(
      JSON.stringify({ message: 'tenant a: ApiKey [redacted]; tenant b: ApiKey [redacted]' }),
    )
    for (const line of logs.lines) expect(line.rendered).not.toMatch(/sk_tenant_/)
  })
})
