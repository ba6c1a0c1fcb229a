// Judges one run: the scenario's own checks, and what the Node side saw, which the runtime cannot
// vouch for itself (the key on the retry, the redirect target left alone, the events stored).
import type { MatrixServer } from './fake-server.js'
import { BULK_EVENTS, BULK_WORKFLOW, type ScenarioReport, SUBSCRIBER_ID } from './protocol.js'

export interface Verdict {
  checks: number
  failures: string[]
}

export interface Expectation {
  build: 'node' | 'portable'
  userAgent: string | RegExp
}

export function verify(answer: unknown, server: MatrixServer, expected: Expectation): Verdict {
  if (!isReport(answer)) {
    return { checks: 1, failures: [`not a scenario report: ${JSON.stringify(answer)?.slice(0, 300)}`] }
  }
  const failures = answer.checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}`)
  const serverChecks = serverSide(answer, server, expected)
  for (const [name, failure] of serverChecks) if (failure) failures.push(`${name}: ${failure}`)
  return { checks: answer.checks.length + serverChecks.length, failures }
}

/** Each check's name and its failure, or `undefined` when it passed. */
function serverSide(
  report: ScenarioReport,
  server: MatrixServer,
  expected: Expectation,
): [string, string | undefined][] {
  const { fake, records } = server
  const notifications = fake.notifications
  const storedTransactions = new Set(notifications.map((n) => n.transactionId))
  const bulkRequests = fake.requests.filter(
    (r) => r.method === 'POST' && r.path === '/v1/events/trigger/bulk',
  )
  const bulkKeys = new Set(bulkRequests.map((r) => r.headers['idempotency-key']))
  const bulkStored = notifications.filter((n) => n.template.triggers[0]?.identifier === BULK_WORKFLOW)
  const sdkRequests = fake.requests.filter((r) => r.headers['user-agent']?.startsWith('notifykit/'))
  const foreignAgents = sdkRequests
    .map((r) => r.headers['user-agent'] ?? '')
    .filter((agent) => !matches(agent.split(' ').slice(1).join(' '), expected.userAgent))
  const [firstKey, retryKey] = records.flakyKeys
  const messages = fake.messages(SUBSCRIBER_ID)
  return [
    [
      'the build the exports map gives',
      report.build === expected.build ? undefined : `${report.build}, not ${expected.build}`,
    ],
    [
      'server: the 503 and its retry carried one key, the one the SDK reported',
      records.flakyKeys.length === 2 &&
      firstKey !== '' &&
      firstKey === retryKey &&
      firstKey === report.retriedKey
        ? undefined
        : `keys seen ${JSON.stringify(records.flakyKeys)}, reported ${report.retriedKey}`,
    ],
    [
      'server: the redirect answered once, its target never contacted',
      records.redirectHits === 1 && records.redirectTargetHits === 0
        ? undefined
        : `${records.redirectHits} redirect(s), ${records.redirectTargetHits} request(s) to the target`,
    ],
    [
      `server: ${BULK_EVENTS} bulk events stored from 3 requests with 3 keys`,
      bulkStored.length === BULK_EVENTS && bulkRequests.length === 3 && bulkKeys.size === 3
        ? undefined
        : `${bulkStored.length} stored, ${bulkRequests.length} requests, ${bulkKeys.size} keys`,
    ],
    [
      'server: every transaction the SDK returned is stored',
      [
        report.triggerTransactionId,
        report.broadcastTransactionId,
        ...(report.bulkTransactionIds ?? []),
      ].every((id) => id !== undefined && storedTransactions.has(id))
        ? undefined
        : 'a returned transactionId is not among the stored notifications',
    ],
    [
      'server: email switched off, messages all read',
      fake.preferences(SUBSCRIBER_ID)?.global.channels.email === false &&
      messages.length > 0 &&
      messages.every((m) => m.read)
        ? undefined
        : `preferences ${JSON.stringify(fake.preferences(SUBSCRIBER_ID)?.global.channels)}, unread: ${
            messages
              .filter((m) => !m.read)
              .map((m) => m.workflowIdentifier)
              .join(', ') || 'none'
          }`,
    ],
    [
      'server: the user-agent names the runtime',
      sdkRequests.length > 0 && foreignAgents.length === 0
        ? undefined
        : `${sdkRequests.length} requests; unexpected: ${[...new Set(foreignAgents)].join(', ')}`,
    ],
  ]
}

function matches(value: string, expected: string | RegExp): boolean {
  return typeof expected === 'string' ? value === expected : expected.test(value)
}

function isReport(value: unknown): value is ScenarioReport {
  const checks = (value as Partial<ScenarioReport> | null)?.checks
  return Array.isArray(checks) && checks.length > 0
}
