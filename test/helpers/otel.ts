import { context, propagation } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'

/** A reader that exports nothing on its own: `collect()` when the test wants to look. */
class TestMetricReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** A tracer and a meter provider of the test's own, spans and metrics kept in memory. */
export function otelProviders() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const reader = new TestMetricReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  return {
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    /** Every data point of `name`, with its attributes. */
    async points(name: string) {
      const { resourceMetrics } = await reader.collect()
      return metricsNamed(resourceMetrics, name).flatMap((metric) => metric.dataPoints as DataPoint[])
    },
    async metrics(): Promise<ResourceMetrics> {
      return (await reader.collect()).resourceMetrics
    },
  }
}

interface DataPoint {
  attributes: Record<string, unknown>
  value: unknown
}

function metricsNamed(resourceMetrics: ResourceMetrics, name: string) {
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name)
}

/**
 * An active context (AsyncLocalStorage, as NodeSDK sets up) and the W3C propagator, globally, for
 * the tests that need them; the returned function puts the defaults back.
 */
export function installGlobalContext(): () => void {
  const manager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(manager)
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  return () => {
    context.disable()
    propagation.disable()
  }
}

/** The span id of a `traceparent` header, and its trace id. */
export function parseTraceparent(header: string | undefined) {
  const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(header ?? '') ?? []
  return { traceId, spanId }
}
