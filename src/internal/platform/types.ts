import type { Connector } from '../transport/types.js'

/**
 * What differs between the Node build (undici) and the portable build (fetch). The portable build is
 * the same sources with `platform/node.js` resolved to `platform/fetch.js` (tsup.config.ts), chosen by
 * the package's export conditions; nothing else in the SDK knows which build it is in.
 */
export interface Platform {
  /** Refuses to construct a client where its API key would be exposed (a browser), unless allowed. */
  checkRuntime(dangerouslyAllowBrowser: boolean): void
  /** How a client reaches the network when given neither `dispatcher` nor `fetch`. */
  defaultConnector(timeoutMs: number): Connector
  /** How a client sends through the undici `dispatcher` it was given. */
  dispatcherConnector(dispatcher: unknown): Connector
}
