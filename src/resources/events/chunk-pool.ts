import { MAX_EVENTS_PER_BULK_REQUEST } from '../../schemas/events.js'
import type { EventIterable } from './event-source.js'

/**
 * Reads `source` a request's worth (100 events) at a time, runs `send` on each chunk, at most
 * `concurrency` at a time, and yields what each returns in the order of the chunks, whichever
 * finishes first. The source is read only while fewer than `concurrency` chunks are being sent and
 * fewer than `concurrency` results wait for the consumer: memory stays bounded whatever the
 * source's length, and a slow consumer slows the reading.
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
  const queue: { done: boolean; result: Promise<Result> }[] = []
  let running = 0
  let wake = () => {}
  // Yields the results ready at the head; waits for one to finish while no chunk may start, and,
  // with `all`, until every result is yielded.
  async function* ready(all: boolean): AsyncGenerator<Result, void, undefined> {
    for (let head = queue[0]; head; head = queue[0]) {
      if (head.done) {
        queue.shift()
        yield head.result
      } else if (all || running >= concurrency || queue.length - running >= concurrency) {
        // Any chunk finishing may free a slot, not only the head.
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      } else return
    }
  }
  let offset = startAtChunk * MAX_EVENTS_PER_BULK_REQUEST
  let position = 0
  let events: unknown[] = []
  const start = () => {
    const slot = { done: false, result: send(offset, events) }
    running++
    queue.push(slot)
    slot.result.then(() => {
      slot.done = true
      running--
      wake()
    })
    offset += events.length
    events = []
  }
  let failure: [unknown] | undefined
  try {
    try {
      beforeChunk()
      for await (const event of source) {
        if (position++ < offset) continue
        if (events.push(event) < MAX_EVENTS_PER_BULK_REQUEST) continue
        start()
        yield* ready(false)
        beforeChunk()
      }
      if (events.length > 0) start()
    } catch (error) {
      failure = [error]
    }
    yield* ready(true)
    if (failure) throw failure[0]
  } finally {
    // Requests already sent may be applied: their end is waited for, never abandoned.
    await Promise.allSettled(queue.map((slot) => slot.result))
  }
}
