// OpenTelemetry minus the export: a real tracer provider whose spans are made, timed and ended, then
// dropped by a no-op processor; a meter provider with no reader; the W3C propagator, so that
// `traceparent` is really written. No context manager: NodeSDK's AsyncLocalStorage one puts a cost on
// every promise of the process (async hooks, on Node 20), which would measure Node, not notifykit.
// `api`: the same hooks over the API's own no-op providers, so that what notifykit adds (the hooks,
// its attribute sets, the API calls) is told apart from what the SDK costs.
import { metrics, propagation, trace } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base'

type OtelEntry = typeof import('notifykit/otel')
type Hooks = ReturnType<OtelEntry['otelHooks']>

/** `otelHooks` from the built package next to `packageUrl` (its `index.js`), with discarding providers. */
export async function benchOtelHooks(packageUrl: string, over: 'sdk' | 'api'): Promise<Hooks> {
  const { otelHooks }: OtelEntry = await import(packageUrl.replace(/index\.js$/, 'otel.js'))
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  return over === 'api'
    ? otelHooks({ tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider() })
    : otelHooks({
        tracerProvider: new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }),
        meterProvider: new MeterProvider(),
      })
}
