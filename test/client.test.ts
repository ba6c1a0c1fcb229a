import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ClientClosedError,
  NotificationClient,
  type NotificationClientOptions,
  NotifyKitError,
  TimeoutError,
  VERSION,
} from '../src/index.js'
import { sendJson, startServer, type TestServer } from './helpers/servers.js'
import { clientFor, TRANSPORTS } from './helpers/transport.js'
import {
  API_KEY,
  answeringClient,
  countingConnection,
  json,
  onlyRequest,
  rejectionOf,
} from './helpers/wire.js'

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string
}

afterEach(() => {
  vi.unstubAllEnvs()
})

/** The message of the error a constructor call throws. */
function constructionError(create: () => unknown): NotifyKitError {
  try {
    create()
  } catch (error) {
    expect(error).toBeInstanceOf(NotifyKitError)
    expect((error as NotifyKitError).code).toBe('NOTIFYKIT_CONFIGURATION')
    return error as NotifyKitError
  }
  throw new Error('Expected the constructor to throw')
}

describe('environment fallbacks', () => {
  it('new NotificationClient() works when NOTIFYKIT_API_KEY and NOTIFYKIT_BASE_URL are set', () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', 'env-key')
    vi.stubEnv('NOTIFYKIT_BASE_URL', 'https://env.api.test')
    expect(() => new NotificationClient()).not.toThrow()
  })

  it('sends the key and uses the base URL taken from the environment', async () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', 'env-key')
    vi.stubEnv('NOTIFYKIT_BASE_URL', 'https://env.api.test/prefix')
    const { seen, connection } = answeringClient(() => json({ data: true }))
    const client = new NotificationClient(connection)
    await client.events.cancel('tx-1')
    const request = onlyRequest(seen)
    expect(request.headers.authorization).toBe('ApiKey env-key')
    expect(request.url).toBe('https://env.api.test/prefix/v1/events/trigger/tx-1')
  })

  it('prefers constructor options over the environment', async () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', 'env-key')
    vi.stubEnv('NOTIFYKIT_BASE_URL', 'https://env.api.test')
    const { client, seen } = answeringClient(() => json({ data: true }))
    await client.events.cancel('tx-1')
    expect(onlyRequest(seen).headers.authorization).toBe(`ApiKey ${API_KEY}`)
    expect(onlyRequest(seen).url).toBe('https://api.test/v1/events/trigger/tx-1')
  })

  it('names the API key when only it is missing', () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', undefined)
    vi.stubEnv('NOTIFYKIT_BASE_URL', 'https://env.api.test')
    const error = constructionError(() => new NotificationClient())
    expect(error.message).toContain('NOTIFYKIT_API_KEY')
    expect(error.message).not.toContain('NOTIFYKIT_BASE_URL')
  })

  it('names the base URL when only it is missing', () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', 'env-key')
    vi.stubEnv('NOTIFYKIT_BASE_URL', undefined)
    const error = constructionError(() => new NotificationClient())
    expect(error.message).toContain('NOTIFYKIT_BASE_URL')
    expect(error.message).not.toContain('NOTIFYKIT_API_KEY')
    expect(error.message).not.toContain('env-key')
  })

  it('names both when both are missing, and treats empty variables as missing', () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', '')
    vi.stubEnv('NOTIFYKIT_BASE_URL', undefined)
    const error = constructionError(() => new NotificationClient())
    expect(error.message).toContain('NOTIFYKIT_API_KEY')
    expect(error.message).toContain('NOTIFYKIT_BASE_URL')
  })
})

describe('baseUrl rules', () => {
  const create = (baseUrl: string, allowInsecureHttp?: boolean) =>
    new NotificationClient({ apiKey: API_KEY, baseUrl, allowInsecureHttp })

  it.each([
    'https://api.example.com',
    'https://api.example.com:8443/notify/',
    'http://127.0.0.1:3000',
    'http://127.1.2.3',
    'http://localhost:8080',
    'http://[::1]:4000',
  ])('accepts %s', (baseUrl) => {
    expect(() => create(baseUrl)).not.toThrow()
  })

  it.each(['http://api.example.com', 'http://10.0.0.5', 'http://127.0.0.1.example.com'])(
    'refuses http to a remote host (%s) unless allowInsecureHttp',
    (baseUrl) => {
      const error = constructionError(() => create(baseUrl))
      expect(error.message).toContain('https')
      expect(() => create(baseUrl, true)).not.toThrow()
    },
  )

  it.each([
    ['credentials', 'https://user:s3cret-pass@api.example.com', 'credentials'],
    ['a query string', 'https://api.example.com/?region=eu', 'query'],
    ['an empty query string', 'https://api.example.com/?', 'query'],
    ['a fragment', 'https://api.example.com/#top', 'fragment'],
    ['another scheme', 'ftp://api.example.com', 'https'],
    ['a relative URL', '/v1', 'URL'],
  ])('refuses %s', (_what, baseUrl, named) => {
    const error = constructionError(() => create(baseUrl))
    expect(error.message).toContain(named)
    expect(error.message).not.toContain('s3cret-pass')
  })
})

describe('numeric options', () => {
  it('refuses a timeoutMs Node timers cannot hold, instead of timing out at once', () => {
    const error = constructionError(
      () => new NotificationClient({ apiKey: 'k', baseUrl: 'https://api.test', timeoutMs: 2 ** 31 }),
    )
    expect(error.message).toContain('timeoutMs')
  })

  it('refuses a negative or fractional maxRetries', () => {
    for (const maxRetries of [-1, 1.5, Number.NaN]) {
      const error = constructionError(
        () => new NotificationClient({ apiKey: 'k', baseUrl: 'https://api.test', maxRetries }),
      )
      expect(error.message).toContain('maxRetries')
    }
  })
})

describe('unknown options (plain JavaScript, or a cast)', () => {
  /** Options as a JavaScript caller passes them: no compiler stands between the typo and the call. */
  const javascript = (options: Record<string, unknown>) => options as NotificationClientOptions

  it.each([
    ['timeOutMs', 'timeoutMs'],
    ['apikey', 'apiKey'],
    ['base_url', 'baseUrl'],
    ['retries', 'maxRetries'],
    ['headers', 'defaultHeaders'],
  ])('refuses `%s`, naming `%s`', (typo, meant) => {
    const error = constructionError(
      () => new NotificationClient(javascript({ apiKey: 'k', baseUrl: 'https://api.test', [typo]: 5_000 })),
    )
    expect(error.message).toBe(
      `NotificationClient option ${typo}: unknown option; did you mean \`${meant}\`?`,
    )
  })

  it('reports a misspelt apiKey as such, not as a missing key', () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', undefined)
    const error = constructionError(
      () => new NotificationClient(javascript({ apikey: 'k', baseUrl: 'https://api.test' })),
    )
    expect(error.message).toContain('did you mean `apiKey`?')
  })

  it('names no option when nothing is close, and withOptions refuses the same way', () => {
    const error = constructionError(
      () => new NotificationClient(javascript({ apiKey: 'k', baseUrl: 'https://api.test', colour: 'blue' })),
    )
    expect(error.message).toBe('NotificationClient option colour: unknown option')
    const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://api.test' })
    expect(constructionError(() => client.withOptions(javascript({ timeOutMs: 1 }))).message).toContain(
      'did you mean `timeoutMs`?',
    )
  })
})

describe('API key', () => {
  it.each([
    ['a line feed', 'nk_live_abc\nX-Injected: 1'],
    ['a carriage return', 'nk_live_abc\r'],
    ['a CRLF', 'nk_live_abc\r\nHost: evil.test'],
  ])('with %s is refused at construction, without repeating the key', (_what, apiKey) => {
    const error = constructionError(() => new NotificationClient({ apiKey, baseUrl: 'https://api.test' }))
    expect(error.message).not.toContain('nk_live_abc')
    expect(String(error.stack)).not.toContain('nk_live_abc')
  })

  it('a blank key is refused', () => {
    constructionError(() => new NotificationClient({ apiKey: '   ', baseUrl: 'https://api.test' }))
  })
})

describe('withOptions', () => {
  let server: TestServer | undefined

  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('shares the connection pool and changes the key and timeout', async () => {
    const authorizations: (string | undefined)[] = []
    server = await startServer((req, res) => {
      authorizations.push(req.headers.authorization)
      if (req.url?.endsWith('/slow')) return // never answers
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 13 })
      res.end('{"data":true}')
    })
    const parent = new NotificationClient({ apiKey: 'parent-key', baseUrl: server.baseUrl, maxRetries: 0 })
    const tenant = parent.withOptions({ apiKey: 'tenant-key', timeoutMs: 100 })
    try {
      await parent.events.cancel('tx-1')
      await new Promise((resolve) => setImmediate(resolve))
      await tenant.events.cancel('tx-2')
      // One socket for both clients: the derived client went through the parent's pool.
      expect(server.connections()).toBe(1)
      expect(authorizations).toEqual(['ApiKey parent-key', 'ApiKey tenant-key'])

      const error = await rejectionOf(tenant.events.cancel('slow'))
      expect(error).toBeInstanceOf(TimeoutError)

      // Closing the derived client leaves the shared pool open for the parent.
      await tenant.close()
      await expect(parent.events.cancel('tx-3')).resolves.toBe(true)
    } finally {
      await parent.close()
    }
  })

  it('close() twice is not an error, and a call after close fails with ClientClosedError, nothing sent', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"data":true}')
    })
    const client = new NotificationClient({ apiKey: 'key', baseUrl: server.baseUrl })
    await client.events.cancel('tx-1')
    await client.close()
    await expect(client.close()).resolves.toBeUndefined()
    const error = await rejectionOf(client.events.cancel('tx-2'))
    expect(error).toBeInstanceOf(ClientClosedError)
    expect((error as NotifyKitError).code).toBe('NOTIFYKIT_CLIENT_CLOSED')
    expect((error as NotifyKitError).attempts).toBe(0)
    expect((error as NotifyKitError).method).toBe('DELETE')
  })

  it('keeps the parent’s other options (base URL, defaultHeaders)', async () => {
    const { client, seen } = answeringClient(() => json({ data: true }), {
      defaultHeaders: { 'x-team': 'growth' },
    })
    await client.withOptions({ apiKey: 'other-key' }).events.cancel('tx-1')
    const request = onlyRequest(seen)
    expect(request.url).toBe('https://api.test/v1/events/trigger/tx-1')
    expect(request.headers['x-team']).toBe('growth')
    expect(request.headers.authorization).toBe('ApiKey other-key')
  })
})

describe('package facts', () => {
  it('VERSION equals package.json’s version', () => {
    expect(VERSION).toBe(packageJson.version)
  })
})

describe.each(TRANSPORTS)('close() while a call is under way, over %s', (transport) => {
  it('a retry after close() (called from onRetry) is not sent: ClientClosedError, one request on the wire', async () => {
    const { connection, sent } = countingConnection(
      () =>
        sent.length === 1 ? json({ message: 'busy' }, 503, { 'retry-after-ms': '0' }) : json({ data: true }),
      transport,
    )
    const retries: string[] = []
    const client: NotificationClient = new NotificationClient({
      apiKey: API_KEY,
      baseUrl: 'https://api.test',
      ...connection,
      hooks: {
        onRetry: ({ reason }) => {
          retries.push(reason)
          // Not awaited: a hook cannot wait, and the retry is decided right after it.
          void client.close()
        },
      },
    })
    const error = await rejectionOf(client.events.cancel('tx-1'))
    expect(error).toBeInstanceOf(ClientClosedError)
    expect((error as NotifyKitError).code).toBe('NOTIFYKIT_CLIENT_CLOSED')
    expect((error as NotifyKitError).method).toBe('DELETE')
    // The retry was decided (503), then refused before its request went out.
    expect(retries).toEqual(['status 503'])
    expect(sent).toHaveLength(1)
  })

  it('a call started while close() is still pending is refused with ClientClosedError, nothing sent', async () => {
    const { connection, sent } = countingConnection(() => json({ data: true }), transport)
    const client = new NotificationClient({ apiKey: API_KEY, baseUrl: 'https://api.test', ...connection })
    const closing = client.close()
    const error = await rejectionOf(client.events.cancel('tx-1'))
    await closing
    expect(error).toBeInstanceOf(ClientClosedError)
    expect((error as NotifyKitError).attempts).toBe(0)
    expect(sent).toHaveLength(0)
  })
})

describe.each(TRANSPORTS)('close() with a request on the wire, over %s (127.0.0.1)', (transport) => {
  let server: TestServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  /** A server that holds each response until `answer` is called, and says when a request has arrived. */
  async function heldServer(status: number, body: unknown, headers: Record<string, string> = {}) {
    const answers: (() => void)[] = []
    let arrived: () => void = () => undefined
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve
    })
    server = await startServer((_req, res) => {
      answers.push(() => sendJson(res, status, body, headers))
      arrived()
    })
    return { requestArrived, answer: () => answers.shift()?.() }
  }

  it('waits for it: the call resolves with its response first, then close() resolves', async () => {
    const held = await heldServer(200, { data: true })
    const client = clientFor(server as TestServer, {}, transport)
    const settled: string[] = []
    const call = client.events.cancel('tx-1').then((result) => settled.push(`call ${result}`))
    await held.requestArrived
    const closing = client.close().then(() => settled.push('close'))
    const again = client.close().then(() => settled.push('close again'))
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Neither close() has returned while the response is still to come.
    expect(settled).toEqual([])
    held.answer()
    await Promise.all([call, closing, again])
    expect(settled).toEqual(['call true', 'close', 'close again'])
    expect(server?.requests()).toBe(1)
  })

  it('does not retry it: a 503 answered after close() fails the call with ClientClosedError at once, one request sent', async () => {
    // A retry would wait 30 s first: the call must not.
    const held = await heldServer(503, { message: 'busy' }, { 'retry-after': '30' })
    const client = clientFor(server as TestServer, {}, transport)
    const call = rejectionOf(client.events.cancel('tx-1'))
    await held.requestArrived
    const closing = client.close()
    held.answer()
    const error = await call
    await closing
    expect(error).toBeInstanceOf(ClientClosedError)
    expect((error as NotifyKitError).attempts).toBe(1)
    expect(server?.requests()).toBe(1)
  })
})
