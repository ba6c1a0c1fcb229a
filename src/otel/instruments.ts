import type { Counter, Histogram, Meter } from '@opentelemetry/api'

/** The metrics `otelHooks` records. */
export interface Instruments {
  duration: Histogram
  triggered: Counter
  retries: Counter
}

// The convention's advised boundaries for `http.client.request.duration`, in seconds.
const DURATION_BOUNDARIES = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

export function createInstruments(meter: Meter): Instruments {
  return {
    duration: meter.createHistogram('http.client.request.duration', {
      description: 'Duration of HTTP client requests: one per attempt, retries included.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BOUNDARIES },
    }),
    triggered: meter.createCounter('notifykit.events.triggered', {
      description:
        'Events sent by trigger, triggerBulk and broadcast, counted when the service accepted them.',
      unit: '{event}',
    }),
    retries: meter.createCounter('notifykit.retries', {
      description: 'Attempts retried, by reason.',
      unit: '{retry}',
    }),
  }
}
