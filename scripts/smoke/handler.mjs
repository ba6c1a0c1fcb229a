// A small serverless function: the client is made on the first invocation and reused while warm.
// Its settings come from NOTIFYKIT_API_KEY and NOTIFYKIT_BASE_URL, as a deployment would set them.
import { NotificationClient, NotifyKitError } from 'notifykit'

let client

export async function handler(event) {
  client ??= new NotificationClient({ maxRetries: 1, timeoutMs: 5_000 })
  try {
    const { data, response } = await client.events
      .trigger({ name: 'welcome', to: event.userId, payload: { plan: event.plan } })
      .withResponse()
    return {
      statusCode: 200,
      body: JSON.stringify({ transactionId: data.transactionId, attempts: response.attempts }),
    }
  } catch (error) {
    if (error instanceof NotifyKitError)
      return { statusCode: 502, body: JSON.stringify({ code: error.code }) }
    throw error
  }
}

export async function shutdown() {
  await client?.close()
}
