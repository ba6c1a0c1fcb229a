import type { Dispatcher } from 'undici'
import { NotifyKitError } from '../../core/errors.js'
import { createAgent, undiciConnector } from '../transport/undici.js'
import type { Platform } from './types.js'

/** Node: undici, with a keep-alive Agent of the client's own unless the user passes a dispatcher. */
export const platform: Platform = {
  checkRuntime() {},
  defaultConnector: (timeoutMs) => undiciConnector(createAgent(timeoutMs), true),
  dispatcherConnector(dispatcher) {
    // Bun's stand-in for undici has an Agent without `dispatch`: every call would fail the same way.
    if (typeof (dispatcher as Partial<Dispatcher> | null)?.dispatch !== 'function') {
      throw new NotifyKitError(
        'The dispatcher option must be an undici Dispatcher (Agent, ProxyAgent, MockAgent…): this one has no dispatch() method. On runtimes without undici, pass fetch instead',
      )
    }
    return undiciConnector(dispatcher as Dispatcher, false)
  },
}
