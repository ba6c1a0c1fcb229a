import { ResponseSecretScrubber } from '../redact.js'
import type { TransportSettings } from './types.js'

/** What every transport needs to read a response safely: the size cap, and the key to keep out of it. */
export interface ResponseGuard {
  maxResponseBytes: number
  /** To scrub it from errors raised under the transport (undici's, a user's fetch). */
  apiKey: string
  /** To scrub it from what a server echoes back, in headers and body. */
  scrubber: ResponseSecretScrubber
}

/** Built once per client: the scrubber prepares its search forms of the key up front. */
export function responseGuard({ maxResponseBytes, apiKey }: TransportSettings): ResponseGuard {
  return { maxResponseBytes, apiKey, scrubber: new ResponseSecretScrubber(apiKey) }
}
