import { describe, expectTypeOf, test } from 'vitest'
import {
  createFakeService,
  type FakeRequestRecord,
  type FakeSubscriberRecord,
} from '../../../src/testing/index.js'

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

describe('failNext targets', () => {
  const fake = createFakeService()

  test('method, path, idempotencyKey and when, on both kinds of fault', () => {
    fake.failNext({ method: 'POST', path: '/v1/events/trigger/bulk', idempotencyKey: /:2$/, status: 503 })
    fake.failNext({ path: /preferences$/, dropConnection: true, afterApply: true, times: 2 })
    fake.failNext({
      when: (request) => {
        expectTypeOf(request).toEqualTypeOf<FakeRequestRecord>()
        return request.path.endsWith('/bulk')
      },
      status: 500,
    })
    // @ts-expect-error a misspelt target is not silently ignored
    fake.failNext({ status: 503, pathname: '/v1/events/trigger' })
    // @ts-expect-error a path is a string or a RegExp
    fake.failNext({ status: 503, path: 42 })
    // @ts-expect-error a fault is a status or a dropped connection
    fake.failNext({ path: '/v1/events/trigger' })
  })

  test('reset takes keepAdded', () => {
    fake.reset()
    fake.reset({ keepAdded: false })
    // @ts-expect-error misspelt option
    fake.reset({ keepAdd: false })
  })
})

describe('the msw plug-ins are in notifykit/testing/msw', () => {
  test('fakeHandlers(fake) takes a fake; the fake has no handlers of its own', async () => {
    const fake = createFakeService()
    const { fakeHandlers } = await import('../../../src/testing/msw/index.js')
    expectTypeOf(fakeHandlers(fake)).toEqualTypeOf<import('msw').HttpHandler[]>()
    // @ts-expect-error moved: `fakeHandlers(fake)` from notifykit/testing/msw
    void fake.handlers
  })
})
