import type { FakeService } from '../../../src/testing/index.js'
import { API_KEY } from '../../helpers/fake.js'

export interface RawAnswer {
  status: number
  headers: Headers
  body: unknown
}

/**
 * One request through `fake.fetch`, as a user's code without the SDK sends it: for what the SDK
 * would refuse to send, and for the headers it does not hand back.
 */
export async function rawFetch(
  fake: FakeService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fake.fetch(`https://fake.test${path}`, {
    method,
    headers: { authorization: `ApiKey ${API_KEY}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}
