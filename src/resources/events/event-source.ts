/** Events as the caller holds them: a list, a generator, a database cursor, a stream. */
export type EventIterable<Event> = Iterable<Event> | AsyncIterable<Event>

/** Strings are iterable too, but a string of events is a mistake, not a source. */
export function isEventIterable(value: unknown): value is EventIterable<unknown> {
  return value instanceof Object && (Symbol.iterator in value || Symbol.asyncIterator in value)
}

/**
 * The whole source as a list, for callers that need every event before sending (triggerBulk). What
 * is not a source reads as no events, which the caller's check of the list refuses.
 */
export async function collectEvents(source: unknown): Promise<readonly unknown[]> {
  if (Array.isArray(source)) return source
  const events: unknown[] = []
  if (isEventIterable(source)) for await (const event of source) events.push(event)
  return events
}
