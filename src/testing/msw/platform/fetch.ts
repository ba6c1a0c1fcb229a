import { nodeOnly } from '../../platform/node-only.js'
import type * as NodePlugins from './node.js'

// The portable build's stand-in for ./node.ts: same name and type, and it fails, pointing at
// fake.fetch. fakeHandlers needs only msw, so it works in that build too.
export const createMswDispatcher: typeof NodePlugins.createMswDispatcher = () => {
  throw nodeOnly('createMswDispatcher', 'undici', 'notifykit/testing/msw')
}
