/** Events as the caller holds them: a list, a generator, a database cursor, a stream. */
export type EventIterable<Event> = Iterable<Event> | AsyncIterable<Event>

/** A request's worth of the caller's events, and where they sit in the source. */
export interface EventChunk {
  chunkIndex: number
  /** Position in the source of `events[0]`. */
  offset: number
  events: unknown[]
}

/** Strings are iterable too, but a string of events is a mistake, not a source. */
export function isEventIterable(value: unknown): value is EventIterable<unknown> {
  if (value === null || typeof value !== 'object') return false
  const candidate = value as { [Symbol.iterator]?: unknown; [Symbol.asyncIterator]?: unknown }
  return (
    typeof candidate[Symbol.iterator] === 'function' || typeof candidate[Symbol.asyncIterator] === 'function'
  )
}

/**
 * Reads the source `size` events at a time, each chunk as it is asked for, so that no more of the
 * source is held than the chunks being sent. The first `startAtChunk` chunks are read past without
 * being kept: a resumed send reads the same source from its start.
 */
export async function* readChunks(
  source: EventIterable<unknown>,
  size: number,
  startAtChunk: number,
): AsyncGenerator<EventChunk, void, undefined> {
  const firstKept = startAtChunk * size
  let index = 0
  let events: unknown[] = []
  for await (const event of source) {
    index++
    if (index <= firstKept) continue
    events.push(event)
    if (events.length === size) {
      yield { chunkIndex: (index - size) / size, offset: index - size, events }
      events = []
    }
  }
  if (events.length > 0) {
    const offset = index - events.length
    yield { chunkIndex: offset / size, offset, events }
  }
}

/**
 * The whole source as a list, for callers that need every event before sending (triggerBulk). What
 * is not a source reads as no events, which the caller's check of the list refuses.
 */
export async function collectEvents(source: unknown): Promise<readonly unknown[]> {
  if (Array.isArray(source)) return source
  if (!isEventIterable(source)) return []
  const events: unknown[] = []
  for await (const event of source) events.push(event)
  return events
}
