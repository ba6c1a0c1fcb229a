import { NotificationClient } from 'notifykit'
import { createFakeService, type FakeService } from 'notifykit/testing'

/** Where the examples run: the embedded fake service by default, a real server when env says so. */
export interface ExampleEnvironment {
  client: NotificationClient
  /** The fake, when the examples run against it; `undefined` against a real server. */
  fake: FakeService | undefined
  /** Where the calls go, for the printout. */
  target: string
  close(): Promise<void>
}

/**
 * With `NOTIFYKIT_BASE_URL` and `NOTIFYKIT_API_KEY` set, the examples talk to that server (the
 * workflows `welcome` and `weekly-digest` and the topic `beta-testers` must exist there). Otherwise
 * a fake service is started on 127.0.0.1 and seeded with them, and the client goes over a real socket.
 */
export async function openEnvironment(): Promise<ExampleEnvironment> {
  if (process.env.NOTIFYKIT_BASE_URL && process.env.NOTIFYKIT_API_KEY) {
    const client = new NotificationClient()
    return { client, fake: undefined, target: process.env.NOTIFYKIT_BASE_URL, close: () => client.close() }
  }
  const apiKey = 'demo-key'
  const fake = createFakeService({
    apiKey,
    workflows: [
      { identifier: 'welcome', name: 'Welcome', steps: [{ type: 'in_app' }, { type: 'email' }] },
      {
        identifier: 'weekly-digest',
        name: 'Weekly digest',
        steps: [{ type: 'digest', amount: 7, unit: 'days' }, { type: 'email' }],
      },
      { identifier: 'security-alert', name: 'Security alert', critical: true, steps: [{ type: 'email' }] },
    ],
    subscribers: [
      { subscriberId: 'ada', email: 'ada@example.com', firstName: 'Ada' },
      { subscriberId: 'grace', email: 'grace@example.com', firstName: 'Grace' },
      { subscriberId: 'linus', email: 'linus@example.com', firstName: 'Linus' },
    ],
    topics: [{ topicKey: 'beta-testers', subscribers: ['ada', 'grace', 'linus'] }],
  })
  const server = await fake.listen()
  const client = new NotificationClient({ apiKey, baseUrl: server.baseUrl })
  return {
    client,
    fake,
    target: `fake service at ${server.baseUrl}`,
    close: async () => {
      await client.close()
      await server.close()
    },
  }
}

/** A step of an example: prints what it did, and remembers whether it did what it should. */
export class Account {
  failures = 0

  step(title: string): void {
    console.log(`\n▸ ${title}`)
  }

  line(text: string): void {
    console.log(`  ${text}`)
  }

  check(ok: boolean, what: string): void {
    if (!ok) this.failures++
    console.log(`  ${ok ? '✔' : '✘'} ${what}`)
  }
}
