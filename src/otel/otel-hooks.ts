import {
  type Context,
  context,
  type MeterProvider,
  metrics,
  propagation,
  type Span,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api'
import type { NotifyKitHooks } from '../core/hooks.js'
import { VERSION } from '../version.js'
import {
  ATTEMPTS,
  ERROR_TYPE,
  HTTP_RESPONSE_STATUS_CODE,
  IDEMPOTENCY_KEY,
  RETRY_ATTEMPT,
  RETRY_BUDGET_SPENT,
  RETRY_DELAY_MS,
  RETRY_REASON,
  type Route,
  Routes,
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

/** A call's span, the context in which it is the active span, and its route. */
interface CallSpan {
  readonly span: Span
  /** Absent when the span is a no-op one (no SDK), which there is no point in making active. */
  readonly context?: Context
  readonly route: Route
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
  // Attribute sets made once per route and outcome: nothing is built per call.
  const routes = new Routes()

  const hooks: NotifyKitHooks<CallSpan> = {
    onCallStart(call, parent) {
      const route = routes.of(call)
      const parentContext = parent?.context ?? context.active()
      // A batch sends nothing itself: its requests are the CLIENT spans, each an HTTP exchange.
      const span = call.batch
        ? tracer.startSpan(call.operation, route.batchOptions, parentContext)
        : tracer.startSpan(
            parent === undefined ? call.operation : `${call.operation}.chunk`,
            route.requestOptions,
            parentContext,
          )
      // No SDK registered, no trace around: the span records nothing and names no trace, so there is
      // no context to make active and nothing to send.
      if (!span.isRecording() && !trace.isSpanContextValid(span.spanContext())) return { span, route }
      const spanContext = trace.setSpan(parentContext, span)
      // Once per call: every attempt names the call's span as its parent.
      if (propagateContext && !call.batch) propagation.inject(spanContext, call.headers)
      return { span, context: spanContext, route }
    },
    wrapCall(run, state) {
      // Instrumentation of the transport (undici's diagnostics channels, an instrumented fetch) takes
      // the active span as the parent of its HTTP span; a bulk send's requests take it as theirs.
      if (state.context) context.with(state.context, run)
      else run()
    },
    onAttempt({ status, error, durationMs }, state) {
      // Per attempt, as the convention defines it: each retry is an HTTP request of its own.
      measure().duration.record(durationMs / 1_000, state.route.outcome(status, error))
    },
    onRetry({ attempt, reason, delayMs }, state) {
      state.span.addEvent('notifykit.retry', {
        [RETRY_REASON]: reason,
        [RETRY_DELAY_MS]: delayMs,
        [RETRY_ATTEMPT]: attempt + 1,
      })
      measure().retries.add(1, state.route.retry(reason))
    },
    onCallEnd({ call, attempts, status, result, error }, { span, route }) {
      if (recordIdempotencyKey && call.idempotencyKey !== undefined) {
        span.setAttribute(IDEMPOTENCY_KEY, call.idempotencyKey)
      }
      span.setAttribute(ATTEMPTS, attempts)
      if (status !== undefined && !call.batch) span.setAttribute(HTTP_RESPONSE_STATUS_CODE, status)
      if (error !== undefined) {
        // The class's stable code and name only: messages of API errors quote the response body.
        span.setAttribute(ERROR_TYPE, error.code)
        if (error.retryBudgetSpent) span.setAttribute(RETRY_BUDGET_SPENT, true)
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.name })
      } else if (!call.batch) {
        // Counted per request, not per batch: a bulk send that fails half-way still sent half.
        const events = eventsSent(call.operation, result)
        if (events > 0) measure().triggered.add(events, route.operation)
      }
      span.end()
    },
  }
  return hooks
}
