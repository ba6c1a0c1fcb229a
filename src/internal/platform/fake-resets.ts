/**
 * How `fake.reset()` (notifykit/testing) tells the clients of the process that a test is over: a
 * count under a registered symbol of `globalThis`, the same for every copy and build of the package,
 * and for notifykit/testing, which the client never imports. Outside tests nothing changes it. It
 * holds no key and nothing of any client: each client compares it with the count its shared state
 * was made at.
 * @internal
 */
const RESETS = Symbol.for('notifykit.testing.resets')

type WithResets = { [RESETS]?: number }

/** How many times a fake was reset in this process. @internal */
export function fakeResets(): number {
  return (globalThis as WithResets)[RESETS] ?? 0
}

/** Called by `fake.reset()`: the pacing and retry budgets of every client start afresh. @internal */
export function announceFakeReset(): void {
  ;(globalThis as WithResets)[RESETS] = fakeResets() + 1
}
