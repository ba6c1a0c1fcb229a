import { afterEach, describe, expect, it, vi } from 'vitest'
import { NotificationClient, NotifyKitError } from '../../src/index.js'
import { CANARY_KEY } from '../helpers/secrets.js'
import { startServer } from '../helpers/servers.js'
import { nodeFetch, TRANSPORTS } from '../helpers/transport.js'
import { countingConnection } from '../helpers/wire.js'

function construct(baseUrl: string, allowInsecureHttp?: boolean) {
  const { connection } = countingConnection(() => Response.json({ data: true }))
  return new NotificationClient({ apiKey: CANARY_KEY, baseUrl, ...connection, allowInsecureHttp })
}

function constructionError(baseUrl: string, allowInsecureHttp?: boolean): NotifyKitError | undefined {
  try {
    construct(baseUrl, allowInsecureHttp)
    return undefined
  } catch (error) {
    return error as NotifyKitError
  }
}

describe('baseUrl', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  it.each([
    'https://api.example.com',
    'https://api.example.com:8443/notify/',
    'HTTPS://API.EXAMPLE.COM',
    'http://127.0.0.1:3000',
    'http://127.1.2.3',
    // The URL parser's spellings of 127.0.0.1 and ::1 are loopback too.
    'http://127.1',
    'http://2130706433',
    'http://0x7f000001',
    'http://[::1]:3000',
    'http://[0:0:0:0:0:0:0:1]',
    'http://localhost:3000',
    'http://LOCALHOST',
  ])('accepts %s', (baseUrl) => {
    expect(constructionError(baseUrl)).toBeUndefined()
  })

  it.each([
    ['http: to a remote host', 'http://api.example.com', /would send the API key in clear/],
    ['http: to a private address', 'http://10.0.0.5', /would send the API key in clear/],
    ['http: to 0.0.0.0', 'http://0.0.0.0:3000', /would send the API key in clear/],
    // Resolved through DNS, which may answer with any address.
    ['http: to a subdomain of localhost', 'http://api.localhost', /would send the API key in clear/],
    ['http: to a name that starts like a loopback address', 'http://127.0.0.1.nip.io', /in clear/],
    ['http: to an IPv4-mapped address', 'http://[::ffff:127.0.0.1]', /in clear/],
    ['another scheme', 'ftp://api.example.com', /must use https:/],
    ['ws:', 'wss://api.example.com', /must use https:/],
    ['file:', 'file:///etc/passwd', /must use https:/],
    ['a relative URL', '/v1', /not a valid absolute URL/],
    ['garbage', 'not a url', /not a valid absolute URL/],
    ['a user name', 'https://user@api.example.com', /must not contain credentials/],
    ['a password', `https://user:${CANARY_KEY}@api.example.com`, /must not contain credentials/],
    ['a query', `https://api.example.com/?key=${CANARY_KEY}`, /must not contain a query string/],
    ['an empty query', 'https://api.example.com/?', /must not contain a query string/],
    ['a fragment', 'https://api.example.com/#top', /must not contain a fragment/],
    ['an empty fragment', 'https://api.example.com#', /must not contain a fragment/],
  ])('refuses %s at construction', (_label, baseUrl, message) => {
    const error = constructionError(baseUrl)
    expect(error).toBeInstanceOf(NotifyKitError)
    expect(error?.code).toBe('NOTIFYKIT_CONFIGURATION')
    expect(error?.message).toMatch(message)
    // Refusing a URL must not print the secret someone put into it.
    expect(error?.message).not.toContain(CANARY_KEY)
  })

  it('allows http: to a remote host only with allowInsecureHttp: true', () => {
    expect(constructionError('http://notify.internal:8080', true)).toBeUndefined()
    expect(constructionError('http://notify.internal:8080', false)).toBeInstanceOf(NotifyKitError)
  })

  it('allowInsecureHttp does not allow credentials, a query or a fragment', () => {
    expect(constructionError('http://u:p@notify.internal', true)?.message).toMatch(/credentials/)
    expect(constructionError('http://notify.internal/?a=1', true)?.message).toMatch(/query/)
    expect(constructionError('http://notify.internal/#a', true)?.message).toMatch(/fragment/)
  })

  it('applies the same rules to NOTIFYKIT_BASE_URL', () => {
    vi.stubEnv('NOTIFYKIT_BASE_URL', 'http://api.example.com')
    expect(() => new NotificationClient({ apiKey: 'key' })).toThrow(/would send the API key in clear/)
  })

  it('withOptions cannot downgrade a client to http: without allowInsecureHttp', () => {
    const client = construct('https://api.example.com')
    expect(() => client.withOptions({ baseUrl: 'http://api.example.com' })).toThrow(/in clear/)
  })

  it.each(TRANSPORTS)(
    'http: to 127.0.0.1 really works over %s: the loopback exception is usable for local servers',
    async (transport) => {
      const server = await startServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end('{"data":true}')
      })
      const connection = transport === 'fetch' ? { fetch: nodeFetch } : {}
      const client = new NotificationClient({
        apiKey: 'key',
        baseUrl: `${server.baseUrl}/prefix`,
        ...connection,
      })
      try {
        await expect(client.events.cancel('t1')).resolves.toBe(true)
        expect(server.received.map((request) => request.path)).toEqual(['/prefix/v1/events/trigger/t1'])
      } finally {
        await client.close()
        await server.close()
      }
    },
  )
})
