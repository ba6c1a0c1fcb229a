import { describe, expect, it } from 'vitest'
import {
  type ApiError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  UnprocessableEntityError,
} from '../../src/index.js'
import { answeringClient, json, rejectionOf } from '../helpers/wire.js'

// The error bodies the 2026 server sends (apps/api/src/exception-filter.ts, its context flattened at
// the top and nested under `ctx`; libs/application-generic/src/commands/base.command.ts for a
// command's check, message with details since 2686c0572a "fix(shared): include validation details
// in CommandValidationException message (#10338)"; apps/api/src/app/events/exceptions/
// payload-validation-exception.ts for a payload against the workflow's schema), and the older shapes
// read leniently.

const NO_RETRIES = { maxRetries: 0 }

/** The exception filter's body for an HttpException: `{ ...ctx, statusCode, timestamp, path, message, ctx }`. */
function filterBody(
  statusCode: number,
  message: string,
  ctx: Record<string, unknown> = {},
  path = '/v1/events/trigger',
) {
  return { ...ctx, statusCode, timestamp: '2026-04-19T12:00:00.000Z', path, message, ctx }
}

async function errorFor(
  status: number,
  body: unknown,
  call: 'trigger' | 'get' = 'trigger',
): Promise<ApiError> {
  const { client } = answeringClient(() => json(body, status), NO_RETRIES)
  const promise =
    call === 'trigger'
      ? client.events.trigger({ name: 'welcome', to: 'user-1' })
      : client.notifications.get('n-1')
  return (await rejectionOf(promise)) as ApiError
}

describe('the 2026 server’s error bodies', () => {
  it('a DTO refusal: 422 "Validation Error", every message of errors.general, in the error’s message too', async () => {
    const body = {
      ...filterBody(422, 'Validation Error'),
      errors: {
        general: {
          messages: ['to should not be null or undefined', 'name must be a string'],
          value: 'No Value Recorded',
        },
      },
    }
    const error = await errorFor(422, body)
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    // No field: the server writes it into the message; no value: it recorded none.
    expect(error.issues).toEqual([
      { path: [], message: 'to should not be null or undefined' },
      { path: [], message: 'name must be a string' },
    ])
    expect(error.message).toBe(
      '422 Validation Error: to should not be null or undefined; name must be a string',
    )
    expect(error.body).toStrictEqual(body)
  })

  it('a command’s check: each field’s messages at its path, with the value; the message not repeated', async () => {
    const message =
      'Validation failed for ParseEventRequestMulticastCommand: payload: payload should not be null or undefined; subscriber.email: email must be an email, email must be shorter than or equal to 254 characters'
    const body = {
      ...filterBody(422, message),
      errors: {
        // The server's `value: undefined` does not survive JSON: the key is absent.
        payload: { messages: ['payload should not be null or undefined'] },
        'subscriber.email': {
          messages: ['email must be an email', 'email must be shorter than or equal to 254 characters'],
          value: 'not-an-email',
        },
        'to.0': { messages: ['must be a subscriber'], value: null },
      },
    }
    const error = await errorFor(422, body)
    expect(error.issues).toEqual([
      { path: ['payload'], message: 'payload should not be null or undefined' },
      { path: ['subscriber', 'email'], message: 'email must be an email', value: 'not-an-email' },
      {
        path: ['subscriber', 'email'],
        message: 'email must be shorter than or equal to 254 characters',
        value: 'not-an-email',
      },
      { path: ['to', 0], message: 'must be a subscriber', value: null },
    ])
    expect(error.message).toBe(`422 ${message}`)
  })

  it('404 "Notification not found": the message, no issues; the context read from either place', async () => {
    const body = filterBody(
      404,
      'Notification not found',
      { error: 'Not Found', statusCode: 404 },
      '/v1/notifications/n-1',
    )
    const error = await errorFor(404, body, 'get')
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error.message).toBe('404 Notification not found')
    expect(error.issues).toEqual([])
    expect(error.errorId).toBeUndefined()
  })

  it('a payload against the workflow’s schema: root.<field> under payload, with value and schemaPath', async () => {
    const errors = [
      {
        field: 'root.orderId',
        message: "must have required property 'orderId'",
        value: { amount: '12' },
        schemaPath: '#/required',
      },
      { field: 'amount', message: 'must be number', value: '12', schemaPath: '#/properties/amount/type' },
      {
        field: 'address.city',
        message: 'must be string',
        value: 7,
        schemaPath: '#/properties/address/properties/city/type',
      },
      { field: 'root', message: 'must be object', schemaPath: '#/type' },
    ]
    const ctx = { errors, schema: { type: 'object' }, type: 'PAYLOAD_VALIDATION_ERROR' }
    const message = `Payload validation failed: ${errors.map((item) => `${item.field}: ${item.message}`).join('; ')}`
    const error = await errorFor(400, filterBody(400, message, ctx))
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.issues).toEqual([
      {
        path: ['payload', 'orderId'],
        message: "must have required property 'orderId'",
        value: { amount: '12' },
        schemaPath: '#/required',
      },
      {
        path: ['payload', 'amount'],
        message: 'must be number',
        value: '12',
        schemaPath: '#/properties/amount/type',
      },
      {
        path: ['payload', 'address', 'city'],
        message: 'must be string',
        value: 7,
        schemaPath: '#/properties/address/properties/city/type',
      },
      { path: ['payload'], message: 'must be object', schemaPath: '#/type' },
    ])
    expect(error.message).toBe(`400 ${message}`)
  })

  it('a 500: errorId, the id the message asks to quote, in a field and in the message', async () => {
    const body = {
      ...filterBody(500, 'Internal server error, contact support and provide them with the errorId'),
      errorId: 'e7b1c0de-0000-4000-8000-000000000001',
    }
    const error = await errorFor(500, body)
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error.errorId).toBe('e7b1c0de-0000-4000-8000-000000000001')
    expect(error.message).toBe(
      '500 Internal server error, contact support and provide them with the errorId (errorId e7b1c0de-0000-4000-8000-000000000001)',
    )
  })

  it('a schema’s 400 (Zod Validation Failed): its errors list, each at its path', async () => {
    const ctx = { errors: [{ message: 'Required', path: ['steps', 0, 'name'] }] }
    const error = await errorFor(400, filterBody(400, 'Zod Validation Failed', ctx))
    expect(error.issues).toEqual([{ path: ['steps', 0, 'name'], message: 'Required' }])
    expect(error.message).toBe('400 Zod Validation Failed: steps.0.name: Required')
  })
})

describe('other shapes, read leniently', () => {
  it('the context only under ctx', async () => {
    const body = {
      statusCode: 422,
      message: 'Validation Error',
      ctx: { errors: { general: { messages: ['markAs must be one of: read, seen'] } } },
    }
    const error = await errorFor(422, body)
    expect(error.issues).toEqual([{ path: [], message: 'markAs must be one of: read, seen' }])
    expect(error.message).toBe('422 Validation Error: markAs must be one of: read, seen')
  })

  it('the top wins over ctx when both are there', async () => {
    const body = {
      message: 'x',
      errors: [{ message: 'top', path: [] }],
      ctx: { errors: [{ message: 'nested', path: [] }] },
    }
    expect((await errorFor(400, body)).issues).toEqual([{ path: [], message: 'top' }])
  })

  it('a framework refusal of older servers: message as a list', async () => {
    const body = {
      statusCode: 400,
      message: ['to must be an array', 'name should not be empty'],
      error: 'Bad Request',
    }
    const error = await errorFor(400, body)
    expect(error.issues).toEqual([
      { path: [], message: 'to must be an array' },
      { path: [], message: 'name should not be empty' },
    ])
    expect(error.message).toBe('400 to must be an array; name should not be empty')
  })

  it('drifted items are skipped, not thrown: a status’s class is never lost to its body', async () => {
    const body = {
      message: 'Validation Error',
      errors: {
        general: { messages: [7, 'kept'] },
        field: 'a bare text',
        other: null,
        list: { message: 'one' },
      },
    }
    const error = await errorFor(422, body)
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect(error.issues).toEqual([
      { path: [], message: 'kept' },
      { path: ['field'], message: 'a bare text' },
      { path: ['list'], message: 'one' },
    ])
    const listed = await errorFor(400, {
      message: 'm',
      errors: [null, 3, 'text', { message: 2 }, { path: ['a', {}, 1], message: 'deep' }],
    })
    expect(listed.issues).toEqual([
      { path: [], message: 'text' },
      { path: ['a', 1], message: 'deep' },
    ])
    for (const odd of ['<html>502</html>', '', null, [1, 2]]) {
      expect((await errorFor(502, odd)).issues).toEqual([])
    }
  })
})
