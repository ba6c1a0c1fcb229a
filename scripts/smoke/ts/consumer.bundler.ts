// TypeScript consumer for bundlers (moduleResolution bundler) of the main entry only: type-checked
// with no error allowed anywhere, which shows `notifykit` needs neither lib DOM nor skipLibCheck.
import { type BulkTriggerOptions, type Notification, NotificationClient, NotifyKitError } from 'notifykit'

const client = new NotificationClient({ apiKey: 'smoke-key', baseUrl: 'https://api.example.com' })
const bulkOptions: BulkTriggerOptions = {
  concurrency: 2,
  onProgress: ({ sent, total }) => console.log(`${sent}/${total}`),
}

export async function readNotification(id: string): Promise<Notification | undefined> {
  try {
    await client.events.triggerBulk([{ name: 'welcome', to: 'user-1' }], bulkOptions)
    return await client.notifications.get(id)
  } catch (error) {
    if (error instanceof NotifyKitError && error.code === 'NOTIFYKIT_NOT_FOUND') return undefined
    throw error
  }
}

// @ts-expect-error: a trigger needs a recipient
client.events.trigger({ name: 'welcome' })
