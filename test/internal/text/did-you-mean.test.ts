import { describe, expect, it } from 'vitest'
import { closest, didYouMean } from '../../../src/internal/text/did-you-mean.js'

// "Did you mean" suggests only what is close: a slip of a few letters, or the name cut or extended
// at one end by a fair part of it. A word that merely shares letters with a name gets nothing.

const FIELDS = [
  'name',
  'to',
  'payload',
  'overrides',
  'transactionId',
  'actor',
  'tenant',
  'bridgeUrl',
  'controls',
  'context',
]
const OPTIONS = [
  'apiKey',
  'baseUrl',
  'timeoutMs',
  'maxRetries',
  'idempotencyKey',
  'headers',
  'signal',
  'deadlineMs',
  'logger',
  'rateLimit',
  'responseValidation',
  'defaultHeaders',
  'fetch',
]

describe('closest', () => {
  it.each([
    // case and separators
    ['timeOutMs', OPTIONS, 'timeoutMs'],
    ['idempotency_key', OPTIONS, 'idempotencyKey'],
    ['api-key', OPTIONS, 'apiKey'],
    ['transactionID', FIELDS, 'transactionId'],
    // one slip per four letters
    ['payloadd', FIELDS, 'payload'],
    ['timoutMs', OPTIONS, 'timeoutMs'],
    ['contxt', FIELDS, 'context'],
    ['actr', FIELDS, 'actor'],
    ['nmae', FIELDS, 'name'],
    ['overide', FIELDS, 'overrides'],
    ['tos', FIELDS, 'to'],
    // cut or extended at one end
    ['retries', OPTIONS, 'maxRetries'],
    ['deadline', OPTIONS, 'deadlineMs'],
    ['limit', OPTIONS, 'rateLimit'],
    ['tenantId', FIELDS, 'tenant'],
    ['fetcher', OPTIONS, 'fetch'],
  ])('%s → %s', (typed, candidates, meant) => {
    expect(closest(typed, candidates)).toBe(meant)
  })

  it.each([
    // letters in common, in order, but not a slip nor an end
    ['environment', FIELDS],
    ['namespace', FIELDS],
    ['data', OPTIONS],
    ['nam', OPTIONS],
    ['rate', OPTIONS],
    ['content', ['tenant']],
    // too short to stand for a longer name
    ['key', OPTIONS],
    ['log', OPTIONS],
    ['url', FIELDS],
    ['toto', FIELDS],
    ['', FIELDS],
    ['--', FIELDS],
    ['colour', OPTIONS],
  ])('%s → nothing', (typed, candidates) => {
    expect(closest(typed, candidates)).toBeUndefined()
  })

  it('the nearest slip wins over an earlier candidate, and a slip over a fit at one end', () => {
    expect(closest('tenat', ['tenantId', 'tenant'])).toBe('tenant')
    expect(closest('headers', ['defaultHeaders', 'header'])).toBe('header')
    expect(closest('headers', ['defaultHeaders'])).toBe('defaultHeaders')
  })

  it('one edit per four letters: two slips in eight letters are close, three are not', () => {
    expect(closest('paylxadx', ['payloadd'])).toBe('payloadd')
    expect(closest('pxylxadx', ['payloadd'])).toBeUndefined()
    // Seven letters allow one: two slips are not close.
    expect(closest('cantaxt', ['context'])).toBeUndefined()
    expect(closest('cantext', ['context'])).toBe('context')
    // A swap of neighbours is one slip.
    expect(closest('ancestroId', ['ancestorId'])).toBe('ancestorId')
  })

  it('a fit at one end needs four letters and half the longer name', () => {
    expect(closest('base', ['baseUrl'])).toBe('baseUrl')
    expect(closest('bas', ['basement'])).toBeUndefined()
    expect(closest('name', ['nameOfTheWorkflow'])).toBeUndefined()
    expect(closest('headers', ['defaultHeaders'])).toBe('defaultHeaders')
    // At an end, not in the middle.
    expect(closest('ultHead', ['defaultHeaders'])).toBeUndefined()
    // Of two fits, the tighter, whatever the order.
    expect(closest('retries', ['maximumRetries', 'maxRetries'])).toBe('maxRetries')
  })
})

describe('didYouMean', () => {
  it('names the candidate, or says nothing', () => {
    expect(didYouMean('payloadd', FIELDS)).toBe('; did you mean `payload`?')
    expect(didYouMean('environment', FIELDS)).toBe('')
  })
})
