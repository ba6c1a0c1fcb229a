// The benchmark's server, run in its own process so that the client's CPU is measured alone. It
// answers with pre-encoded bodies: the less it works, the less it competes for the machine's cores.
import { createServer } from 'node:http'
import {
  NOTIFICATION_RESPONSE_BODY,
  NOTIFICATIONS_PAGE_RESPONSE_BODY,
  PREFERENCES_RESPONSE_BODY,
  TRIGGER_RESPONSE_BODY,
  TRIGGER_RESULT,
} from './fixtures.js'

const triggerBody = Buffer.from(TRIGGER_RESPONSE_BODY)
const notificationBody = Buffer.from(NOTIFICATION_RESPONSE_BODY)
const pageBody = Buffer.from(NOTIFICATIONS_PAGE_RESPONSE_BODY)
const preferencesBody = Buffer.from(PREFERENCES_RESPONSE_BODY)
const notFoundBody = Buffer.from('{"statusCode":404,"message":"Not found","error":"Not Found"}')
const NOTIFICATIONS_PREFIX = '/v1/notifications/'
const triggerResultJson = JSON.stringify(TRIGGER_RESULT)

/** `{ data }` with one result per event: nothing is stored, so the server's memory stays flat. */
function bulkBody(requestBody: string): Buffer {
  const { events } = JSON.parse(requestBody) as { events: unknown[] }
  return Buffer.from(`{"data":[${Array(events.length).fill(triggerResultJson).join(',')}]}`)
}

let requestCount = 0

/**
 * The `trigger` bucket's headers, which the real server sends on every trigger answer: with them the
 * SDK's limiter engages (it reads `RateLimit-Policy` and `RateLimit-Remaining`), so the per-call rows
 * measure the default path as users run it. The bucket is one no run here comes near: 1,000,000 units
 * refilled in 1 s, where the fastest send, the memory figure's bulk at concurrency 4, draws about
 * 140,000 units/s and a trigger at concurrency 32 under 10,000. At those rates the bucket is full
 * again before the next request arrives, so `remaining` is the quota less the request's own cost (a
 * trigger 1, a bulk 100) and the reset (whole seconds until full) is 1: the limiter's picture stays
 * a fraction of a millisecond from full, and it never makes a call wait.
 */
const QUOTA = 1_000_000
function triggerBucket(cost: number): Record<string, string | number> {
  return {
    'ratelimit-policy': `${QUOTA};w=1`,
    'ratelimit-limit': QUOTA,
    'ratelimit-remaining': QUOTA - cost,
    'ratelimit-reset': 1,
  }
}
const TRIGGER_BUCKET = triggerBucket(1)
const BULK_BUCKET = triggerBucket(100)
/** Reads are not in the `trigger` category; their headers are as before. */
const OTHER_BUCKET = { 'ratelimit-limit': 60000, 'ratelimit-remaining': 59999, 'ratelimit-reset': 1 }

function headers(body: Buffer, bucket: Record<string, string | number>): Record<string, string | number> {
  requestCount++
  return {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
    'x-request-id': `req-${requestCount}`,
    ...bucket,
  }
}

const server = createServer((request, response) => {
  const { method, url = '' } = request
  if (method === 'POST' && url === '/v1/events/trigger') {
    // The body is drained, not parsed: the server's cost is not what is being measured.
    request.on('data', () => {})
    request.on('end', () => response.writeHead(201, headers(triggerBody, TRIGGER_BUCKET)).end(triggerBody))
    return
  }
  if (method === 'POST' && url === '/v1/events/trigger/bulk') {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = bulkBody(Buffer.concat(chunks).toString())
      response.writeHead(201, headers(body, BULK_BUCKET)).end(body)
    })
    return
  }
  // The list: a query string after the path, never a notification id.
  if (method === 'GET' && (url === '/v1/notifications' || url.startsWith('/v1/notifications?'))) {
    response.writeHead(200, headers(pageBody, OTHER_BUCKET)).end(pageBody)
    return
  }
  if (method === 'GET' && url.startsWith('/v2/subscribers/') && url.split('?')[0]?.endsWith('/preferences')) {
    response.writeHead(200, headers(preferencesBody, OTHER_BUCKET)).end(preferencesBody)
    return
  }
  if (method === 'GET' && url.startsWith(NOTIFICATIONS_PREFIX)) {
    response.writeHead(200, headers(notificationBody, OTHER_BUCKET)).end(notificationBody)
    return
  }
  request.resume()
  response.writeHead(404, headers(notFoundBody, OTHER_BUCKET)).end(notFoundBody)
})

// Idle keep-alive sockets must outlive the pauses between benchmark segments.
server.keepAliveTimeout = 120_000
server.headersTimeout = 121_000

server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('unexpected server address')
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`)
})

// The parent closes stdin when it is done (or dies): the server never outlives it.
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
