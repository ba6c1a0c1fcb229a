import { NotificationClient } from '../../../src/index.js'
import type { FakeService, FakeServiceOptions } from '../../../src/testing/index.js'
import { API_KEY, seededFake } from '../../helpers/fake.js'

/** The seeded fake and the SDK over its `fake.fetch`, as a user's test builds them. */
export function fakeWithClient(options?: FakeServiceOptions): {
  fake: FakeService
  client: NotificationClient
} {
  const fake = seededFake(options)
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: 'https://fake.test',
    fetch: fake.fetch,
    logLevel: 'off',
  })
  return { fake, client }
}
