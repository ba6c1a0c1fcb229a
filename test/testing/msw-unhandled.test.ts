import { HttpResponse, http, passthrough } from 'msw'
import { setupServer } from 'msw/node'
import { ConnectionError, NotFoundError, NotificationClient, TimeoutError } from 'notifykit'
import { createMswDispatcher, type MswDispatcherOptions } from 'notifykit/testing/msw'
import type { Dispatcher } from 'undici'
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from 'vitest'
import { sendJson, startServer, type TestServer } from '../helpers/servers.js'

// A request no msw handler answers, through createMswDispatcher: what msw's `onUnhandledRequest` does
// with it for an intercepted fetch, the dispatcher does too. Requests sent "for real" go to a server
// on 127.0.0.1, which answers 404 for the one notification the handlers do not answer.

const NOT_FOUND = { statusCode: 404, message: 'Notification with id n1 not found', error: 'Not Found' }
// msw's own words: the first line of what it prints, then what it throws for 'error'.
const MSW_WARNING = '[MSW] Warning: intercepted a request without a matching request handler:'
const MSW_ERROR = '[MSW] Error: intercepted a request without a matching request handler:'
const MSW_REFUSED =
  '[MSW] Cannot bypass a request when using the "error" strategy for the "onUnhandledRequest" option.'

let network: TestServer
beforeAll(async () => {
  network = await startServer((_req, res) => sendJson(res, 404, NOT_FOUND))
})
afterAll(() => network.close())

let warn: MockInstance<typeof console.warn>
let error: MockInstance<typeof console.error>
beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  error = vi.spyOn(console, 'error').mockImplementation(() => undefined)
  network.received.length = 0
})
afterEach(() => vi.restoreAllMocks())

/** The one route the handlers answer: a trigger. */
const triggerHandler = () =>
  http.post('*/v1/events/trigger', () =>
    HttpResponse.json(
      { data: { acknowledged: true, status: 'processed', transactionId: 'tx-1' } },
      { status: 201 },
    ),
  )

function clientOn(dispatcher: Dispatcher, options: { timeoutMs?: number } = {}): NotificationClient {
  // The default maxRetries (2): an unhandled request under 'error' must not use them.
  return new NotificationClient({
    apiKey: 'k',
    baseUrl: network.baseUrl,
    dispatcher,
    logLevel: 'off',
    ...options,
  })
}

/** What msw printed through `print` ('warn' or 'error'), one line per message. */
const printed = (spy: MockInstance<(...args: unknown[]) => void>) =>
  spy.mock.calls.map(([message]) => String(message).split('\n')[0])

describe.each([
  [
    'a fixed list of handlers',
    (options?: MswDispatcherOptions) => createMswDispatcher([triggerHandler()], options),
  ],
  [
    'an msw server',
    (options?: MswDispatcherOptions) => createMswDispatcher(setupServer(triggerHandler()), options),
  ],
])('createMswDispatcher over %s: onUnhandledRequest', (_source, dispatcherWith) => {
  it.each([
    ["'error'", { onUnhandledRequest: 'error' } as const],
    ['the default', undefined],
  ])(
    "%s: msw prints its error, and the call fails at once with msw's message, not retried",
    async (_, options) => {
      const client = clientOn(dispatcherWith(options))
      const failure = await client.notifications.get('n1').catch((caught: unknown) => caught)

      expect(failure).toBeInstanceOf(ConnectionError)
      expect(failure).toMatchObject({
        attempts: 1,
        message: `Connection failed: No msw handler answered GET ${network.baseUrl}/v1/notifications/n1: ${MSW_REFUSED} (UND_ERR_INVALID_ARG)`,
        cause: { code: 'UND_ERR_INVALID_ARG', cause: { name: 'InternalError', message: MSW_REFUSED } },
      })
      expect(printed(error)).toEqual([MSW_ERROR])
      expect(String(error.mock.calls[0]?.[0])).toContain(`GET ${network.baseUrl}/v1/notifications/n1`)
      expect(network.received).toEqual([])
      // What the handlers answer, they still answer.
      await expect(client.events.trigger({ name: 'welcome', to: 'u1' })).resolves.toMatchObject({
        transactionId: 'tx-1',
      })
    },
  )

  it("'warn' (msw's default, not the dispatcher's): msw prints its warning, and the request is sent for real", async () => {
    await expect(
      clientOn(dispatcherWith({ onUnhandledRequest: 'warn' })).notifications.get('n1'),
    ).rejects.toBeInstanceOf(NotFoundError)
    expect(printed(warn)).toEqual([MSW_WARNING])
    expect(String(warn.mock.calls[0]?.[0])).toContain(`GET ${network.baseUrl}/v1/notifications/n1`)
    expect(network.received.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'GET /v1/notifications/n1',
    ])
    expect(network.received[0]?.headers.authorization).toBe('ApiKey k')
    expect(error).not.toHaveBeenCalled()
  })

  it("'bypass': the request is sent for real, nothing printed", async () => {
    const client = clientOn(dispatcherWith({ onUnhandledRequest: 'bypass' }))
    const failure = await client.notifications.get('n1').catch((caught: unknown) => caught)
    expect(failure).toMatchObject({
      name: 'NotFoundError',
      status: 404,
      attempts: 1,
      message: expect.stringContaining(NOT_FOUND.message),
    })
    expect(network.received).toHaveLength(1)
    expect(warn).not.toHaveBeenCalled()
    expect(error).not.toHaveBeenCalled()
  })

  it("a function: gets the request and msw's print; print.error() fails the call as 'error' does", async () => {
    const seen: string[] = []
    const refusing = clientOn(
      dispatcherWith({
        onUnhandledRequest: (request, print) => {
          seen.push(`${request.method} ${new URL(request.url).pathname}`)
          print.error()
        },
      }),
    )
    await expect(refusing.notifications.get('n1')).rejects.toMatchObject({
      name: 'ConnectionError',
      attempts: 1,
      message: expect.stringContaining(MSW_REFUSED),
    })
    expect(printed(error)).toEqual([MSW_ERROR])

    const letting = clientOn(dispatcherWith({ onUnhandledRequest: () => seen.push('let through') }))
    await expect(letting.notifications.get('n1')).rejects.toBeInstanceOf(NotFoundError)
    expect(seen).toEqual(['GET /v1/notifications/n1', 'let through'])
    expect(network.received).toHaveLength(1)
  })
})

describe('createMswDispatcher: what msw does not count as unhandled', () => {
  it("a request a handler matches without answering, or answers with passthrough(), is sent for real, even under 'error'", async () => {
    const observed: string[] = []
    const dispatcher = createMswDispatcher(
      [
        http.get('*/v1/notifications/observed', ({ request }) => {
          observed.push(request.url)
        }),
        http.get('*/v1/notifications/through', () => passthrough()),
      ],
      { onUnhandledRequest: 'error' },
    )
    const client = clientOn(dispatcher)
    await expect(client.notifications.get('observed')).rejects.toBeInstanceOf(NotFoundError)
    await expect(client.notifications.get('through')).rejects.toBeInstanceOf(NotFoundError)
    expect(observed).toEqual([`${network.baseUrl}/v1/notifications/observed`])
    expect(network.received.map(({ path }) => path)).toEqual([
      '/v1/notifications/observed',
      '/v1/notifications/through',
    ])
    expect(error).not.toHaveBeenCalled()
  })
})

describe('createMswDispatcher: a request sent for real', () => {
  let silent: TestServer
  let closed: Promise<void>
  beforeAll(async () => {
    // Never answers; resolves `closed` when the client hangs up.
    silent = await startServer((req) => {
      closed = new Promise((resolve) => req.socket.once('close', () => resolve()))
    })
  })
  afterAll(() => silent.close())

  it("is given up with the client's attempt: a timeout closes its connection", async () => {
    const client = new NotificationClient({
      apiKey: 'k',
      baseUrl: silent.baseUrl,
      dispatcher: createMswDispatcher([], { onUnhandledRequest: 'bypass' }),
      timeoutMs: 200,
      maxRetries: 0,
      logLevel: 'off',
    })
    await expect(client.notifications.get('n1')).rejects.toBeInstanceOf(TimeoutError)
    expect(silent.requests()).toBe(1)
    await closed
  })
})
