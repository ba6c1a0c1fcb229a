// The bodies the benchmark server answers with and the event the clients send. Shapes follow the
// real server's trigger result and notification; the notification is sized like a real one (~20 KB).

export const API_KEY = 'nk_bench_0123456789abcdef'
/** As long as the SDK's own (`notifykit/<version> node/<version>`), for the baselines that send it too. */
export const SDK_USER_AGENT = `notifykit/0.1.0 node/${process.version}`
export const NOTIFICATION_ID = '66f1c0ffee0123456789abcd'

/** What every client triggers: a realistic small event. */
export const TRIGGER_EVENT = {
  name: 'order-shipped',
  to: { subscriberId: 'user-1', email: 'ada@example.com', firstName: 'Ada' },
  payload: { orderId: 'o-42', items: 3, total: 129.9, carrier: 'DHL' },
}

/** A trigger result: about 100 bytes once wrapped in `{ data }`. */
export const TRIGGER_RESULT = {
  acknowledged: true,
  status: 'processed',
  transactionId: 'tx-7f3c9a2e-41d8-4b8e-9a51-2c6f0e1d3b77',
}

const ISO = '2025-11-20T09:41:07.123Z'

function filter(field: string, value: string) {
  return {
    isNegated: false,
    type: 'BOOLEAN',
    value: 'AND',
    children: [
      { field, value, operator: 'EQUAL', on: 'subscriber' },
      { field: 'orderTotal', value: '100', operator: 'LARGER', on: 'payload' },
    ],
  }
}

function stepTemplate(channel: string, index: number) {
  return {
    _id: `66f1c0ffee01234567890${index}aa`,
    type: channel,
    subject: 'Your order {{payload.orderId}} has shipped',
    preheader: 'Tracking details inside',
    senderName: 'Example Shop',
    content: [
      {
        type: 'text',
        content: `Hi {{subscriber.firstName}}, your order {{payload.orderId}} with {{payload.items}} items is on its way with {{payload.carrier}}. ${'Thank you for shopping with us. '.repeat(9)}`,
      },
      {
        type: 'button',
        content: 'Track your parcel',
        url: 'https://shop.example.com/track/{{payload.orderId}}',
      },
    ],
    variables: [
      { name: 'orderId', type: 'String', required: true },
      { name: 'items', type: 'Number', required: false },
      { name: 'carrier', type: 'String', required: false },
    ],
    contentType: 'editor',
    active: true,
    createdAt: ISO,
    updatedAt: ISO,
  }
}

function step(channel: string, index: number, withVariants: boolean): Record<string, unknown> {
  return {
    _id: `66f1c0ffee0123456789${index}0bb`,
    active: true,
    replyCallback: { active: false, url: '' },
    controlVariables: { subject: 'Your order has shipped', body: 'Hi {{subscriber.firstName}}' },
    metadata: { timed: { weekDays: [], monthDays: [] } },
    issues: {},
    filters: [filter('isOnline', 'true')],
    template: stepTemplate(channel, index),
    ...(withVariants
      ? {
          variants: [
            { ...step(channel, index + 10, false), name: `${channel} (tenant acme)`, _parentId: `p${index}` },
            { ...step(channel, index + 20, false), name: `${channel} (locale de)`, _parentId: `p${index}` },
          ],
        }
      : {}),
    _templateId: `66f1c0ffee01234567890${index}cc`,
    name: `${channel} step`,
    _parentId: null,
  }
}

function executionDetail(jobIndex: number, index: number, status: string, detail: string) {
  return {
    _id: `66f1c0ffee012345678${jobIndex}${index}dd`,
    createdAt: ISO,
    status,
    detail,
    isRetry: false,
    isTest: false,
    providerId: 'sendgrid',
    raw: JSON.stringify({
      statusCode: 202,
      messageId: `msg-${jobIndex}-${index}`,
      headers: { server: 'nginx' },
    }),
    source: 'Internal',
  }
}

function job(channel: string, index: number) {
  return {
    _id: `66f1c0ffee0123456789${index}0ee`,
    type: channel,
    digest: {
      digestKey: 'orderId',
      amount: 5,
      unit: 'minutes',
      type: 'timed',
      events: [{ orderId: 'o-41' }, { orderId: 'o-42' }],
      backoff: false,
      backoffAmount: 1,
      backoffUnit: 'minutes',
      updateMode: false,
      timed: {
        atTime: '09:00',
        weekDays: ['monday', 'wednesday', 'friday'],
        monthDays: [1, 15],
        ordinal: '1',
        ordinalValue: 'day',
        monthlyType: 'each',
        cronExpression: '0 9 * * 1,3,5',
      },
    },
    executionDetails: [
      executionDetail(index, 1, 'Pending', 'Step queued'),
      executionDetail(index, 2, 'Success', 'Message sent'),
      executionDetail(index, 3, 'Success', 'Delivered to provider'),
    ],
    step: step(channel, index, true),
    overrides: { workflowId: 'order-shipped', stepId: `${channel}-step` },
    payload: { orderId: 'o-42', items: 3, total: 129.9, carrier: 'DHL' },
    providerId: 'sendgrid',
    status: 'completed',
    updatedAt: ISO,
    scheduleExtensionsCount: 0,
  }
}

/** A notification: 3 jobs (step with variants and filters, timed digest, 3 execution details each). */
export const NOTIFICATION = {
  _id: NOTIFICATION_ID,
  _environmentId: '66f1c0ffee0123456789e000',
  _organizationId: '66f1c0ffee0123456789o000',
  _subscriberId: '66f1c0ffee0123456789s000',
  transactionId: TRIGGER_RESULT.transactionId,
  _templateId: '66f1c0ffee0123456789t000',
  _digestedNotificationId: null,
  createdAt: ISO,
  updatedAt: ISO,
  channels: ['email', 'in_app', 'push'],
  subscriber: {
    _id: '66f1c0ffee0123456789s000',
    subscriberId: 'user-1',
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    phone: '+441234567890',
  },
  template: {
    _id: '66f1c0ffee0123456789t000',
    name: 'Order shipped',
    origin: 'novu-cloud',
    triggers: [
      {
        type: 'event',
        identifier: 'order-shipped',
        variables: [{ name: 'orderId' }, { name: 'items' }, { name: 'carrier' }],
        subscriberVariables: [{ name: 'firstName' }, { name: 'email' }],
      },
    ],
  },
  jobs: [job('email', 1), job('in_app', 2), job('push', 3)],
  payload: { orderId: 'o-42', items: 3, total: 129.9, carrier: 'DHL' },
  tags: ['orders', 'shipping'],
  controls: {},
  to: { subscriberId: 'user-1', email: 'ada@example.com' },
  topics: [
    { _topicId: '66f1c0ffee0123456789p001', topicKey: 'orders' },
    { _topicId: '66f1c0ffee0123456789p002', topicKey: 'vip' },
  ],
  severity: 'none',
  critical: false,
}

export const TRIGGER_RESPONSE_BODY = JSON.stringify({ data: TRIGGER_RESULT })
export const NOTIFICATION_RESPONSE_BODY = JSON.stringify({ data: NOTIFICATION })

/**
 * What the reads ask: the notifications of one trigger (`GET /v1/notifications?transactionId=…`),
 * and one subscriber's preferences (`GET /v2/subscribers/user-1/preferences`).
 */
export const LIST_TRANSACTION_ID = TRIGGER_RESULT.transactionId
export const PREFERENCES_SUBSCRIBER_ID = 'user-1'

/** A trigger to two subscribers read back: a page of two notifications like the one above (~40 KB). */
export const NOTIFICATIONS_PAGE = {
  page: 0,
  hasMore: false,
  pageSize: 10,
  data: [
    NOTIFICATION,
    {
      ...NOTIFICATION,
      _id: '66f1c0ffee0123456789abce',
      _subscriberId: '66f1c0ffee0123456789s001',
      subscriber: { ...NOTIFICATION.subscriber, _id: '66f1c0ffee0123456789s001', subscriberId: 'user-2' },
    },
  ],
}

function workflowPreference(identifier: string, name: string, channels: Record<string, boolean>) {
  return {
    enabled: true,
    channels,
    overrides: Object.keys(channels).map((channel) => ({ channel, source: 'template' })),
    workflow: { slug: `${identifier}-wf_66f1c0ffee`, identifier, name, updatedAt: ISO },
  }
}

/** A subscriber's preferences: global with a schedule, and three workflows (~1 KB). */
export const PREFERENCES = {
  global: {
    enabled: true,
    channels: { email: true, in_app: true, push: true, sms: false },
    schedule: {
      isEnabled: true,
      weeklySchedule: {
        monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] },
        friday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '01:00 PM' }] },
      },
    },
  },
  workflows: [
    workflowPreference('order-shipped', 'Order shipped', { email: true, in_app: true, push: true }),
    workflowPreference('weekly-digest', 'Weekly digest', { email: false }),
    workflowPreference('password-reset', 'Password reset', { email: true, sms: false }),
  ],
}

export const NOTIFICATIONS_PAGE_RESPONSE_BODY = JSON.stringify({ data: NOTIFICATIONS_PAGE })
export const PREFERENCES_RESPONSE_BODY = JSON.stringify({ data: PREFERENCES })
