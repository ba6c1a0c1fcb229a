/**
 * Runs `work` on the items of `source`, at most `concurrency` at a time, and yields the results in
 * the order of the items, whichever finishes first. The source is pulled only while fewer than
 * `concurrency` items run and fewer than `concurrency` results wait for the consumer: memory stays
 * bounded whatever the source's length, and a slow consumer slows the pulling.
 *
 * `stopReason` is asked before each pull: once it returns an error, nothing more is pulled, the
 * results of the items already started are yielded, then that error is thrown (as is an error of
 * the source). A consumer that stops early (`break`, `return()`) stops the pulling too; the items
 * already started run to their end before `return()` resolves. `work` must not reject.
 * @internal
 */
export async function* orderedPool<Item, Result>(
  source: AsyncIterator<Item>,
  concurrency: number,
  work: (item: Item) => Promise<Result>,
  stopReason: () => Error | undefined,
): AsyncGenerator<Result, void, undefined> {
  const queue: { done: boolean; result: Promise<Result> }[] = []
  let running = 0
  let finished = 0
  let pulling = true
  let sourceDone = false
  let failure: { error: unknown } | undefined
  let wake = () => {}
  try {
    for (;;) {
      while (pulling && running < concurrency && finished < concurrency) {
        const stop = stopReason()
        if (stop !== undefined) {
          failure = { error: stop }
          pulling = false
          break
        }
        let next: IteratorResult<Item>
        try {
          next = await source.next()
        } catch (error) {
          failure = { error }
          pulling = false
          sourceDone = true
          break
        }
        if (next.done) {
          pulling = false
          sourceDone = true
          break
        }
        const slot = { done: false, result: work(next.value) }
        running++
        const settled = () => {
          slot.done = true
          running--
          finished++
          wake()
        }
        slot.result.then(settled, settled)
        queue.push(slot)
      }
      const head = queue[0]
      if (head === undefined) break
      if (!head.done) {
        // Any item finishing may free a slot to pull into, not only the head.
        await new Promise<void>((resolve) => {
          wake = resolve
        })
        continue
      }
      queue.shift()
      finished--
      yield await head.result
    }
    if (failure !== undefined) throw failure.error
  } finally {
    pulling = false
    // Requests already sent may be applied: their end is waited for, never abandoned.
    await Promise.allSettled(queue.map((slot) => slot.result))
    if (!sourceDone) await source.return?.()
  }
}
