// The test kit's plug-ins that need Node: undici (dispatchers) and node:http (a served fake). The
// portable build resolves this module to its sibling fetch.ts (tsup.config.ts), so its module graph
// holds neither.
export { FetchHandlerDispatcher } from '../fetch-dispatcher.js'
export { serveFetchHandler } from '../serve.js'
