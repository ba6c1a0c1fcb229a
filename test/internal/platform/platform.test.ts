import { afterEach, describe, expect, it, vi } from 'vitest'
import { type FetchRequestInit, NotificationClient, NotifyKitError, VERSION } from '../../../src/index.js'
import { platform as portable } from '../../../src/internal/platform/fetch.js'
import { isBrowser, readEnv, runtimeName } from '../../../src/internal/platform/runtime.js'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('the runtime in the user-agent', () => {
  it('is node/<version> on Node, after the package version', async () => {
    expect(runtimeName()).toBe(`node/${process.version}`)
    const sent = vi.fn(async (_url: string, _init: FetchRequestInit) => Response.json({ data: true }))
    await new NotificationClient({ apiKey: 'key', baseUrl: 'https://api.test', fetch: sent }).events.cancel(
      'tx',
    )
    const headers = new Headers(sent.mock.calls[0]?.[1].headers)
    expect(headers.get('user-agent')).toBe(`notifykit/${VERSION} node/${process.version}`)
  })

  it.each([
    ['Bun', { Bun: { version: '1.4.4' } }, 'bun/1.4.4'],
    ['Deno', { Deno: { version: { deno: '2.9.6' } } }, 'deno/2.9.6'],
    ['Vercel Edge', { EdgeRuntime: 'edge-runtime' }, 'edge-runtime'],
    ['Cloudflare Workers', { navigator: { userAgent: 'Cloudflare-Workers' } }, 'workerd'],
  ])('names %s, which also imitates Node', (_name, globals, expected) => {
    for (const [name, value] of Object.entries(globals)) vi.stubGlobal(name, value)
    expect(runtimeName()).toBe(expected)
  })
})

describe('environment variables', () => {
  it('are read from process.env where there is one', () => {
    vi.stubEnv('NOTIFYKIT_TEST_VARIABLE', 'set')
    expect(readEnv('NOTIFYKIT_TEST_VARIABLE')).toBe('set')
    vi.unstubAllEnvs()
  })

  it('are "not set" where reading them is forbidden (Deno without --allow-env throws NotCapable)', () => {
    const forbidden = new Proxy(
      {},
      {
        get() {
          throw new Error(
            'NotCapable: Requires env access to "NOTIFYKIT_LOG", run again with the --allow-env flag',
          )
        },
      },
    )
    vi.stubGlobal('process', { ...process, env: forbidden })
    expect(readEnv('NOTIFYKIT_LOG')).toBeUndefined()
  })

  it('are "not set" where there is no process at all (workerd, edge)', () => {
    vi.stubGlobal('process', undefined)
    expect(readEnv('NOTIFYKIT_API_KEY')).toBeUndefined()
  })
})

describe('the portable build in a browser', () => {
  it('refuses to construct: the API key would be readable by every visitor', () => {
    vi.stubGlobal('window', {})
    vi.stubGlobal('document', {})
    expect(isBrowser()).toBe(true)
    expect(() => portable.checkRuntime(false)).toThrow(NotifyKitError)
    expect(() => portable.checkRuntime(false)).toThrow(/refuses to run in a browser.*dangerouslyAllowBrowser/)
  })

  it('constructs when told dangerouslyAllowBrowser, and anywhere that is not a browser', () => {
    expect(() => portable.checkRuntime(false)).not.toThrow()
    vi.stubGlobal('window', {})
    vi.stubGlobal('document', {})
    expect(() => portable.checkRuntime(true)).not.toThrow()
  })

  it('refuses a dispatcher: it has no undici to send it through', () => {
    expect(() => portable.dispatcherConnector({ dispatch: () => true })).toThrow(
      /needs undici.*pass fetch instead/,
    )
  })

  it('uses the global fetch, looked up at each call', async () => {
    const answer = vi.fn(async () => new Response('{"data":true}', { status: 200 }))
    const transport = portable
      .defaultConnector(1_000)
      .transport({ origin: 'https://api.test', maxResponseBytes: 1_000, apiKey: 'key' })
    vi.stubGlobal('fetch', answer)
    const response = await transport.send(
      { method: 'GET', path: '/v1/x', headers: { accept: 'application/json' }, body: undefined },
      1_000,
      undefined,
    )
    expect(response).toMatchObject({ status: 200, body: '{"data":true}' })
    expect(answer).toHaveBeenCalledWith(
      'https://api.test/v1/x',
      expect.objectContaining({ redirect: 'manual' }),
    )
  })

  it('says so when the runtime has no fetch', () => {
    vi.stubGlobal('fetch', undefined)
    expect(() => portable.defaultConnector(1_000)).toThrow(/no global fetch: pass one with the fetch option/)
  })
})
