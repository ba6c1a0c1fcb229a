export * from './events.js'
export * from './notifications.js'
export * from './shared.js'
export * from './subscribers.js'
