// Type-level tests of ApiPromise: it takes the callbacks a Promise takes and stands wherever a
// Promise of the same result does (vitest typecheck and `tsc --noEmit` both run this file).
import { describe, expectTypeOf, test } from 'vitest'
import type { ApiPromise, TriggerResult } from '../../src/index.js'

declare const call: ApiPromise<TriggerResult>

describe('ApiPromise', () => {
  test('a rejection handler may declare the error type it expects, as with a Promise', () => {
    const settled = call.then(
      (result) => result.transactionId,
      (error: Error) => error,
    )
    expectTypeOf(settled).toEqualTypeOf<Promise<string | undefined | Error>>()
    expectTypeOf(call.catch((error: Error) => error.message)).toEqualTypeOf<Promise<TriggerResult | string>>()
  })

  test('it is assignable where a Promise of the same result is expected', () => {
    const promise: Promise<TriggerResult> = call
    const results: Promise<TriggerResult[]> = Promise.all([call, call])
    expectTypeOf(promise).toEqualTypeOf<Promise<TriggerResult>>()
    expectTypeOf(results).toEqualTypeOf<Promise<TriggerResult[]>>()
  })

  test('an unannotated rejection handler still sees unknown', () => {
    call.catch((error) => expectTypeOf(error).toEqualTypeOf<unknown>())
  })
})
