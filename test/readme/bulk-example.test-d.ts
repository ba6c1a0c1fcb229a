// The README's "Bulk at any size" examples, compiled with a typed client. Each part between two
// `// ⟩ README` lines is one `ts` block of README.md, character for character (bulk-example.test.ts).

// ⟩ README
import { BulkTriggerError, NotificationClient, type TriggerEventOf, TriggerNotSentError } from 'notifykit'
import { z } from 'zod'

const client = new NotificationClient({
  apiKey: process.env.NOTIFYKIT_API_KEY,
  baseUrl: 'https://api.example.com',
  workflows: { 'weekly-digest': z.object({ week: z.string() }) }, // optional: see Typed workflows
})

const users = [{ id: 'user-1' }, { id: 'user-2' }] // your subscribers
// A list built before the call names its type: TypeScript would widen each `name` to `string`.
const events: TriggerEventOf<typeof client, 'weekly-digest'>[] = users.map((user) => ({
  name: 'weekly-digest',
  to: user.id,
  payload: { week: '2026-W47' },
}))
const results = await client.events.triggerBulk(events, {
  idempotencyKey: 'digest-2026-W47', // request i is sent with the key `digest-2026-W47:i`
  concurrency: 4,
  onProgress: ({ sent, failed, total }) => console.log(`${sent + failed}/${total}`),
})
results[0]?.transactionId // the result of events[0]
// ⟩ README
try {
  await client.events.triggerBulk(events, { idempotencyKey: 'digest-2026-W47' })
} catch (error) {
  if (!(error instanceof BulkTriggerError)) throw error
  for (const { events: failed, error: why } of error.failures) {
    const rows = failed.map((event) => event.transactionId ?? event.index).join(', ')
    // Not sent: the same key replays that answer; fix the cause, send the event under a new key.
    if (why instanceof TriggerNotSentError) console.error(`not sent: ${rows}:`, why.status)
    // Refused: fix the event. A failed request: the same call and key later sends what did not finish.
    else console.warn(`not sent: ${rows}:`, why.message)
  }
}
// ⟩ README

// What the README's blocks promise of the types.
type DigestEvent = TriggerEventOf<typeof client, 'weekly-digest'>

import { expectTypeOf, test } from 'vitest'

test('the client of the README example is typed, so its events are checked', () => {
  expectTypeOf(client).toEqualTypeOf<NotificationClient<{ 'weekly-digest': { week: string } }>>()
  // @ts-expect-error a misspelt payload field in a list like the README's
  const typo: DigestEvent[] = users.map((user) => ({
    name: 'weekly-digest',
    to: user.id,
    payload: { wek: '2026-W47' },
  }))
  expectTypeOf(typo).toBeArray()
})
