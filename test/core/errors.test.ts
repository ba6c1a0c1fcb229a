import { http } from 'msw'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  BulkTriggerError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  NotificationClient,
  NotifyKitError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  TimeoutError,
  TriggerNotSentError,
  UnprocessableEntityError,
} from '../../src/index.js'
import { createFakeService } from '../../src/testing/index.js'
import { answeringClient, json, mswClient, onlyRequest, rejectionOf, UUID } from '../helpers/wire.js'

// Retries are another suite's subject: every status here is seen exactly once.
const NO_RETRIES = { maxRetries: 0 }

function errorBody(statusCode: number, message: unknown, error: string, extra: Record<string, unknown> = {}) {
  return {
    statusCode,
    timestamp: '2026-01-01T00:00:00.000Z',
    path: '/v1/events/trigger',
    message,
    error,
    ...extra,
  }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('status → error class', () => {
  it.each([
    [400, 'BadRequestError', 'NOTIFYKIT_BAD_REQUEST', 'Bad Request', BadRequestError],
    [401, 'AuthenticationError', 'NOTIFYKIT_AUTHENTICATION', 'Unauthorized', AuthenticationError],
    [403, 'PermissionDeniedError', 'NOTIFYKIT_PERMISSION_DENIED', 'Forbidden', PermissionDeniedError],
    [404, 'NotFoundError', 'NOTIFYKIT_NOT_FOUND', 'Not Found', NotFoundError],
    [409, 'ConflictError', 'NOTIFYKIT_CONFLICT', 'Conflict', ConflictError],
    [
      422,
      'UnprocessableEntityError',
      'NOTIFYKIT_UNPROCESSABLE_ENTITY',
      'Unprocessable Entity',
      UnprocessableEntityError,
    ],
    [429, 'RateLimitError', 'NOTIFYKIT_RATE_LIMIT', 'Too Many Requests', RateLimitError],
    [500, 'InternalServerError', 'NOTIFYKIT_INTERNAL_SERVER', 'Internal Server Error', InternalServerError],
    [502, 'InternalServerError', 'NOTIFYKIT_INTERNAL_SERVER', 'Bad Gateway', InternalServerError],
    [503, 'InternalServerError', 'NOTIFYKIT_INTERNAL_SERVER', 'Service Unavailable', InternalServerError],
  ])(
    '%i → %s with code %s, status, headers, body, message, requestId, key and attempts',
    async (status, _className, code, reason, ErrorClass) => {
      const body = errorBody(status, `server says ${status}`, reason)
      const { client, seen } = answeringClient(
        () => json(body, status, { 'x-request-id': `req-${status}` }),
        NO_RETRIES,
      )
      const error = await rejectionOf(client.events.trigger({ name: 'welcome', to: 'user-1' }))

      expect(error).toBeInstanceOf(ErrorClass)
      expect(error).toBeInstanceOf(ApiError)
      expect(error).toBeInstanceOf(NotifyKitError)
      expect(error).toBeInstanceOf(Error)
      const apiError = error as ApiError
      expect(apiError.constructor).toBe(ErrorClass)
      expect(apiError.name).toBe(ErrorClass.name)
      expect(apiError.code).toBe(code)
      expect(apiError.status).toBe(status)
      expect(apiError.body).toStrictEqual(body)
      expect(apiError.headers['x-request-id']).toBe(`req-${status}`)
      expect(apiError.message).toMatch(new RegExp(`^${status} server says ${status}(;|$)`))
      expect(apiError.requestId).toBe(`req-${status}`)
      expect(apiError.idempotencyKey).toMatch(UUID)
      expect(apiError.idempotencyKey).toBe(onlyRequest(seen).headers['idempotency-key'])
      expect(apiError.attempts).toBe(1)
      expect(apiError.method).toBe('POST')
      expect(apiError.path).toBe('/v1/events/trigger')
    },
  )

  it('a 401 says what to check (the apiKey option, NOTIFYKIT_API_KEY, the key’s environment, the base URL), never the key', async () => {
    const key = 'nk_live_development_key_0001'
    const { client } = answeringClient(() => json(errorBody(401, 'API Key not found', 'Unauthorized'), 401), {
      ...NO_RETRIES,
      apiKey: key,
    })
    const error = (await rejectionOf(client.events.trigger({ name: 'welcome', to: 'user-1' }))) as ApiError
    expect(error).toBeInstanceOf(AuthenticationError)
    expect(error.message).toMatch(/^401 API Key not found; check the API key/)
    for (const named of ['apiKey option', 'NOTIFYKIT_API_KEY', 'development key', 'production', 'base URL'])
      expect(error.message).toContain(named)
    expect(error.message).not.toContain(key)
    // Other statuses keep the server's words alone.
    const forbidden = ApiError.fromResponse(403, errorBody(403, 'no access', 'Forbidden'), {})
    expect(forbidden.message).toBe('403 no access')
  })

  it('carries the caller’s idempotency key on the error', async () => {
    const { client } = answeringClient(() => json(errorBody(409, 'in progress', 'Conflict'), 409), NO_RETRIES)
    const error = await rejectionOf(
      client.events.trigger({ name: 'w', to: 'u' }, { idempotencyKey: 'order-42-shipped' }),
    )
    expect(error).toBeInstanceOf(ConflictError)
    expect((error as ConflictError).idempotencyKey).toBe('order-42-shipped')
  })

  it('has no idempotency key on a GET error and takes requestId from request-id', async () => {
    const { client } = answeringClient(
      () => json(errorBody(404, 'Notification not found', 'Not Found'), 404, { 'request-id': 'req-plain' }),
      NO_RETRIES,
    )
    const error = (await rejectionOf(client.notifications.get('n-404'))) as NotFoundError
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error.idempotencyKey).toBeUndefined()
    expect(error.requestId).toBe('req-plain')
    expect(error.path).toBe('/v1/notifications/n-404')
  })

  it('422 keeps the server’s `errors` object in body', async () => {
    const errors = {
      markAs: { messages: ['markAs must be one of read, seen, unread, unseen'], value: 'done' },
    }
    const body = errorBody(422, 'Validation failed', 'Unprocessable Entity', { errors })
    const { client } = answeringClient(() => json(body, 422), NO_RETRIES)
    const error = (await rejectionOf(
      client.subscribers.messages.markAll('u', { markAs: 'read' }),
    )) as UnprocessableEntityError
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect(error.body).toStrictEqual(body)
    expect((error.body as { errors: unknown }).errors).toStrictEqual(errors)
  })

  it('400 payload validation keeps the `errors` list and `type`', async () => {
    const body = errorBody(400, 'Payload validation failed', 'Bad Request', {
      type: 'PAYLOAD_VALIDATION_ERROR',
      errors: [{ field: 'firstName', message: 'is required' }],
    })
    const { client } = answeringClient(() => json(body, 400), NO_RETRIES)
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as BadRequestError
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.body).toStrictEqual(body)
  })

  it('an unmapped 4xx (418) is a plain ApiError', async () => {
    const { client } = answeringClient(() => json(errorBody(418, 'teapot', "I'm a teapot"), 418), NO_RETRIES)
    const error = (await rejectionOf(client.events.cancel('tx'))) as ApiError
    expect(error.constructor).toBe(ApiError)
    expect(error.code).toBe('NOTIFYKIT_API')
    expect(error.status).toBe(418)
  })
})

describe('message', () => {
  it('joins an array `message` with the status', async () => {
    const body = errorBody(400, ['name must be a string', 'to should not be empty'], 'Bad Request')
    const { client } = answeringClient(() => json(body, 400), NO_RETRIES)
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as BadRequestError
    expect(error.message).toBe('400 name must be a string; to should not be empty')
  })

  it('falls back to `error` when there is no `message`', async () => {
    const { client } = answeringClient(() => json({ statusCode: 403, error: 'Forbidden' }, 403), NO_RETRIES)
    const error = (await rejectionOf(client.events.cancel('tx'))) as PermissionDeniedError
    expect(error.message).toBe('403 Forbidden')
  })

  it('says so when the body is empty', async () => {
    const { client } = answeringClient(() => new Response(null, { status: 401 }), NO_RETRIES)
    const error = (await rejectionOf(client.events.cancel('tx'))) as AuthenticationError
    expect(error).toBeInstanceOf(AuthenticationError)
    expect(error.body).toBeUndefined()
    expect(error.message).toMatch(/^401\b/)
  })
})

describe('a non-JSON error from a proxy', () => {
  it('an HTML 502 is an InternalServerError with the page kept in body and a truncated message', async () => {
    const html = `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center>${'<!-- padding -->'.repeat(60)}<hr><center>nginx</center></body></html>`
    const { client } = answeringClient(
      () => new Response(html, { status: 502, headers: { 'content-type': 'text/html' } }),
      NO_RETRIES,
    )
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as InternalServerError
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error.status).toBe(502)
    expect(error.body).toBe(html)
    expect(error.message.startsWith('502 <html>')).toBe(true)
    expect(error.message.length).toBeLessThan(html.length)
    expect(error.message.length).toBeLessThan(400)
    expect(error.message).toContain('more characters')
  })

  it('a plain-text 503 keeps its text', async () => {
    const { client } = answeringClient(
      () => new Response('upstream connect error', { status: 503 }),
      NO_RETRIES,
    )
    const error = (await rejectionOf(client.notifications.get('n-1'))) as InternalServerError
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error.body).toBe('upstream connect error')
    expect(error.message).toBe('503 upstream connect error')
  })
})

describe('RateLimitError.retryAfterMs', () => {
  const rateLimited = (headers: Record<string, string>) =>
    answeringClient(
      () => json(errorBody(429, 'API rate limit exceeded', 'Too Many Requests'), 429, headers),
      NO_RETRIES,
    )

  it('reads Retry-After in seconds', async () => {
    const { client } = rateLimited({ 'retry-after': '3' })
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as RateLimitError
    expect(error).toBeInstanceOf(RateLimitError)
    expect(error.retryAfterMs).toBe(3_000)
    expect(error.message).toBe('429 API rate limit exceeded')
  })

  it('reads Retry-After as an HTTP date', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-01-01T00:00:00.000Z'))
    const { client } = rateLimited({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' })
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as RateLimitError
    expect(error.retryAfterMs).toBe(7_000)
  })

  it('prefers retry-after-ms, in milliseconds', async () => {
    const { client } = rateLimited({ 'retry-after-ms': '1500', 'retry-after': '9' })
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as RateLimitError
    expect(error.retryAfterMs).toBe(1_500)
  })

  it('is undefined without either header, and keeps the rate-limit headers', async () => {
    const { client } = rateLimited({ 'ratelimit-remaining': '0', 'ratelimit-reset': '12' })
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as RateLimitError
    expect(error.retryAfterMs).toBeUndefined()
    expect(error.headers['ratelimit-reset']).toBe('12')
  })
})

// Over a real socket, where following one would matter, the transport suite checks that none is.
describe('a 3xx status', () => {
  it('a 3xx is an ApiError, the redirect is not followed and its Location never contacted', async () => {
    const { client, seen } = mswClient(
      [
        http.post('https://api.test/v1/events/trigger', () =>
          json(errorBody(307, 'moved', 'Temporary Redirect'), 307, {
            location: 'https://elsewhere.test/v1/events/trigger',
          }),
        ),
        http.post('https://elsewhere.test/*', () =>
          json({ data: { acknowledged: true, status: 'processed' } }, 201),
        ),
      ],
      NO_RETRIES,
    )
    const error = (await rejectionOf(client.events.trigger({ name: 'w', to: 'u' }))) as ApiError
    expect(error.constructor).toBe(ApiError)
    expect(error.status).toBe(307)
    expect(error.headers.location).toBe('https://elsewhere.test/v1/events/trigger')
    expect(seen.map((request) => new URL(request.url).host)).toEqual(['api.test'])
  })

  it('a 301 on a GET is not followed either, with retries allowed', async () => {
    const { client, seen } = mswClient([
      http.get(
        'https://api.test/v1/notifications/:id',
        () =>
          new Response(null, {
            status: 301,
            headers: { location: 'https://elsewhere.test/v1/notifications/n-1' },
          }),
      ),
    ])
    const error = (await rejectionOf(client.notifications.get('n-1'))) as ApiError
    expect(error.constructor).toBe(ApiError)
    expect(error.status).toBe(301)
    expect(error.attempts).toBe(1)
    expect(seen).toHaveLength(1)
  })
})

describe('errors found before sending', () => {
  const ok = () => json({ data: { acknowledged: true, status: 'processed' } }, 201)

  it.each([
    ['a BigInt in the payload', { total: 10n }, /BigInt/],
    [
      'a cycle in the payload',
      (() => {
        const payload: Record<string, unknown> = {}
        payload.self = payload
        return payload
      })(),
      /circular/i,
    ],
  ])(
    '%s is a RequestValidationError with the method and route, no key, nothing sent',
    async (_what, payload, reason) => {
      const { client, seen } = answeringClient(ok)
      const error = await rejectionOf(client.events.trigger({ name: 'w', to: 'u', payload }))
      expect(error).toBeInstanceOf(RequestValidationError)
      const refused = error as RequestValidationError
      expect(refused.message).toMatch(/^Invalid events\.trigger request: cannot be sent as JSON/)
      expect(refused.message).toMatch(reason)
      expect(refused.method).toBe('POST')
      expect(refused.path).toBe('/v1/events/trigger')
      expect(refused.idempotencyKey).toBeUndefined()
      expect(refused.attempts).toBe(0)
      expect(seen).toHaveLength(0)
    },
  )

  it('a bad per-call maxRetries reports the route and no generated key', async () => {
    const { client, seen } = answeringClient(ok)
    const error = (await rejectionOf(
      client.events.trigger({ name: 'w', to: 'u' }, { maxRetries: -1 }),
    )) as RequestValidationError
    expect(error).toBeInstanceOf(RequestValidationError)
    expect(error.issues.map((issue) => issue.path)).toEqual([['maxRetries']])
    expect([error.method, error.path, error.idempotencyKey]).toEqual([
      'POST',
      '/v1/events/trigger',
      undefined,
    ])
    expect(seen).toHaveLength(0)
  })

  it('a refused bulk call carries its method and route too', async () => {
    const { client, seen } = answeringClient(ok)
    // An invalid event fails alone: its RequestValidationError is a failure of the BulkTriggerError.
    const bulk = await rejectionOf(client.events.triggerBulk([{ name: '', to: 'u' }]))
    const badEvent = (bulk as BulkTriggerError).failures[0]?.error
    const badOption = await rejectionOf(
      client.events.triggerBulk([{ name: 'w', to: 'u' }], { concurrency: 0 }),
    )
    for (const error of [badEvent, badOption]) {
      expect(error).toBeInstanceOf(RequestValidationError)
      const refused = error as RequestValidationError
      expect([refused.method, refused.path, refused.idempotencyKey]).toEqual([
        'POST',
        '/v1/events/trigger/bulk',
        undefined,
      ])
    }
    expect(seen).toHaveLength(0)
  })
})

describe('instanceof across two copies of the package', () => {
  // A second copy of the modules, as when an app loads both the CommonJS and the ES module build:
  // its classes are other objects. The built files themselves are tested in build-output.test.ts.
  async function otherCopy() {
    vi.resetModules()
    return (await import('../../src/index.js')) as typeof import('../../src/index.js')
  }

  it('an error of one copy is an instance of the other copy’s class and of its parents', async () => {
    const other = await otherCopy()
    expect(other.RateLimitError).not.toBe(RateLimitError)
    const theirs = other.ApiError.fromResponse(429, { message: 'slow down' }, {})
    expect(theirs).toBeInstanceOf(RateLimitError)
    expect(theirs).toBeInstanceOf(ApiError)
    expect(theirs).toBeInstanceOf(NotifyKitError)
    expect(theirs).toBeInstanceOf(Error)
    expect(theirs).not.toBeInstanceOf(NotFoundError)
    expect(theirs).not.toBeInstanceOf(ConnectionError)
    const ours = new TimeoutError('late')
    expect(ours).toBeInstanceOf(other.TimeoutError)
    expect(ours).toBeInstanceOf(other.ConnectionError)
    expect(ours).not.toBeInstanceOf(other.ApiError)
    const notSent = new other.TriggerNotSentError({ acknowledged: true, status: 'no_tenant_found' })
    expect(notSent).toBeInstanceOf(TriggerNotSentError)
    expect(notSent).toBeInstanceOf(NotifyKitError)
    expect(notSent).not.toBeInstanceOf(BulkTriggerError)
  })

  it('is not fooled by look-alikes, and leaves subclasses of yours ordinary', async () => {
    expect({ code: 'NOTIFYKIT_RATE_LIMIT', name: 'RateLimitError' }).not.toBeInstanceOf(RateLimitError)
    expect((null as unknown) instanceof NotifyKitError).toBe(false)
    expect((5 as unknown) instanceof NotifyKitError).toBe(false)
    class AppError extends NotifyKitError {}
    const other = await otherCopy()
    expect(new AppError('x')).toBeInstanceOf(other.NotifyKitError)
    expect(new other.NotifyKitError('x')).not.toBeInstanceOf(AppError)
    expect(new AppError('x').code).toBe('NOTIFYKIT_CONFIGURATION')
  })
})

describe('422 workflow_not_found', () => {
  const notFound = () => json(errorBody(422, 'workflow_not_found', 'Unprocessable Entity'), 422)

  it('names the workflow the trigger sent, in the message and in workflowName', async () => {
    const { client } = answeringClient(notFound, NO_RETRIES)
    const error = (await rejectionOf(
      client.events.trigger({ name: 'welcom', to: 'user-1' }),
    )) as UnprocessableEntityError
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect(error.workflowName).toBe('welcom')
    expect(error.message).toBe('422 workflow_not_found: no workflow named "welcom"')
    expect(error.body).toStrictEqual(errorBody(422, 'workflow_not_found', 'Unprocessable Entity'))
    expect([error.method, error.path, error.attempts]).toEqual(['POST', '/v1/events/trigger', 1])
  })

  it('from the test kit’s fake service too', async () => {
    const fake = createFakeService({ apiKey: 'k', workflows: [{ identifier: 'welcome', steps: [] }] })
    const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch })
    const error = (await rejectionOf(
      client.events.trigger({ name: 'Welcome', to: 'user-1' }),
    )) as UnprocessableEntityError
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect(error.workflowName).toBe('Welcome')
  })

  it('and the workflow a broadcast sent', async () => {
    const { client } = answeringClient(notFound, NO_RETRIES)
    const error = (await rejectionOf(
      client.events.broadcast({ name: 'maintenance', payload: {} }),
    )) as UnprocessableEntityError
    expect(error.workflowName).toBe('maintenance')
    expect(error.message).toContain('"maintenance"')
  })

  it('another 422 keeps the server’s message and has no workflowName', async () => {
    const body = errorBody(422, 'idempotency key reused with another body', 'Unprocessable Entity')
    const { client } = answeringClient(() => json(body, 422), NO_RETRIES)
    const error = (await rejectionOf(
      client.events.trigger({ name: 'welcome', to: 'user-1' }),
    )) as UnprocessableEntityError
    expect(error.workflowName).toBeUndefined()
    expect(error.message).toBe('422 idempotency key reused with another body')
  })
})
