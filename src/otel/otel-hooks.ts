import {
  type Attributes,
  type Context,
  context,
  type MeterProvider,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api'
import type { CallInfo, NotifyKitHooks } from '../core/hooks.js'
import { VERSION } from '../version.js'
import {
  ATTEMPTS,
  callAttributes,
  IDEMPOTENCY_KEY,
  OPERATION,
  OutcomeAttributes,
  outcomeAttributes,
  RETRY_ATTEMPT,
  RETRY_DELAY_MS,
  RETRY_REASON,
} from './attributes.js'
import { createInstruments, type Instruments } from './instruments.js'

/** Options of `otelHooks`. */
export interface OtelHooksOptions {
  /**
   * Where spans go. Default: the global tracer provider (`trace.setGlobalTracerProvider`, which
   * `NodeSDK.start()` sets), looked up when spans are made, so the SDK may be started later.
   * @example `otelHooks({ tracerProvider: new BasicTracerProvider({ spanProcessors: [processor] }) })`
   */
  tracerProvider?: TracerProvider
  /**
   * Where measurements go. Default: the global meter provider, looked up at the client's first call.
   * @example `otelHooks({ meterProvider: new MeterProvider({ readers: [reader] }) })`
   */
  meterProvider?: MeterProvider
  /**
   * Records each call's idempotency key as `notifykit.idempotency_key`. Off by default: keys are
   * often made of user or order ids (`order-42-shipped`), which may not belong in a trace store.
   * @example `otelHooks({ recordIdempotencyKey: true })`
   */
  recordIdempotencyKey?: boolean
  /**
   * Sends the W3C `traceparent` (and whatever else the global propagator writes) on every attempt,
   * naming the call's span as the parent, so that the service's spans join the trace. Default true.
   * Set it to false when the transport is instrumented already (`@opentelemetry/instrumentation-undici`,
   * an instrumented `fetch`): that instrumentation sends its own, naming its HTTP span, a child of ours.
   * @example `otelHooks({ propagateContext: false })`
   */
  propagateContext?: boolean
}

/** A call's span, and the context in which it is the active span. */
interface CallSpan {
  readonly span: Span
  readonly context: Context
  readonly attributes: Attributes
}

const SCOPE = 'notifykit'

/** Events a successful request sent: one per trigger or broadcast, one per result of a bulk chunk. */
function eventsSent(operation: string, result: unknown): number {
  if (operation === 'events.trigger' || operation === 'events.broadcast') return 1
  if (operation === 'events.triggerBulk' && Array.isArray(result)) return result.length
  return 0
}

/**
 * OpenTelemetry for a client, as hooks: a span per call (`events.trigger`, kind CLIENT) with the
 * HTTP client semantic-convention attributes, an event per retry, `traceparent` on every attempt, and
 * the metrics `http.client.request.duration` (per attempt), `notifykit.events.triggered` and
 * `notifykit.retries`. A bulk send is one span with a child span per request of up to 100 events.
 * Never records the API key, a header or a body; the idempotency key only when asked to.
 *
 * @example
 * ```ts
 * import { NotificationClient } from 'notifykit'
 * import { otelHooks } from 'notifykit/otel'
 *
 * const client = new NotificationClient({ hooks: otelHooks() })
 * ```
 */
export function otelHooks(options: OtelHooksOptions = {}): NotifyKitHooks {
  const { recordIdempotencyKey = false, propagateContext = true } = options
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, VERSION)
  let instruments: Instruments | undefined
  const measure = () => {
    instruments ??= createInstruments(
      (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, VERSION),
    )
    return instruments
  }

  // Made once per route and outcome, not per call: the same few objects serve every measurement.
  const routes = new Map<string, Attributes>()
  const attributesOf = (call: CallInfo) => {
    const key = `${call.operation} ${call.serverAddress}:${call.serverPort}`
    let attributes = routes.get(key)
    if (attributes === undefined) {
      attributes = callAttributes(call)
      routes.set(key, attributes)
    }
    return attributes
  }
  const outcomes = new OutcomeAttributes()

  const hooks: NotifyKitHooks<CallSpan> = {
    onCallStart(call, parent) {
      measure()
      const attributes = attributesOf(call)
      const parentContext = parent?.context ?? context.active()
      const name = parent === undefined ? call.operation : `${call.operation}.chunk`
      // A batch sends nothing itself: its requests are the CLIENT spans, each an HTTP exchange.
      const kind = call.batch ? SpanKind.INTERNAL : SpanKind.CLIENT
      const span = tracer.startSpan(name, { kind, attributes }, parentContext)
      return { span, context: trace.setSpan(parentContext, span), attributes }
    },
    onAttemptStart(info, state) {
      if (propagateContext) propagation.inject(state.context, info.headers)
    },
    wrapAttempt(send, state) {
      // Instrumentation of the transport (undici's diagnostics channels) takes the active span as
      // the parent of its HTTP span.
      context.with(state.context, send)
    },
    onAttempt({ status, error, durationMs }, state) {
      // Per attempt, as the convention defines it: each retry is an HTTP request of its own.
      measure().duration.record(durationMs / 1_000, outcomes.of(state.attributes, status, error))
    },
    onRetry({ call, attempt, reason, delayMs }, state) {
      state.span.addEvent('notifykit.retry', {
        [RETRY_REASON]: reason,
        [RETRY_DELAY_MS]: delayMs,
        [RETRY_ATTEMPT]: attempt + 1,
      })
      measure().retries.add(1, { [OPERATION]: call.operation, [RETRY_REASON]: reason })
    },
    onCallEnd({ call, attempts, status, result, error }, state) {
      const { span } = state
      if (recordIdempotencyKey && call.idempotencyKey !== undefined) {
        span.setAttribute(IDEMPOTENCY_KEY, call.idempotencyKey)
      }
      span.setAttributes(outcomeAttributes({ [ATTEMPTS]: attempts }, call.batch ? undefined : status, error))
      if (error !== undefined) {
        // The class name only: messages of API errors quote the response body.
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.name })
      } else if (!call.batch) {
        // Counted per request, not per batch: a bulk send that fails half-way still sent half.
        const events = eventsSent(call.operation, result)
        if (events > 0) measure().triggered.add(events, { [OPERATION]: call.operation })
      }
      span.end()
    },
  }
  return hooks
}
