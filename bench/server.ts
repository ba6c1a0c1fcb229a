// The benchmark's server, run in its own process so that the client's CPU is measured alone. It
// answers with pre-encoded bodies: the less it works, the less it competes for the machine's cores.
import { createServer } from 'node:http'
import { NOTIFICATION_RESPONSE_BODY, TRIGGER_RESPONSE_BODY, TRIGGER_RESULT } from './fixtures.js'

const triggerBody = Buffer.from(TRIGGER_RESPONSE_BODY)
const notificationBody = Buffer.from(NOTIFICATION_RESPONSE_BODY)
const notFoundBody = Buffer.from('{"statusCode":404,"message":"Not found","error":"Not Found"}')
const NOTIFICATIONS_PREFIX = '/v1/notifications/'
const triggerResultJson = JSON.stringify(TRIGGER_RESULT)

/** `{ data }` with one result per event: nothing is stored, so the server's memory stays flat. */
function bulkBody(requestBody: string): Buffer {
  const { events } = JSON.parse(requestBody) as { events: unknown[] }
  return Buffer.from(`{"data":[${Array(events.length).fill(triggerResultJson).join(',')}]}`)
}

let requestCount = 0

function headers(body: Buffer): Record<string, string | number> {
  requestCount++
  return {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
    'x-request-id': `req-${requestCount}`,
    'ratelimit-limit': 60000,
    'ratelimit-remaining': 59999,
    'ratelimit-reset': 1,
  }
}

const server = createServer((request, response) => {
  const { method, url = '' } = request
  if (method === 'POST' && url === '/v1/events/trigger') {
    // The body is drained, not parsed: the server's cost is not what is being measured.
    request.on('data', () => {})
    request.on('end', () => response.writeHead(201, headers(triggerBody)).end(triggerBody))
    return
  }
  if (method === 'POST' && url === '/v1/events/trigger/bulk') {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = bulkBody(Buffer.concat(chunks).toString())
      response.writeHead(201, headers(body)).end(body)
    })
    return
  }
  if (method === 'GET' && url.startsWith(NOTIFICATIONS_PREFIX)) {
    response.writeHead(200, headers(notificationBody)).end(notificationBody)
    return
  }
  request.resume()
  response.writeHead(404, headers(notFoundBody)).end(notFoundBody)
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
