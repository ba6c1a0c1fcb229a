import type { WithResponse } from '../core/api-promise.js'
import type { CallInfo, NotifyKitHooks } from '../core/hooks.js'
import { headerProblem } from './headers.js'
import type { LevelLogger } from './logger.js'
import type { Operation } from './operation.js'
import type { Transport, WireRequest } from './transport/types.js'

// Small on purpose: every client bundles this module, hooks or not (the Worker bundle's budget). A
// client holds an `Observe` only when hooks were given; without, a call allocates nothing for them
// and reads no clock.

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
  const reported: Record<string, boolean> = {}
  /** Warns of a broken hook once, not on every call. */
  const report = (what: string, error: unknown) => {
    if (reported[what]) return
    reported[what] = true
    const reason = (error as Error)?.message ?? error
    logger.warn(`hook ${what}, ignored (reported once): ${reason}`, { hook: what, reason })
  }

  return <T extends WithResponse<unknown>>(
    operation: Operation<unknown, unknown>,
    transport: Transport,
    run: (sender: Sender) => Promise<T>,
    parent?: Sender,
    batch = false,
  ): Promise<T> => {
    const started = performance.now()
    const headers: Record<string, string> = {}
    const call: CallInfo = {
      operation: operation.name,
      method: operation.method,
      urlTemplate: settings.basePath + operation.path.template,
      origin: settings.origin,
      idempotencyKey: undefined,
      batch,
      headers,
    }
    const states: unknown[] = []
    /** The hooks' `callback` (of hooks `from` to `to`) with their state; what one throws goes no further. */
    const emit = (callback: keyof Hooks, argument: unknown, from = 0, to = list.length) => {
      for (let index = from; index < to; index++) {
        const hook = list[index] as Hooks
        try {
          const start = callback === 'onCallStart'
          const state = (hook[callback] as Callback | undefined)?.call(
            hook,
            argument,
            start ? parent?.states?.[index] : states[index],
          )
          if (start) states[index] = state
        } catch (error) {
          report(`${callback} threw`, error)
        }
      }
    }
    let attempt = 0
    let attemptStarted = 0
    emit('onCallStart', call)
    const sender: Sender = {
      states,
      retrying: (reason, delayMs) => emit('onRetry', { call, attempt, reason, delayMs }),
      send(wire: WireRequest, timeoutMs: number, signal?: AbortSignal) {
        if (!attempt++) {
          // A copy rather than new keys on the request's own headers object: V8 makes adding a key to
          // a copy of the client's header templates cost µs (a header named `__proto__` is not copied).
          const merged: Record<string, string> = {}
          for (const name in wire.headers) merged[name] = wire.headers[name] as string
          for (const name in headers) {
            // The rule of a call's own headers: no way to smuggle a CR-LF in, nor to replace one.
            const problem = headerProblem(name, headers[name])
            if (problem) report(`header ${JSON.stringify(name)}`, problem)
            else merged[name.toLowerCase()] ??= headers[name] as string
          }
          wire.headers = merged
        }
        attemptStarted = performance.now()
        return transport.send(wire, timeoutMs, signal)
      },
      attempted: (status, error) => {
        emit('onAttempt', { call, attempt, status, error, durationMs: performance.now() - attemptStarted })
      },
    }
    /** From the result's response or the error: both say how many attempts, which key, what status. */
    const end = (result: unknown, error: unknown, { attempts = 0, idempotencyKey, status }: Outcome) => {
      call.idempotencyKey ??= idempotencyKey
      emit('onCallEnd', { call, attempts, status, result, error, durationMs: performance.now() - started })
    }
    let outcome: Promise<T> | undefined
    // Runs once, whatever a wrapper does: calls `go` twice, never, or throws.
    const go = () => {
      outcome ??= run(sender).then(
        (result) => {
          end(result.data, undefined, result.response)
          return result
        },
        (error) => {
          end(undefined, error, error)
          throw error
        },
      )
    }
    // The first hook's wrapper outermost: its context is the outermost.
    list.reduceRight<() => void>(
      (inner, hook, index) => (hook?.wrapCall ? () => emit('wrapCall', inner, index, index + 1) : inner),
      go,
    )()
    go()
    return outcome as Promise<T>
  }
}
