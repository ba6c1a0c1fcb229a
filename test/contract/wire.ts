import { NotificationClient, type NotificationClientOptions } from '../../src/index.js'
import type { FakeService } from '../../src/testing/index.js'
import { API_KEY } from '../helpers/fake.js'
import type { TransportName } from '../helpers/transport.js'
import { inMemory } from '../helpers/wire.js'
import { operationForRequest } from './openapi.js'

/** One request and its answer as they crossed the wire between the SDK and the fake. */
export interface Exchange {
  /** The document's operation the request is for; `undefined` when none matches. */
  operationId: string | undefined
  method: string
  /** As sent: percent-encoding kept. */
  pathname: string
  /** The query string as sent, `''` when none was. */
  search: string
  /** The request body parsed as JSON; `undefined` when none was sent. */
  requestBody: unknown
  /** The request body as sent, `''` when none was. */
  requestText: string
  status: number
  /** The response body parsed as JSON, as the fake sent it (`{ data }` envelope included). */
  responseBody: unknown
  responseText: string
}

export const BASE_URL = 'https://fake.test'

/**
 * A client reaching `fake` in memory over the named transport (undici through a dispatcher, or a
 * WHATWG fetch), recording every exchange at the fake's door: the bytes the SDK put on the wire and
 * the bytes the fake answered. Responses are not checked by the SDK (`responseValidation: 'off'`)
 * and nothing is retried, so what is recorded is exactly what one call sent and got. `handle` is the
 * recording door itself, for requests the SDK would refuse to send. Pass `exchanges` to record into a
 * list another client records into too.
 */
export function recordingClient(
  fake: FakeService,
  transport: TransportName,
  options: NotificationClientOptions = {},
  exchanges: Exchange[] = [],
): { client: NotificationClient; exchanges: Exchange[]; handle: (request: Request) => Promise<Response> } {
  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    const requestText = await request.clone().text()
    const response = await fake.handle(request)
    const responseText = await response.clone().text()
    exchanges.push({
      operationId: operationForRequest(request.method, url.pathname)?.operationId,
      method: request.method,
      pathname: url.pathname,
      search: url.search,
      requestBody: parseJson(requestText),
      requestText,
      status: response.status,
      responseBody: parseJson(responseText),
      responseText,
    })
    return response
  }
  const client = new NotificationClient({
    apiKey: API_KEY,
    baseUrl: BASE_URL,
    maxRetries: 0,
    responseValidation: 'off',
    logLevel: 'off',
    ...inMemory(handle, transport),
    ...options,
  })
  return { client, exchanges, handle }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
