// Type-level tests of the error classes (vitest typecheck and `tsc --noEmit` both run this file).
// Each `@ts-expect-error` is a line the compiler must keep rejecting.
import { describe, expectTypeOf, test } from 'vitest'
import {
  ApiError,
  type ApiIssue,
  ConnectionError,
  type ErrorCode,
  IdempotencyReplayError,
  NotifyKitError,
  RateLimitError,
  RequestValidationError,
  TimeoutError,
} from '../../src/index.js'

declare const error: unknown

describe('error.code', () => {
  test('instanceof narrows it to the class’s own literal', () => {
    if (error instanceof RateLimitError) expectTypeOf(error.code).toEqualTypeOf<'NOTIFYKIT_RATE_LIMIT'>()
    if (error instanceof TimeoutError) expectTypeOf(error.code).toEqualTypeOf<'NOTIFYKIT_TIMEOUT'>()
    if (error instanceof RequestValidationError)
      expectTypeOf(error.code).toEqualTypeOf<'NOTIFYKIT_REQUEST_VALIDATION'>()
    if (error instanceof IdempotencyReplayError) {
      expectTypeOf(error.code).toEqualTypeOf<'NOTIFYKIT_IDEMPOTENCY_REPLAY'>()
      expectTypeOf(error.firstError).toEqualTypeOf<NotifyKitError | undefined>()
      expectTypeOf(error.issues).toEqualTypeOf<ApiIssue[]>()
    }
  })

  test('a parent class has the codes of its family, the root all of them', () => {
    if (error instanceof ConnectionError)
      expectTypeOf(error.code).toEqualTypeOf<'NOTIFYKIT_CONNECTION' | 'NOTIFYKIT_TIMEOUT'>()
    if (error instanceof ApiError) {
      expectTypeOf<'NOTIFYKIT_RATE_LIMIT'>().toExtend<typeof error.code>()
      expectTypeOf<'NOTIFYKIT_TIMEOUT'>().not.toExtend<typeof error.code>()
    }
    if (error instanceof NotifyKitError) expectTypeOf(error.code).toEqualTypeOf<ErrorCode>()
  })

  test('comparing with another class’s code does not compile', () => {
    if (error instanceof RateLimitError) {
      // @ts-expect-error a RateLimitError never has the timeout code
      if (error.code === 'NOTIFYKIT_TIMEOUT') throw error
    }
  })
})

describe('internal members', () => {
  test('are not part of the errors’ types', () => {
    const failure = new NotifyKitError('x')
    // @ts-expect-error the request core's bookkeeping is not public
    failure.withContext({ method: 'GET' })
    expectTypeOf(failure).not.toHaveProperty('withContext')
    expectTypeOf(failure).not.toHaveProperty('withCallContext')
  })

  test('the call context is read-only for users', () => {
    const failure = new NotifyKitError('x')
    expectTypeOf(failure.method).toEqualTypeOf<string | undefined>()
    // @ts-expect-error read-only
    failure.attempts = 3
  })
})
