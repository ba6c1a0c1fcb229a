// The test kit's plug-ins that need Node: undici (dispatchers), node:http (a served fake) and msw,
// loaded through Node's `require`. The portable build resolves this module to its sibling fetch.ts
// (tsup.config.ts), so its module graph holds none of them.
export { fakeMswHandlers } from '../fake/msw-handlers.js'
export { FetchHandlerDispatcher } from '../fetch-dispatcher.js'
export { createMswDispatcher } from '../msw-dispatcher.js'
export { serveFetchHandler } from '../serve.js'
