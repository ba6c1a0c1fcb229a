import { describe, expectTypeOf, test } from 'vitest'
import { createFakeService, type FakeSubscriberRecord } from '../../../src/testing/index.js'

describe('fake.subscribers types', () => {
  const fake = createFakeService()

  test('typed records, read-only', () => {
    expectTypeOf(fake.subscribers).toEqualTypeOf<readonly FakeSubscriberRecord[]>()
    expectTypeOf(fake.subscriber('u1')).toEqualTypeOf<FakeSubscriberRecord | undefined>()
    expectTypeOf<FakeSubscriberRecord['email']>().toEqualTypeOf<string | null | undefined>()
    const record = fake.subscriber('u1')
    if (record) {
      // @ts-expect-error the fake's state is changed through requests or add*(), not through the view
      record.email = 'x'
      // @ts-expect-error a typo in a field name does not compile
      void record.emial
    }
    // @ts-expect-error the list is read-only
    fake.subscribers.push(record)
  })
})
