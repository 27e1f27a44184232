import { describe, expect, it } from 'vitest';
import { httpRequestDuration, registry } from './metrics.ts';

describe('mia_http_requests_total', () => {
  it('is the duration histogram count per label set, also when two scrapes run at once', async () => {
    const labels = { method: 'GET', route: '/metrics-test', status: '200' };
    for (const seconds of [0.001, 0.02, 3]) httpRequestDuration.observe(labels, seconds);
    httpRequestDuration.observe({ ...labels, status: '404' }, 0.002);
    const line = (text: string, status: string) =>
      text.split('\n').find((l) => l.startsWith(`mia_http_requests_total{method="GET",route="/metrics-test",status="${status}"}`));
    const scrapes = await Promise.all([registry.metrics(), registry.metrics(), registry.getSingleMetricAsString('mia_http_requests_total')]);
    for (const text of scrapes) {
      expect(line(text, '200')).toBe('mia_http_requests_total{method="GET",route="/metrics-test",status="200"} 3');
      expect(line(text, '404')).toBe('mia_http_requests_total{method="GET",route="/metrics-test",status="404"} 1');
    }
  });
});
