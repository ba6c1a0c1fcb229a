import { NotifyKitError } from '../../core/errors.js'
import { callGlobalFetch, fetchConnector, globalFetch } from '../transport/fetch.js'
import { isBrowser } from './runtime.js'
import type { Platform } from './types.js'

/**
 * Runtimes without Node sockets (workerd, edge, Bun, Deno): the runtime's own `fetch`. This module and
 * everything it imports stay free of `undici` and of `node:` modules.
 */
export const platform: Platform = {
  checkRuntime(dangerouslyAllowBrowser) {
    if (isBrowser() && !dangerouslyAllowBrowser) {
      throw new NotifyKitError(
        'NotificationClient refuses to run in a browser: its API key is a secret that every visitor of the page could read. Call the service from your server; set dangerouslyAllowBrowser: true only for a page that is itself private',
      )
    }
  },
  defaultConnector() {
    if (typeof globalFetch() !== 'function') {
      throw new NotifyKitError('This runtime has no global fetch: pass one with the fetch option')
    }
    return fetchConnector(callGlobalFetch)
  },
  dispatcherConnector() {
    throw new NotifyKitError(
      'The dispatcher option needs undici, which this build (for runtimes without Node sockets) does not load: pass fetch instead',
    )
  },
}
