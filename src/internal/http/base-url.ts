import { NotifyKitError } from '../../core/errors.js'

interface ParsedBaseUrl {
  /** `https://host:port`, what undici dials. */
  origin: string
  /** The path prefix in front of every operation's path, without a trailing slash. */
  basePath: string
}

/**
 * Checks the base URL once, at construction: the key must not travel in clear to a remote host, and
 * nothing that would end up beside the key in a log (credentials) or confuse path joining (query,
 * fragment) is allowed.
 */
export function parseBaseUrl(baseUrl: string, allowInsecureHttp: boolean): ParsedBaseUrl {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new NotifyKitError('baseUrl is not a valid absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new NotifyKitError(`baseUrl must use https: (got ${url.protocol})`)
  }
  if (url.username || url.password) throw new NotifyKitError('baseUrl must not contain credentials')
  if (url.search || baseUrl.includes('?')) throw new NotifyKitError('baseUrl must not contain a query string')
  if (url.hash || baseUrl.includes('#')) throw new NotifyKitError('baseUrl must not contain a fragment')
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopback(url.hostname)) {
    throw new NotifyKitError(
      `baseUrl uses http: to ${url.hostname}, which would send the API key in clear; use https:, or set allowInsecureHttp: true for a private network`,
    )
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') }
}

/**
 * The hosts whose traffic never leaves the machine. The URL parser has already normalised the
 * spellings (`127.1`, `0x7f000001`, `[0:0::1]`). Subdomains of `localhost` are not included: Node
 * resolves them through DNS, which may answer with any address.
 */
function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}
