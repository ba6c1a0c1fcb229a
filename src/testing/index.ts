export * from './fake/index.js'
export { type FetchHandler, FetchHandlerDispatcher } from './fetch-dispatcher.js'
export { createMswDispatcher } from './msw-dispatcher.js'
export { type FakeServer, type ServedHandler, type ServeOptions, serveFetchHandler } from './serve.js'
