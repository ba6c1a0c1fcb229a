import type { WithResponse } from '../../core/api-promise.js'
import type { CallInfo, NotifyKitHooks } from '../../core/hooks.js'
import { headerProblem } from '../http/headers.js'
import type { LevelLogger } from '../text/level-logger.js'
import type { Transport, WireRequest } from '../transport/types.js'
import type { Operation } from './operation.js'

// Small on purpose: every client bundles this module, hooks or not (the Worker bundle's budget). A
// client holds an `Observe` only when hooks were given; without, a call allocates nothing for them
// and reads no clock. With, a call is one `ObservedCall` and its methods: no closure per callback,
// since with OpenTelemetry on, this runs on every call of a busy service.

type Hooks = NotifyKitHooks<unknown>
type Callback = (argument: unknown, state: unknown) => unknown
/** What a call's response, or its error (`NotifyKitError`, `ApiError`), says of how it went. */
type Outcome = { attempts?: number; idempotencyKey?: string | undefined; status?: number }

/** What sends a call's attempts: the transport, or the call as the hooks see it. @internal */
export interface Sender {
  send: Transport['send']
  /** Told of each attempt's outcome and of each retry; only an observed call listens. */
  attempted?(status: number | undefined, error?: unknown): void
  retrying?(reason: string, delayMs: number): void
  /** Each hook's state for this call, by position; a batch's requests start with them as parents. */
  states?: unknown[]
}

/**
 * Runs one call as the hooks see it: `run` sends it through the `Sender` it is given, and the end is
 * reported from its outcome. `parent` is the batch (bulk send) the call is one request of.
 * @internal
 */
export type Observe = <T extends WithResponse<unknown>>(
  operation: Operation<unknown, unknown>,
  transport: Transport,
  run: (sender: Sender) => Promise<T>,
  parent?: Sender,
  batch?: boolean,
) => Promise<T>

/** A client's hooks, and how it reports one that breaks: once, not on every call. */
class HookList {
  readonly #reported: Record<string, boolean> = {}

  constructor(
    readonly list: readonly Hooks[],
    readonly logger: LevelLogger,
  ) {}

  report(what: string, error: unknown): void {
    if (this.#reported[what]) return
    this.#reported[what] = true
    const reason = (error as Error)?.message ?? error
    this.logger.warn(`hook ${what}, ignored (reported once): ${reason}`, { hook: what, reason })
  }

  /**
   * What a hook returned: an `async` hook's promise is never awaited, and its rejection is reported
   * as a throw is, instead of being left unhandled (which ends a Node process by default).
   */
  settle(callback: string, returned: unknown): unknown {
    if (typeof (returned as PromiseLike<unknown> | null)?.then === 'function') {
      ;(returned as PromiseLike<unknown>).then(undefined, (error: unknown) =>
        this.report(`${callback} rejected`, error),
      )
    }
    return returned
  }
}

/** One call as the hooks see it: their states, the clock, and the `Sender` its attempts go through. */
class ObservedCall implements Sender {
  readonly states: unknown[] = []
  readonly #hooks: HookList
  readonly #transport: Transport
  readonly #call: CallInfo
  readonly #started = performance.now()
  #attempt = 0
  #attemptStarted = 0

  constructor(hooks: HookList, transport: Transport, call: CallInfo, parent: unknown[] | undefined) {
    this.#hooks = hooks
    this.#transport = transport
    this.#call = call
    const { list } = hooks
    for (let index = 0; index < list.length; index++) {
      const hook = list[index] as Hooks
      try {
        this.states[index] = hooks.settle('onCallStart', hook.onCallStart?.(call, parent?.[index]))
      } catch (error) {
        hooks.report('onCallStart threw', error)
      }
    }
  }

  /** The hooks' `callback` (of hooks `from` to `to`) with their state; what one throws goes no further. */
  emit(callback: Exclude<keyof Hooks, 'onCallStart'>, argument: unknown, from = 0, to?: number): void {
    const { list } = this.#hooks
    const end = to ?? list.length
    for (let index = from; index < end; index++) {
      const hook = list[index] as Hooks
      try {
        this.#hooks.settle(
          callback,
          (hook[callback] as Callback | undefined)?.call(hook, argument, this.states[index]),
        )
      } catch (error) {
        this.#hooks.report(`${callback} threw`, error)
      }
    }
  }

  send(wire: WireRequest, timeoutMs: number, signal?: AbortSignal) {
    if (!this.#attempt++) this.#addHeaders(wire)
    this.#attemptStarted = performance.now()
    return this.#transport.send(wire, timeoutMs, signal)
  }

  attempted(status: number | undefined, error?: unknown): void {
    const durationMs = performance.now() - this.#attemptStarted
    this.emit('onAttempt', { call: this.#call, attempt: this.#attempt, status, error, durationMs })
  }

  retrying(reason: string, delayMs: number): void {
    this.emit('onRetry', { call: this.#call, attempt: this.#attempt, reason, delayMs })
  }

  /** From the result's response or the error: both say how many attempts, which key, what status. */
  end(result: unknown, error: unknown, { attempts = 0, idempotencyKey, status }: Outcome): void {
    const call = this.#call
    call.idempotencyKey ??= idempotencyKey
    const durationMs = performance.now() - this.#started
    this.emit('onCallEnd', { call, attempts, status, result, error, durationMs })
  }

  /** The call's own headers (`traceparent`) on its request, once, before the first attempt. */
  #addHeaders(wire: WireRequest): void {
    const { headers } = this.#call
    let merged: Record<string, string> | undefined
    for (const name in headers) {
      if (merged === undefined) {
        // A fresh object rather than new keys on a copy of the client's header templates, which V8
        // makes slow (a header named `__proto__` is not copied).
        merged = {}
        for (const own in wire.headers) merged[own] = wire.headers[own] as string
      }
      // The rule of a call's own headers: no way to smuggle a CR-LF in, nor to replace one.
      const problem = headerProblem(name, headers[name])
      if (problem) this.#hooks.report(`header ${JSON.stringify(name)}`, problem)
      else merged[name.toLowerCase()] ??= headers[name] as string
    }
    if (merged !== undefined) wire.headers = merged
  }
}

/** The `hooks` option as an `Observe`, `undefined` when there are none; a configuration error if it is not hooks. */
export function observer(
  option: unknown,
  settings: { origin: string; basePath: string },
  logger: LevelLogger,
): Observe | undefined {
  // Checked by the types alone: a value that is no hooks object fails at its first callback, which
  // is reported as a callback that throws is (never failing a call).
  const list = option === undefined ? [] : ([option].flat() as Hooks[])
  if (!list.length) return undefined
  const hooks = new HookList(list, logger)

  return <T extends WithResponse<unknown>>(
    operation: Operation<unknown, unknown>,
    transport: Transport,
    run: (sender: Sender) => Promise<T>,
    parent?: Sender,
    batch = false,
  ): Promise<T> => {
    const call: CallInfo = {
      operation: operation.name,
      method: operation.method,
      urlTemplate: settings.basePath + operation.path.template,
      origin: settings.origin,
      idempotencyKey: undefined,
      batch,
      headers: {},
    }
    const observed = new ObservedCall(hooks, transport, call, parent?.states)
    let outcome: Promise<T> | undefined
    // Runs once, whatever a wrapper does: calls `go` twice, never, or throws.
    const go = () => {
      outcome ??= run(observed).then(
        (result) => {
          observed.end(result.data, undefined, result.response)
          return result
        },
        (error) => {
          observed.end(undefined, error, error)
          throw error
        },
      )
    }
    // The first hook's wrapper outermost: its context is the outermost.
    let wrapped = go
    for (let index = list.length - 1; index >= 0; index--) {
      const inner = wrapped
      if (list[index]?.wrapCall) wrapped = () => observed.emit('wrapCall', inner, index, index + 1)
    }
    wrapped()
    go()
    return outcome as Promise<T>
  }
}
