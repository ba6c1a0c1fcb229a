import { FakeState } from './state.js'
import type { FakeServiceOptions, FakeSubscriber, FakeTenant, FakeTopic, FakeWorkflow } from './types.js'

type Seed =
  | { kind: 'workflow'; value: FakeWorkflow }
  | { kind: 'subscriber'; value: FakeSubscriber }
  | { kind: 'topic'; value: FakeTopic }
  | { kind: 'tenant'; value: FakeTenant }

/**
 * What a test set up, as opposed to what the app under test did: the options of `createFakeService`
 * and every `add*()` call, in order. `reset()` builds a fresh state from it, so a workflow added in
 * `beforeAll` is still there for the second test.
 */
export class SeedLog {
  readonly #options: FakeServiceOptions
  readonly #added: Seed[] = []

  constructor(options: FakeServiceOptions) {
    this.#options = options
  }

  /** Applies `seed` to `state` and remembers it for later fresh states. */
  add(state: FakeState, seed: Seed): void {
    apply(state, seed)
    // A copy: a test that edits its object afterwards does not change what `reset()` restores.
    this.#added.push({ ...seed, value: structuredClone(seed.value) } as Seed)
  }

  forgetAdded(): void {
    this.#added.length = 0
  }

  /** A state holding the options' seeds, then the `add*()` calls', as if just made. */
  fresh(): FakeState {
    const state = new FakeState(this.#options.now)
    for (const value of this.#options.workflows ?? []) apply(state, { kind: 'workflow', value })
    for (const value of this.#options.subscribers ?? []) apply(state, { kind: 'subscriber', value })
    for (const value of this.#options.topics ?? []) apply(state, { kind: 'topic', value })
    for (const value of this.#options.tenants ?? []) apply(state, { kind: 'tenant', value })
    for (const seed of this.#added) apply(state, seed)
    return state
  }
}

function apply(state: FakeState, seed: Seed): void {
  switch (seed.kind) {
    case 'workflow':
      state.addWorkflow(seed.value)
      return
    case 'subscriber':
      state.upsertSubscriber(seed.value)
      return
    case 'topic':
      state.addTopic(seed.value)
      return
    case 'tenant':
      state.addTenant(seed.value)
      return
  }
}
