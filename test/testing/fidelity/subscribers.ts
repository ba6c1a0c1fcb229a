import type { FakeSubscriber } from '../../../src/testing/index.js'

/**
 * The server's e2e tests send to subscribers made by libs/testing's `SubscribersService`, which
 * gives each an email and a phone: without them the worker skips email and SMS steps.
 */
export function e2eSubscriber(subscriberId = 'sub-1'): FakeSubscriber {
  return { subscriberId, email: `${subscriberId}@example.com`, phone: '+15550100' }
}
