import { MAX_EVENTS_PER_BULK_REQUEST } from '../../schemas/events.js'
import type { EventIterable } from './event-source.js'

/**
 * Reads `source` a request's worth (100 events) at a time, runs `send` on each chunk, and yields
 * what each returns in the order of the chunks. At most `concurrency` chunks are being sent or
 * waiting for the consumer: the next chunk is read only when the consumer has taken the oldest,
 * so memory stays bounded whatever the source's length and a slow consumer slows the reading. (A
 * slow oldest request holds back the next one even when the others are done: the price of a short
 * pool, which pacing by the rate limiter makes moot.)
 *
 * The first `startAtChunk` chunks are read past without being kept (a resumed send reads the same
 * source from its start). `beforeChunk` runs before each chunk is read and throws to stop the
 * reading; so does an error of the source: the results of the chunks already started are yielded,
 * then that error is thrown. A consumer that stops early (`break`, `return()`) stops the reading
 * and closes the source; the chunks already started run to their end before `return()` resolves.
 * `send` must not reject.
 * @internal
 */
export async function* sendInOrder<Result>(
  source: EventIterable<unknown>,
  startAtChunk: number,
  concurrency: number,
  beforeChunk: () => void,
  send: (offset: number, events: unknown[]) => Promise<Result>,
): AsyncGenerator<Result, void, undefined> {
  const started: Promise<Result>[] = []
  let offset = startAtChunk * MAX_EVENTS_PER_BULK_REQUEST
  let position = 0
  let events: unknown[] = []
  let failure: [unknown] | undefined
  try {
    try {
      beforeChunk()
      for await (const event of source) {
        if (position++ < offset) continue
        if (events.push(event) < MAX_EVENTS_PER_BULK_REQUEST) continue
        started.push(send(offset, events))
        offset += events.length
        events = []
        if (started.length >= concurrency) yield started.shift() as Promise<Result>
        beforeChunk()
      }
      if (events.length > 0) started.push(send(offset, events))
    } catch (error) {
      failure = [error]
    }
    while (started.length > 0) yield started.shift() as Promise<Result>
    if (failure) throw failure[0]
  } finally {
    // Requests already sent may be applied: their end is waited for, never abandoned.
    await Promise.allSettled(started)
  }
}
