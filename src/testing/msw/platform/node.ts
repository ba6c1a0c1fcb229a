// The plug-in of notifykit/testing/msw that needs Node: undici. The portable build resolves this
// module to its sibling fetch.ts (tsup.config.ts), so its module graph holds no undici.
export { createMswDispatcher } from '../dispatcher.js'
