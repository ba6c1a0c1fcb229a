import type { WithResponse } from '../core/api-promise.js'
import { NotifyKitError } from '../core/errors.js'
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
  const list = option === undefined ? [] : ([option].flat() as Hooks[])
  // A callback that is not a function is reported at its first call, as one that throws is.
  if (list.some((hooks) => Object(hooks) !== hooks))
    throw new NotifyKitError('hooks must be an object of callbacks, or an array of them')
  if (!list.length) return undefined
  const reported = new Set<string>()
  /** Warns of a broken hook once, not on every call. */
  const report = (what: string, error: unknown) => {
    if (reported.has(what)) return
    reported.add(what)
    logger.warn(`hook ${what}, ignored (reported once): ${(error as Error)?.message ?? error}`)
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
    /** Each hook's `callback` (or the one at `only`) with its state; what one throws goes no further. */
    const emit = (callback: keyof Hooks, argument: unknown, only?: number) => {
      list.forEach((hook, index) => {
        if (only !== undefined && only !== index) return
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
      })
    }
    let attempt = 0
    let attemptStarted = 0
    let lastStatus: number | undefined
    emit('onCallStart', call)
    const sender: Sender = {
      states,
      retrying: (reason, delayMs) => emit('onRetry', { call, attempt, reason, delayMs }),
      send(wire: WireRequest, timeoutMs: number, signal?: AbortSignal) {
        if (!attempt++) {
          call.idempotencyKey = wire.headers['idempotency-key']
          // Into the call's own headers, made for it alone: no copy per attempt.
          for (const name in headers) {
            // The rule of a call's own headers: no way to smuggle a CR-LF in, nor to replace one.
            const problem = headerProblem(name, headers[name])
            if (problem) report(`header ${JSON.stringify(name)}`, problem)
            // A header named `__proto__` is dropped here: assigning a string sets no prototype.
            else wire.headers[name.toLowerCase()] ??= headers[name] as string
          }
        }
        attemptStarted = performance.now()
        return transport.send(wire, timeoutMs, signal)
      },
      attempted: (status, error) => {
        lastStatus = status ?? lastStatus
        emit('onAttempt', { call, attempt, status, error, durationMs: performance.now() - attemptStarted })
      },
    }
    /** From the result's response or the error: both say how many attempts, which key, what status. */
    const end = (result: unknown, error: unknown, { attempts = 0, idempotencyKey, status }: Outcome) => {
      call.idempotencyKey ??= idempotencyKey
      status ??= lastStatus
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
      (inner, hook, index) => (hook.wrapCall ? () => emit('wrapCall', inner, index) : inner),
      go,
    )()
    go()
    return outcome as Promise<T>
  }
}
