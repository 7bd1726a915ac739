import type { Feature } from '#src/feature.js';
import { createMetrics, type MetricSources } from './metrics.js';
import { metricsRoutes } from './metrics.routes.js';

/** The counters and gauges Prometheus reads at /metrics. */
export function metricsFeature(sources: MetricSources) {
  const metrics = createMetrics(sources);
  const feature: Feature = {
    name: 'metrics',
    routes: (guards) => [metricsRoutes({ metrics, guards })],
  };
  return { metrics, feature };
}
