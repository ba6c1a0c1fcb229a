import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DELIBERATE_DIFFERENCES, explainedBy } from './deliberate-differences.js'
import { generate } from './generate.js'
import {
  allOperations,
  componentSchema,
  DOCUMENT_SHA256,
  formatProblem,
  OPERATION_IDS,
  openApiDocument,
  operationForRequest,
  queryProblems,
  requestSchemaOf,
  responseSchemaOf,
} from './openapi.js'

// The ground the contract tests stand on: the vendored document is the published one, unchanged; the
// validators compiled from it refuse what it refuses; the exceptions are still needed.

describe('the vendored OpenAPI document', () => {
  it('is byte-identical to the published one, as its README records', () => {
    const readme = readFileSync(new URL('./reference/README.md', import.meta.url), 'utf8')
    expect(readme).toContain(DOCUMENT_SHA256)
  })

  it('is version 3.18.1 of the service’s document, OpenAPI 3.0, under the MIT licence', () => {
    expect(openApiDocument.openapi).toBe('3.0.0')
    expect(openApiDocument.info.version).toBe('3.18.1')
    expect(openApiDocument.info.license?.name).toBe('MIT')
  })

  it('holds exactly the nine operations notifykit implements, at the paths notifykit calls', () => {
    const byId = Object.fromEntries(allOperations().map((o) => [o.operationId, `${o.method} ${o.path}`]))
    expect(byId).toEqual({
      [OPERATION_IDS['subscribers.preferences.update']]: 'PATCH /v2/subscribers/{subscriberId}/preferences',
      [OPERATION_IDS['subscribers.messages.markAll']]:
        'POST /v1/subscribers/{subscriberId}/messages/mark-all',
      [OPERATION_IDS['events.trigger']]: 'POST /v1/events/trigger',
      [OPERATION_IDS['events.cancel']]: 'DELETE /v1/events/trigger/{transactionId}',
      [OPERATION_IDS['notifications.get']]: 'GET /v1/notifications/{notificationId}',
      [OPERATION_IDS['events.triggerBulk']]: 'POST /v1/events/trigger/bulk',
      [OPERATION_IDS['events.broadcast']]: 'POST /v1/events/trigger/broadcast',
      [OPERATION_IDS['notifications.list']]: 'GET /v1/notifications',
      [OPERATION_IDS['subscribers.preferences.get']]: 'GET /v2/subscribers/{subscriberId}/preferences',
    })
  })
})

describe('the validators', () => {
  const trigger = requestSchemaOf(OPERATION_IDS['events.trigger'])

  it('refuse a missing required field, naming it', () => {
    expect(trigger.errorsOf({ name: 'welcome' })).toEqual(["/ must have required property 'to'"])
  })

  it('refuse a value outside an enum, listing the allowed ones', () => {
    expect(
      requestSchemaOf(OPERATION_IDS['subscribers.messages.markAll']).errorsOf({ markAs: 'archived' }),
    ).toEqual(['/markAs must be equal to one of the allowed values: ["read","seen","unread","unseen"]'])
  })

  it('follow $ref into the components, and report the path inside the value', () => {
    const errors = trigger.errorsOf({
      name: 'welcome',
      to: [{ subscriberId: 'a', channels: [{ providerId: 'slack' }] }],
    })
    expect(errors).toContain("/to/0/channels/0 must have required property 'credentials'")
  })

  it('take `nullable: true` as allowing null, and only there', () => {
    expect(trigger.errorsOf({ name: 'welcome', to: { subscriberId: 'a', email: null, data: null } })).toEqual(
      [],
    )
    expect(
      trigger.errorsOf({
        name: 'welcome',
        to: { subscriberId: 'a', subscriberIdAlias: null, channels: null },
      }),
    ).toContain('/to/channels must be array')
  })

  it('check response bodies per status, and refuse a status the operation does not document', () => {
    const notification = responseSchemaOf(OPERATION_IDS['notifications.get'], 200)
    expect(notification.errorsOf({ _environmentId: 'e', _organizationId: 'o', _subscriberId: 's' })).toEqual([
      "/ must have required property 'transactionId'",
    ])
    expect(() => responseSchemaOf(OPERATION_IDS['events.trigger'], 200)).toThrow(/documents no 200 response/)
  })

  it('check a query string against the query parameters: unknown keys, enums, bounds, lists', () => {
    const list = OPERATION_IDS['notifications.list']
    expect(queryProblems(list, '?channels=email&channels=sms&page=2&limit=50&transactionId=tx')).toEqual([])
    expect(queryProblems(list, '?channels=fax&limit=51&transactionIds=tx').map(formatProblem)).toEqual([
      '/channels/0 must be equal to one of the allowed values: ["in_app","email","sms","chat","push"]',
      '/limit must be <= 50',
      '/transactionIds is not a query parameter of the operation',
    ])
    expect(
      queryProblems(OPERATION_IDS['subscribers.preferences.get'], '?criticality=high').map(formatProblem),
    ).toEqual(['/criticality must be equal to one of the allowed values: ["critical","nonCritical","all"]'])
  })

  it('tell which operation a request is for, a literal segment winning over a parameter', () => {
    expect(operationForRequest('POST', '/v1/events/trigger/bulk')?.operationId).toBe(
      OPERATION_IDS['events.triggerBulk'],
    )
    expect(operationForRequest('DELETE', '/v1/events/trigger/bulk')?.operationId).toBe(
      OPERATION_IDS['events.cancel'],
    )
    expect(operationForRequest('GET', '/v1/events/trigger')).toBeUndefined()
  })
})

describe('the generator of bodies', () => {
  const execution = componentSchema('ActivityNotificationExecutionDetailResponseDto')

  it('gives required fields only, every field, or nullable fields null', () => {
    expect(Object.keys(generate(execution, 'required') as object).sort()).toEqual(
      ['_id', 'detail', 'isRetry', 'isTest', 'source', 'status'].sort(),
    )
    expect(generate(execution, 'every')).toMatchObject({
      raw: 'string',
      providerId: 'anypost',
      status: 'Success',
    })
    expect(generate(execution, 'nulls')).toMatchObject({ raw: null })
  })

  it('takes the document’s examples, and stops at a recursive reference', () => {
    // A job's `step` is a step whose `variants` are steps: built once, then an empty list.
    const job = generate({ $ref: '#/components/schemas/ActivityNotificationJobResponseDto' }, 'every') as {
      step: { variants: unknown[] }
    }
    expect(job.step.variants).toEqual([])
    expect(generate(componentSchema('DayScheduleDto'), 'every')).toEqual({
      isEnabled: true,
      hours: [{ start: '09:00 AM', end: '05:00 PM' }],
    })
  })
})

describe('DELIBERATE_DIFFERENCES', () => {
  it('names each difference once, with its reason', () => {
    const names = DELIBERATE_DIFFERENCES.map((difference) => difference.name)
    expect(new Set(names).size).toBe(names.length)
    for (const difference of DELIBERATE_DIFFERENCES) expect(difference.reason.length).toBeGreaterThan(40)
  })

  it.each(DELIBERATE_DIFFERENCES.filter((d) => d.check !== 'sdk-response').map((d) => [d.name, d] as const))(
    '%s: the document still refuses its sample with that problem',
    (_, difference) => {
      const found =
        difference.check === 'sdk-query'
          ? queryProblems(difference.operationId, difference.sample as string)
          : (difference.check === 'sdk-request'
              ? requestSchemaOf(difference.operationId)
              : responseSchemaOf(difference.operationId, difference.status ?? 200)
            ).problemsOf(difference.sample)
      const explained = found.filter(
        (problem) =>
          explainedBy(difference.check, difference.operationId, difference.status, problem) === difference,
      )
      expect(explained).not.toEqual([])
    },
  )
})
