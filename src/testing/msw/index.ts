// notifykit/testing/msw: the test kit's msw plug-ins, apart from notifykit/testing so that only the
// code that uses msw compiles msw's types (they need the DOM library) and loads msw.
export type { MswDispatcherOptions, MswHandlerSource } from './dispatcher.js'
export { fakeHandlers } from './fake-handlers.js'
export { createMswDispatcher } from './platform/node.js'
