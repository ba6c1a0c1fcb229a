import { HttpError } from './http.js'
import type { FakeState } from './state.js'
import type { FakeMessage } from './types.js'
import type { MarkAllInput, MarkAs } from './validation.js'

/**
 * What each `markAs` matches and what it sets, as the server's update query does: `read` and
 * `unread` also set `seen`; `seen` and `unseen` leave `read` alone.
 */
const MARK: Record<MarkAs, { matches: Partial<FlagSet>; sets: Partial<FlagSet> }> = {
  read: { matches: { read: false }, sets: { read: true, seen: true } },
  unread: { matches: { read: true }, sets: { read: false, seen: true } },
  seen: { matches: { seen: false }, sets: { seen: true } },
  unseen: { matches: { seen: true }, sets: { seen: false } },
}

type FlagSet = Pick<FakeMessage, 'read' | 'seen'>

/**
 * POST /v1/subscribers/:subscriberId/messages/mark-all: returns how many messages the server's
 * query matched (every match is changed, as the server also stamps the read or seen date), so `0`
 * when none was in the other state. With feed identifiers, only messages of those feeds count;
 * messages without a feed never match a feed filter, and an empty list matches no feed.
 */
export function markAll(state: FakeState, subscriberId: string, input: MarkAllInput): number {
  if (!state.subscribers.has(subscriberId)) {
    throw new HttpError(
      404,
      `Subscriber ${subscriberId} does not exist in environment ${state.environmentId}, ` +
        'please provide a valid subscriber identifier',
    )
  }
  const feeds = input.feedIdentifiers && new Set(input.feedIdentifiers)
  const { matches, sets } = MARK[input.markAs]
  const now = new Date().toISOString()
  let changed = 0
  for (const message of state.messages) {
    if (message.subscriberId !== subscriberId) continue
    if (feeds && (message.feedIdentifier === null || !feeds.has(message.feedIdentifier))) continue
    const matched = (Object.keys(matches) as (keyof FlagSet)[]).every(
      (flag) => message[flag] === matches[flag],
    )
    if (!matched) continue
    Object.assign(message, sets, { updatedAt: now })
    changed += 1
  }
  return changed
}
