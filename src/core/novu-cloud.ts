/**
 * The base URLs of Novu Cloud's API by region, for the `baseUrl` option (or `NOTIFYKIT_BASE_URL`).
 * Your dashboard's region decides which: an API key of one region is unknown to the other. A
 * self-hosted Novu takes its own API's URL instead.
 *
 * @example
 * ```ts
 * const client = new NotificationClient({ apiKey: process.env.NOVU_SECRET_KEY, baseUrl: NOVU_CLOUD_BASE_URLS.eu })
 * ```
 */
export const NOVU_CLOUD_BASE_URLS = {
  us: 'https://api.novu.co',
  eu: 'https://eu.api.novu.co',
} as const
