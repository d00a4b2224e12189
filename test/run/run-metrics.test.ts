/** The run's metrics from its events, without a server: the load, steps, outages, the open model, the sampler's gauges. */
import type { StepResult } from '../../lib/result';
import { TickLatency } from '../../lib/metrics/tick-latency';
import { RunMetrics } from '../../lib/run/run-metrics';
import type { TickEvent } from '../../lib/workload/engine/engine';
import { parseMetrics, sampleValue } from '../support/prometheus-text';

async function scrape(metrics: RunMetrics) {
  const samples = parseMetrics(await metrics.registry.metrics());
  return (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);
}

function tick(latency: TickLatency): TickEvent {
  return {
    phase: 'measure',
    second: 0,
    reads: 0,
    writes: 0,
    errors: 0,
    measured: { reads: 0, writes: 0, errors: 0 },
    latency: latency.take(),
  };
}

describe('RunMetrics', () => {
  it("counts the loader's documents once, across its progress", async () => {
    const m = new RunMetrics();
    m.onEvent({ type: 'load-start', ns: 'd.c', docs: 300, docSize: 64, batchSize: 100 });
    m.onEvent({ type: 'load-progress', loaded: 100, total: 300 });
    m.onEvent({ type: 'load-progress', loaded: 250, total: 300 });
    m.onEvent({ type: 'load-done', docs: 300, seconds: 1 });
    // --reset each-step: a second load adds its own.
    m.onEvent({ type: 'load-start', ns: 'd.c', docs: 300, docSize: 64, batchSize: 100 });
    m.onEvent({ type: 'load-done', docs: 300, seconds: 1 });
    expect((await scrape(m))('mongo_bench_ops_total', { kind: 'write', phase: 'load' })).toBe(600);
  });

  it('adds the ticks into cumulative buckets, phase by phase, with failures apart', async () => {
    const m = new RunMetrics();
    const t = new TickLatency();
    t.record(2, 80); // measured read, <= 100 µs
    t.record(2, 3000); // measured read, <= 5 ms
    t.record(0, 90); // warm-up read
    t.error(true);
    m.onEvent({ type: 'tick', clients: 1, trial: 1, tick: tick(t) });
    t.record(2, 20_000_000); // 20 s: +Inf only
    m.onEvent({ type: 'tick', clients: 1, trial: 1, tick: tick(t) });
    const v = await scrape(m);
    const read = { kind: 'read', phase: 'measured' };
    expect(v('mongo_bench_ops_total', read)).toBe(3);
    expect(v('mongo_bench_ops_total', { kind: 'read', phase: 'warmup' })).toBe(1);
    expect(v('mongo_bench_ops_total', { kind: 'error', phase: 'measured' })).toBe(1);
    expect(v('mongo_bench_op_duration_seconds_bucket', { ...read, le: '0.0001' })).toBe(1);
    expect(v('mongo_bench_op_duration_seconds_bucket', { ...read, le: '0.0025' })).toBe(1);
    expect(v('mongo_bench_op_duration_seconds_bucket', { ...read, le: '0.005' })).toBe(2);
    expect(v('mongo_bench_op_duration_seconds_bucket', { ...read, le: '10' })).toBe(2);
    expect(v('mongo_bench_op_duration_seconds_bucket', { ...read, le: '+Inf' })).toBe(3);
    expect(v('mongo_bench_op_duration_seconds_count', read)).toBe(3);
    expect(v('mongo_bench_op_duration_seconds_sum', read)).toBeCloseTo(20.00308, 6);
  });

  it('tells the step, its clients, the open model and the outages', async () => {
    const m = new RunMetrics();
    m.onEvent({
      type: 'step-start',
      clients: 4,
      trial: 1,
      trials: 2,
      seconds: 1,
      warmupSeconds: 0,
    });
    let v = await scrape(m);
    expect(v('mongo_bench_clients')).toBe(4);
    expect(v('mongo_bench_step_info', { step: '1', clients: '4' })).toBe(1);
    m.onEvent({
      type: 'step-start',
      clients: 4,
      trial: 2,
      trials: 2,
      seconds: 1,
      warmupSeconds: 0,
    });
    // A kind out for 1.5 s, announced at its start and at its end; the server lost and never back.
    m.onEvent({ type: 'outage', clients: 4, trial: 2, since: 1000, kind: 'reads' });
    m.onEvent({ type: 'outage', clients: 4, trial: 2, since: 1000, end: 2500, kind: 'reads' });
    m.onEvent({ type: 'outage', clients: 4, trial: 2, since: Date.now() - 2000 });
    m.onEvent({ type: 'outage', clients: 4, trial: 2, since: Date.now() - 2000 }); // said again
    v = await scrape(m);
    expect(v('mongo_bench_outages_total', { kind: 'reads' })).toBe(1);
    expect(v('mongo_bench_outage_seconds_total', { kind: 'reads' })).toBe(1.5);
    expect(v('mongo_bench_outages_total', { kind: 'server' })).toBe(1);
    expect(v('mongo_bench_outage_seconds_total', { kind: 'server' })).toBeGreaterThanOrEqual(2);
    const step = { clients: 4, arrival: { dropped: 3, late: 5 } } as unknown as StepResult;
    m.onEvent({ type: 'step-done', step });
    v = await scrape(m);
    expect(v('mongo_bench_clients')).toBe(0);
    expect(v('mongo_bench_step_info', { step: '1', clients: '4' })).toBe(1);
    expect(v('mongo_bench_dropped_total')).toBe(3);
    expect(v('mongo_bench_late_total')).toBe(5);
    // The lost server's outage closed with its step: it no longer grows.
    const closed = v('mongo_bench_outage_seconds_total', { kind: 'server' });
    expect((await scrape(m))('mongo_bench_outage_seconds_total', { kind: 'server' })).toBe(closed);
  });

  it("serves the sampler's latest reading of each process as gauges", async () => {
    const m = new RunMetrics();
    m.attachServer({
      latest: () =>
        new Map([
          [
            'h1:27017',
            { ops: { query: 12, insert: 3 }, connections: 7, cacheBytes: 100, cacheMaxBytes: 1000 },
          ],
          ['h2:27017', { connections: 2 }],
        ]),
    });
    const v = await scrape(m);
    expect(v('mongo_bench_server_opcounters', { process: 'h1:27017', op: 'query' })).toBe(12);
    expect(v('mongo_bench_server_opcounters', { process: 'h1:27017', op: 'insert' })).toBe(3);
    expect(
      v('mongo_bench_server_opcounters', { process: 'h2:27017', op: 'query' }),
    ).toBeUndefined();
    expect(v('mongo_bench_server_connections', { process: 'h2:27017' })).toBe(2);
    expect(v('mongo_bench_server_cache_bytes', { process: 'h1:27017' })).toBe(100);
    expect(v('mongo_bench_server_cache_max_bytes', { process: 'h1:27017' })).toBe(1000);
  });
});
