import type * as NodePlugins from './node.js'
import { nodeOnly } from './node-only.js'

/**
 * The portable build's stand-ins for the plug-ins of ./node.ts, with the same names and types: each
 * fails, saying what it needs and that `fake.fetch` works everywhere. This module and everything it
 * imports stay free of `undici`, `msw` and `node:` modules.
 */

// A class, so that `new` and `instanceof` work as they do with the Node build's; as no instance is
// ever made, it can stand for that class's type without being an undici Dispatcher.
export const FetchHandlerDispatcher = class {
  constructor() {
    throw nodeOnly('fake.dispatcher (a FetchHandlerDispatcher)', 'undici')
  }
} as unknown as typeof NodePlugins.FetchHandlerDispatcher

export const serveFetchHandler: typeof NodePlugins.serveFetchHandler = () =>
  Promise.reject(nodeOnly('fake.listen() (serveFetchHandler)', 'node:http'))
