import { ApiError, NotifyKitError } from '../core/errors.js'
import type { CallInfo, NotifyKitHooks } from '../core/hooks.js'
import { headerProblem } from './headers.js'
import type { LevelLogger } from './logger.js'
import type { Operation } from './operation.js'
import type { Transport, WireRequest, WireResponse } from './transport/types.js'

type Hooks = NotifyKitHooks<unknown>
type Callback = keyof Hooks

/** Where the calls go, as the hooks report it: from `baseUrl`, parsed once. */
export interface HookServer {
  origin: string
  basePath: string
}

/**
 * The client's hooks, checked once at construction. The request core holds one only when hooks were
 * given, so that a client without hooks pays nothing per call: no info object, no clock read.
 * @internal
 */
export class CallHooks {
  readonly #hooks: readonly Hooks[]
  readonly #logger: LevelLogger
  readonly #address: string
  readonly #port: number
  readonly #basePath: string
  /** A broken hook is reported once per callback, not on every call. */
  readonly #reported = new Set<string>()

  constructor(hooks: readonly Hooks[], server: HookServer, logger: LevelLogger) {
    this.#hooks = hooks
    this.#logger = logger
    const url = new URL(server.origin)
    this.#address = url.hostname
    this.#port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
    this.#basePath = server.basePath
  }

  /** The hooks of the `hooks` option, or `undefined` when there are none to call. */
  static from(option: unknown, server: HookServer, logger: LevelLogger): CallHooks | undefined {
    const hooks = checkHooks(option)
    return hooks.length === 0 ? undefined : new CallHooks(hooks, server, logger)
  }

  /** Reports the start of a call; `parent` is the batch the call is one request of. */
  start(
    operation: Operation<unknown, unknown>,
    idempotencyKey: string | undefined,
    parent?: ObservedCall,
    batch = false,
  ): ObservedCall {
    const call: CallInfo = {
      operation: operation.name,
      method: operation.method,
      urlTemplate: this.#basePath + operation.path.template,
      serverAddress: this.#address,
      serverPort: this.#port,
      idempotencyKey,
      batch,
    }
    const states = this.#hooks.map((hook, index) =>
      this.run(hook, 'onCallStart', () => hook.onCallStart?.(call, parent?.states[index])),
    )
    return new ObservedCall(this, this.#hooks, states, call)
  }

  /** Calls one callback; what it throws is logged once and goes no further. */
  run<T>(hook: Hooks, callback: Callback, body: () => T): T | undefined {
    if (hook[callback] === undefined) return undefined
    try {
      return body()
    } catch (error) {
      this.#reportOnce(`${this.#hooks.indexOf(hook)}.${callback}`, `${callback} threw`, error)
      return undefined
    }
  }

  /** Whether a header a hook set passes the rule of a call's own headers; a bad one is never sent. */
  acceptsHeader(name: string, value: unknown): boolean {
    const problem = headerProblem(name, value)
    if (problem !== undefined)
      this.#reportOnce(`header.${name}`, `onAttemptStart set header ${JSON.stringify(name)}`, problem)
    return problem === undefined
  }

  #reportOnce(key: string, what: string, error: unknown): void {
    if (this.#reported.has(key)) return
    this.#reported.add(key)
    const reason = error instanceof Error ? error.message : String(error)
    this.#logger.warn(`hooks: ${what}, ignored (reported once): ${reason}`)
  }
}

/**
 * One call as the hooks see it: its info, each hook's state, and the clock. Made only when the
 * client has hooks.
 * @internal
 */
export class ObservedCall {
  readonly #runner: CallHooks
  readonly #hooks: readonly Hooks[]
  /** Each hook's state, by position: a batch hands them to its requests as their parents. */
  readonly states: readonly unknown[]
  readonly #call: CallInfo
  readonly #started = performance.now()
  #attempt = 0
  #attemptStarted = 0
  #status: number | undefined

  constructor(runner: CallHooks, hooks: readonly Hooks[], states: readonly unknown[], call: CallInfo) {
    this.#runner = runner
    this.#hooks = hooks
    this.states = states
    this.#call = call
  }

  /**
   * Sends one attempt: the hooks add their headers and wrap the sending; then `onAttempt` hears how
   * it went. A status that is not 2xx is reported by the core, which classifies it (`attempted`).
   */
  async send(
    transport: Transport,
    wire: WireRequest,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<WireResponse> {
    const attempt = ++this.#attempt
    const request = this.#withHeaders(wire, attempt)
    this.#attemptStarted = performance.now()
    let sending: Promise<WireResponse> | undefined
    const send = () => {
      sending ??= transport.send(request, timeoutMs, signal)
      return sending
    }
    // The first hook's wrapper runs outermost, as its span is the outermost.
    let run: () => void = send
    for (let index = this.#hooks.length - 1; index >= 0; index--) {
      const hook = this.#hooks[index] as Hooks
      if (hook.wrapAttempt === undefined) continue
      const inner = run
      run = () => this.#runner.run(hook, 'wrapAttempt', () => hook.wrapAttempt?.(inner, this.states[index]))
    }
    run()
    // A wrapper that threw before calling `send`, or never called it: the attempt goes out all the same, once.
    return send()
  }

  /** The attempt's outcome: a status (2xx or classified into `error`), or the error alone. */
  attempted(status: number | undefined, error: NotifyKitError | undefined): void {
    if (status !== undefined) this.#status = status
    const info = {
      call: this.#call,
      attempt: this.#attempt,
      status,
      error,
      durationMs: performance.now() - this.#attemptStarted,
    }
    this.#each('onAttempt', (hook, state) => hook.onAttempt?.(info, state))
  }

  retrying(reason: string, delayMs: number): void {
    const info = { call: this.#call, attempt: this.#attempt, reason, delayMs }
    this.#each('onRetry', (hook, state) => hook.onRetry?.(info, state))
  }

  /** A batch passes what it learnt from its requests: their key's base, the last status. */
  succeeded(result: unknown, attempts: number, batch?: { idempotencyKey: string; status: number }): void {
    if (batch !== undefined) this.#status = batch.status
    this.#end(result, undefined, attempts, batch?.idempotencyKey)
  }

  failed(error: unknown, attempts: number): void {
    const failure = error instanceof NotifyKitError ? error : undefined
    if (failure instanceof ApiError) this.#status = failure.status
    this.#end(undefined, failure, attempts, failure?.idempotencyKey)
  }

  #end(result: unknown, error: NotifyKitError | undefined, attempts: number, key: string | undefined) {
    if (this.#call.idempotencyKey === undefined) this.#call.idempotencyKey = key
    const info = {
      call: this.#call,
      attempts,
      status: this.#status,
      result,
      error,
      durationMs: performance.now() - this.#started,
    }
    this.#each('onCallEnd', (hook, state) => hook.onCallEnd?.(info, state))
  }

  /** The request with the headers the hooks set for this attempt; never one it already has. */
  #withHeaders(wire: WireRequest, attempt: number): WireRequest {
    const headers: Record<string, string> = {}
    const info = { call: this.#call, attempt, headers }
    this.#each('onAttemptStart', (hook, state) => hook.onAttemptStart?.(info, state))
    let added: Record<string, string> | undefined
    for (const name in headers) {
      const lower = name.toLowerCase()
      // Checked as a call's own headers are: a hook must not be a way to smuggle a CR-LF in.
      if (Object.hasOwn(wire.headers, lower) || !this.#runner.acceptsHeader(name, headers[name])) continue
      added ??= { ...wire.headers }
      // defineProperty, so that a header named `__proto__` stays a header.
      Object.defineProperty(added, lower, { value: headers[name], enumerable: true, writable: true })
    }
    return added === undefined ? wire : { ...wire, headers: added }
  }

  #each(callback: Callback, body: (hook: Hooks, state: unknown) => void): void {
    this.#hooks.forEach((hook, index) => {
      this.#runner.run(hook, callback, () => body(hook, this.states[index]))
    })
  }
}

const CALLBACKS: readonly Callback[] = [
  'onCallStart',
  'onAttemptStart',
  'wrapAttempt',
  'onAttempt',
  'onRetry',
  'onCallEnd',
]

/** The `hooks` option as a list, or the configuration error that says what is wrong with it. */
function checkHooks(option: unknown): Hooks[] {
  if (option === undefined) return []
  const list: unknown[] = Array.isArray(option) ? option : [option]
  return list.map((hooks, index) => {
    const where = Array.isArray(option) ? `hooks[${index}]` : 'hooks'
    if (hooks === null || typeof hooks !== 'object') {
      throw new NotifyKitError(`${where} must be an object of callbacks (onCallStart, onCallEnd…)`)
    }
    for (const callback of CALLBACKS) {
      const value = (hooks as Record<string, unknown>)[callback]
      if (value !== undefined && typeof value !== 'function') {
        throw new NotifyKitError(`${where}.${callback} must be a function`)
      }
    }
    return hooks as Hooks
  })
}
