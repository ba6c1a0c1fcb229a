export { FetchHandlerDispatcher, type FetchHandler } from './fetch-dispatcher.js'
export { createMswDispatcher } from './msw-dispatcher.js'
