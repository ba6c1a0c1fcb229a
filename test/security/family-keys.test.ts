import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BadRequestError } from '../../src/index.js'
import { keyRedactor } from '../../src/internal/text/redact.js'
import { captureLogs } from '../helpers/logs.js'
import { answeringClient, rejectionOf } from '../helpers/wire.js'

// The keys of a client family (a client and those `withOptions` derives) are scrubbed from every
// client's logs, whatever they have in common: a key that begins with another of the family is
// replaced whole, never its first part alone with the rest left showing.

const SHORT = 'nk.test.'
const LONG = `${SHORT}live_0123456789abcdef`

describe('keys that begin with another key of the family', () => {
  it('are replaced whole, in either order', () => {
    for (const redact of [keyRedactor(SHORT, LONG), keyRedactor(LONG, SHORT)]) {
      expect(redact(`echo ${LONG} and ${SHORT} alone`)).toBe('echo [redacted] and [redacted] alone')
      expect(redact(JSON.stringify({ key: LONG }))).toBe('{"key":"[redacted]"}')
    }
  })

  it('a test key that is the start of a real one never leaves the real one’s end showing (property)', () => {
    const key = (min: number, max: number) =>
      fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
        minLength: min,
        maxLength: max,
      })
    fc.assert(
      fc.property(key(1, 15), key(16, 30), (prefix, rest) => {
        const real = prefix + rest
        for (const redact of [keyRedactor(prefix, real), keyRedactor(real, prefix)]) {
          expect(redact(` ${real} `)).toBe(' [redacted] ')
        }
      }),
      { numRuns: 300 },
    )
  })

  it('a derived client’s key, which begins with its parent’s, is scrubbed whole from the logs', async () => {
    const logs = captureLogs()
    const { client } = answeringClient(
      () => new Response(JSON.stringify({ message: `API Key ${LONG} is not allowed here` }), { status: 400 }),
      { apiKey: SHORT, logger: logs.logger, logLevel: 'debug', logBodies: true, maxRetries: 0 },
    )
    const derived = client.withOptions({ apiKey: LONG })
    expect(await rejectionOf(derived.events.cancel('tx-1'))).toBeInstanceOf(BadRequestError)
    // The parent logs a body that holds the derived client's key too.
    expect(await rejectionOf(client.events.cancel('tx-2'))).toBeInstanceOf(BadRequestError)
    const bodies = logs.lines.filter((line) => line.details?.responseBody !== undefined)
    expect(bodies).toHaveLength(2)
    for (const line of logs.lines) {
      expect(line.rendered).not.toContain('live_0123456789abcdef')
      expect(line.rendered).not.toContain(SHORT)
    }
  })
})
