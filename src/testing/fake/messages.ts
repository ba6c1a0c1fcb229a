import { HttpError } from './http.js'
import type { FakeState } from './state.js'
import type { FakeMessage } from './types.js'
import type { MarkAllInput, MarkAs } from './validation.js'

/**
 * The flags each `markAs` sets. Read implies seen and unseen implies unread, so a message is never
 * read without having been seen.
 */
const EFFECT: Record<MarkAs, Partial<Pick<FakeMessage, 'read' | 'seen'>>> = {
  read: { read: true, seen: true },
  unread: { read: false },
  seen: { seen: true },
  unseen: { seen: false, read: false },
}

/**
 * POST /v1/subscribers/:subscriberId/messages/mark-all: returns how many messages changed, so `0`
 * when they already were in that state. With feed identifiers, only messages of those feeds count;
 * messages without a feed never match a feed filter. An empty list matches no feed, so it marks
 * nothing, as on the server (which looks the listed feeds up and marks the messages of those found).
 */
export function markAll(state: FakeState, subscriberId: string, input: MarkAllInput): number {
  if (!state.subscribers.has(subscriberId)) throw new HttpError(404, `Subscriber not found: ${subscriberId}`)
  const feeds = input.feedIdentifiers && new Set(input.feedIdentifiers)
  const effect = EFFECT[input.markAs]
  const now = new Date().toISOString()
  let changed = 0
  for (const message of state.messages) {
    if (message.subscriberId !== subscriberId) continue
    if (feeds && (message.feedIdentifier === null || !feeds.has(message.feedIdentifier))) continue
    const differs = (Object.keys(effect) as ('read' | 'seen')[]).some(
      (flag) => message[flag] !== effect[flag],
    )
    if (!differs) continue
    Object.assign(message, effect, { updatedAt: now })
    changed += 1
  }
  return changed
}
