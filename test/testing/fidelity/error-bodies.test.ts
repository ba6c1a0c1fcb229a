import { describe, expect, it } from 'vitest'
import { API_KEY } from '../../helpers/fake.js'
import { changedBy, fidelityFake, IN_APP_AND_EMAIL, rawFetch } from './setup.js'

// Error bodies, as the server's exception filter (apps/api/src/exception-filter.ts) writes them for
// each kind of exception, and the body parser and guards that answer before any route.

const FILTER = 'apps/api/src/exception-filter.ts'
const setup = () =>
  fidelityFake({
    workflows: [
      { identifier: 'welcome', steps: IN_APP_AND_EMAIL },
      { identifier: 'critical', critical: true, steps: [{ type: 'email' }] },
    ],
    subscribers: [{ subscriberId: 'alice' }],
  })

describe(`error bodies, as ${FILTER}`, () => {
  it(`a named exception: its context (error, statusCode) nested in ctx and also at the top level [${FILTER}: { ...errorDto.ctx, ...errorDto }] ${changedBy('errorContext')} ${changedBy('notificationNotFound')}`, async () => {
    const { send } = setup()
    const answer = await send('GET', '/v1/notifications/0123456789abcdef01234567')
    expect(answer.status).toBe(404)
    expect(answer.body).toEqual({
      statusCode: 404,
      timestamp: expect.any(String),
      path: '/v1/notifications/0123456789abcdef01234567',
      message: 'Notification not found',
      error: 'Not Found',
      ctx: { error: 'Not Found', statusCode: 404 },
    })
    expect(Date.parse(answer.body.timestamp as string)).not.toBeNaN()
  })

  it(`an exception holding an object: its fields beside message are the context (a workflow not found names workflowId) [${FILTER}: buildMsgAndContextForHttpError] ${changedBy('errorContext')}`, async () => {
    const { send } = setup()
    const answer = await send('PATCH', '/v2/subscribers/alice/preferences', {
      workflowId: 'nope',
      channels: {},
    })
    expect(answer.status).toBe(404)
    expect(answer.body).toEqual({
      statusCode: 404,
      timestamp: expect.any(String),
      path: '/v2/subscribers/alice/preferences',
      message: 'Workflow cannot be found',
      workflowId: 'nope',
      ctx: { workflowId: 'nope' },
    })
  })

  it(`finds the workflow of a preferences update before its command checks the switches and before the subscriber [apps/api/src/app/subscribers-v2/usecases/update-subscriber-preferences/update-subscriber-preferences.usecase.ts: getWorkflowByIdsUseCase, then UpdatePreferencesCommand.create] ${changedBy('preferencesV2')}`, async () => {
    const { send } = setup()
    const unknownBoth = await send('PATCH', '/v2/subscribers/nobody/preferences', { workflowId: 'nope' })
    expect(unknownBoth.body).toMatchObject({ statusCode: 404, message: 'Workflow cannot be found' })
    const badSwitch = await send('PATCH', '/v2/subscribers/nobody/preferences', { channels: { email: 1 } })
    expect(badSwitch.status).toBe(422)
    const unknownSubscriber = await send('PATCH', '/v2/subscribers/nobody/preferences', { channels: {} })
    expect(unknownSubscriber.body).toMatchObject({
      statusCode: 404,
      message: 'Subscriber with id: nobody is not found',
      error: 'Not Found',
    })
    const critical = await send('PATCH', '/v2/subscribers/alice/preferences', { workflowId: 'critical' })
    expect(critical.body).toMatchObject({
      statusCode: 400,
      message: 'Critical workflow with id: critical can not be updated',
      ctx: { error: 'Bad Request', statusCode: 400 },
    })
  })

  it(`a request DTO's failure: 422 "Validation Error", its messages under errors.general, ctx {} [${FILTER}: handleValidationPipeValidation] ${changedBy('dtoValidationError')}`, async () => {
    const { send } = setup()
    const answer = await send('POST', '/v1/events/trigger', {})
    expect(answer.status).toBe(422)
    expect(answer.body).toEqual({
      statusCode: 422,
      timestamp: expect.any(String),
      path: '/v1/events/trigger',
      message: 'Validation Error',
      ctx: {},
      errors: {
        general: {
          messages: [
            'name should not be null or undefined',
            'name must be a string',
            'to should not be null or undefined',
          ],
          value: 'No Value Recorded',
        },
      },
    })
  })

  it(`a command's failure: 422 naming the command and each field with its messages, errors.<field> with the value [${FILTER}: handleCommandValidation] ${changedBy('commandValidation422')} ${changedBy('commandValidationMessage')}`, async () => {
    const { send } = setup()
    const answer = await send('GET', '/v1/notifications/not-an-object-id')
    expect(answer.status).toBe(422)
    expect(answer.body).toEqual({
      statusCode: 422,
      timestamp: expect.any(String),
      path: '/v1/notifications/not-an-object-id',
      message:
        'Validation failed for GetActivityCommand: notificationId: notificationId must be a mongodb id',
      ctx: {},
      errors: {
        notificationId: { messages: ['notificationId must be a mongodb id'], value: 'not-an-object-id' },
      },
    })
    // The path is the request's URL as the server saw it, query included.
    expect((await send('GET', '/v1/notifications/abc?expand=jobs')).body.path).toBe(
      '/v1/notifications/abc?expand=jobs',
    )
    // 24 hex digits, any case, is an id: an unknown one is the 404.
    expect((await send('GET', '/v1/notifications/0123456789ABCDEF01234567')).status).toBe(404)
    expect((await send('GET', '/v1/notifications/0123456789abcdef0123456')).status).toBe(422)
  })

  it(`a rate-limited request: 429 "API rate limit exceeded", ctx {}, no error phrase [${FILTER}: handlerThrottlerException] ${changedBy('dtoValidationError')}`, async () => {
    const { send } = fidelityFake({
      workflows: [{ identifier: 'welcome', steps: IN_APP_AND_EMAIL }],
      rateLimit: { perSecond: 1, burst: 1 },
    })
    await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'a' })
    const answer = await send('POST', '/v1/events/trigger', { name: 'welcome', to: 'a' })
    expect(answer.status).toBe(429)
    expect(answer.body).toEqual({
      statusCode: 429,
      timestamp: expect.any(String),
      path: '/v1/events/trigger',
      message: 'API rate limit exceeded',
      ctx: {},
    })
  })

  it(`a body over the limit: 413 "Payload Too Large", 26 MB under /v1/events, the parser's 100 KB elsewhere [apps/api/src/bootstrap.ts: extendedBodySizeRoutes] ${changedBy('eventsBodyLimit')}`, async () => {
    const { send } = setup()
    const big = { name: 'welcome', to: 'alice', payload: { text: 'x'.repeat(200 * 1024) } }
    expect((await send('POST', '/v1/events/trigger', big)).status).toBe(201)
    // Just under the limit, on a route that ignores its body.
    const padded = { pad: 'x'.repeat(26 * 1024 * 1024 - 20) }
    expect((await send('DELETE', '/v1/events/trigger/tx-none', padded)).status).toBe(200)
    const huge = { name: 'welcome', to: 'alice', payload: { text: 'x'.repeat(26 * 1024 * 1024) } }
    const refused = await send('POST', '/v1/events/trigger', huge)
    expect(refused.status).toBe(413)
    expect(refused.body).toEqual({
      statusCode: 413,
      timestamp: expect.any(String),
      path: '/v1/events/trigger',
      message: 'Payload Too Large',
      ctx: { statusCode: 413 },
    })
    const prefs = { channels: { email: true }, note: 'x'.repeat(100 * 1024) }
    expect((await send('PATCH', '/v2/subscribers/alice/preferences', prefs)).status).toBe(413)
    const small = { channels: { email: true }, note: 'x'.repeat(90 * 1024) }
    expect((await send('PATCH', '/v2/subscribers/alice/preferences', small)).status).toBe(200)
  })

  it(`a body that is not JSON, or JSON that is neither an object nor an array: 400 with the parser's message [the router's mapExternalException: SyntaxError → BadRequestException]`, async () => {
    const { fake } = setup()
    const post = (body: string) =>
      fake.fetch('https://fake.test/v1/events/trigger', {
        method: 'POST',
        headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json' },
        body,
      })
    for (const body of ['{"name":', '"welcome"', '42']) {
      const response = await post(body)
      expect(response.status).toBe(400)
      const answer = (await response.json()) as Record<string, unknown>
      expect(answer).toMatchObject({ statusCode: 400, error: 'Bad Request', ctx: { error: 'Bad Request' } })
      expect(answer.message).toEqual(expect.stringContaining('JSON'))
    }
    expect(((await (await post('42')).json()) as { message: string }).message).toContain('42')
  })

  it(`an unknown route: 404 "Cannot <METHOD> <path>", before any key is checked [the router's not-found handler]`, async () => {
    const { fake } = setup()
    const answer = await rawFetch(fake, 'POST', '/v1/events/nowhere', {}, { authorization: '' })
    expect(answer.status).toBe(404)
    expect(answer.body).toMatchObject({ message: 'Cannot POST /v1/events/nowhere', error: 'Not Found' })
  })

  it.each([
    ['no header', '', 'Missing authorization header', true],
    ['a session token', `Bearer ${API_KEY}`, 'Unauthorized', false],
    ['another scheme', `Basic ${API_KEY}`, 'Invalid authentication scheme: "Basic"', true],
    ['ApiKey without a key', 'ApiKey', 'Unauthorized', false],
    ['a wrong key', 'ApiKey wrong', 'API Key not found', true],
  ])(
    `401 for %s, with the guard's message [apps/api/src/app/auth/e2e/user.auth.guard.e2e.ts]`,
    async (_label, authorization, message, named) => {
      const { fake } = setup()
      const answer = await rawFetch(
        fake,
        'POST',
        '/v1/events/trigger',
        { name: 'welcome', to: 'alice' },
        { authorization },
      )
      expect(answer.status).toBe(401)
      expect(answer.body).toMatchObject({ statusCode: 401, message })
      // A named exception says its phrase; one made without a message has only the status.
      expect((answer.body as { error?: string }).error).toBe(named ? 'Unauthorized' : undefined)
      expect(fake.notifications).toEqual([])
    },
  )

  it(`a 500: the server's text, an errorId, no context [${FILTER}: buildA5xxError]`, async () => {
    const { fake } = setup()
    fake.failNext({ status: 500, fromHandler: true })
    const answer = await rawFetch(fake, 'POST', '/v1/events/trigger', { name: 'welcome', to: 'alice' })
    expect(answer.status).toBe(500)
    expect(answer.body).toEqual({
      statusCode: 500,
      timestamp: expect.any(String),
      path: '/v1/events/trigger',
      message: 'Internal server error, contact support and provide them with the errorId',
      errorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    })
  })
})
