/**
 * The run's figures as Prometheus metrics (`--metrics-port`, served by ./metrics-server.ts): a private
 * prom-client Registry whose metrics are collectors reading this object's sums at each scrape. The sums
 * follow the run's events: the ticks' latency deltas (lib/metrics/tick-latency.ts: per phase and kind,
 * bucket counts and failures), the load's progress, steps, outages; the server-side gauges are the
 * sampler's latest reading. Nothing is observed per op: a tick adds its buckets once a second.
 *
 * Phases: `load` (the loader's documents), `warmup` (ops that started before a window opened, and every
 * op of a --warmup auto run), `measured` (ops that started in a window, as the result counts them: its
 * reads + writes + errors are the measured ops of the step).
 */
import { Registry } from 'prom-client';
import type { Metric } from 'prom-client';
import { TICK_LATENCY_BOUNDS_SECONDS, TICK_LATENCY_SLOTS } from '../metrics/tick-latency';
import type { TickLatencyDelta } from '../metrics/tick-latency';
import { redactText } from '../security/redact';
import type { ServerSnapshot } from '../server-stats/snapshot';
import { OP_COUNTERS } from '../server-stats/snapshot';
import type { BenchmarkEvent } from './events';

export type MetricsPhase = 'load' | 'warmup' | 'measured';
const TICK_PHASES = { warmup: 'warmup', measure: 'measured' } as const;

type Labels = Record<string, string | number>;
interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** A metric computed at each scrape: what prom-client's Registry formats (its `get()` contract). */
function collected(
  name: string,
  help: string,
  type: 'counter' | 'gauge' | 'histogram',
  values: () => Sample[],
): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
  };
  // prom-client's Registry takes any object with a name and a get() (its own metrics are such); its
  // types list only its classes.
  return metric as unknown as Metric;
}

/** One phase and kind's latency, cumulative: counts per bucket (not yet cumulative over `le`), the sum. */
interface LatencySums {
  counts: number[];
  sumSeconds: number;
}

/** Where the server-side gauges come from: the sampler's latest reading of each process. */
export interface ServerReadings {
  latest(): Map<string, ServerSnapshot>;
}

export class RunMetrics {
  readonly registry = new Registry();
  private readonly ops = new Map<string, number>(); // `${kind}|${phase}`
  private readonly latency = new Map<string, LatencySums>(); // `${kind}|${phase}`
  private clients = 0;
  private step: { step: number; clients: number } | undefined;
  private steps = 0;
  private loaded = 0;
  private readonly outages = new Map<string, { count: number; seconds: number }>();
  private readonly open = new Map<string, number>(); // kind -> since (epoch ms)
  private dropped = 0;
  private late = 0;
  private server: ServerReadings | undefined;

  constructor() {
    const r = this.registry;
    r.registerMetric(
      collected(
        'mongo_bench_ops_total',
        'Operations completed, by kind (read, write: succeeded; error: failed) and phase (load counts documents inserted)',
        'counter',
        () => [...this.ops].map(([key, value]) => ({ labels: labelsOf(key), value })),
      ),
    );
    r.registerMetric(
      collected(
        'mongo_bench_op_duration_seconds',
        'Latency of the successful operations, by kind and phase (open model: from the due time)',
        'histogram',
        () => this.histogramSamples(),
      ),
    );
    r.registerMetric(
      collected('mongo_bench_clients', 'Clients of the step running now (0: none)', 'gauge', () => [
        { labels: {}, value: this.clients },
      ]),
    );
    r.registerMetric(
      collected(
        'mongo_bench_step_info',
        'The step running now or last (1-based) and its client count',
        'gauge',
        () => (this.step ? [{ labels: { ...this.step }, value: 1 }] : []),
      ),
    );
    r.registerMetric(
      collected(
        'mongo_bench_dropped_total',
        'Open model (--rate): measured ops never started (every client busy past the drop limit), added when a step ends',
        'counter',
        () => [{ labels: {}, value: this.dropped }],
      ),
    );
    r.registerMetric(
      collected(
        'mongo_bench_late_total',
        'Open model (--rate): measured ops started late, added when a step ends',
        'counter',
        () => [{ labels: {}, value: this.late }],
      ),
    );
    r.registerMetric(
      collected(
        'mongo_bench_outages_total',
        'Outages: the server not answering (kind server), or reads or writes out (--stall-ms)',
        'counter',
        () => [...this.outages].map(([kind, o]) => ({ labels: { kind }, value: o.count })),
      ),
    );
    r.registerMetric(
      collected(
        'mongo_bench_outage_seconds_total',
        'Seconds of outage, by kind (an open one counts up to now)',
        'counter',
        () =>
          [...this.outages].map(([kind, o]) => {
            const since = this.open.get(kind);
            const now = since === undefined ? 0 : Math.max(0, (Date.now() - since) / 1000);
            return { labels: { kind }, value: o.seconds + now };
          }),
      ),
    );
    this.registerServerGauges();
  }

  /** The server sampler, once started: its latest readings become the server-side gauges. */
  attachServer(readings: ServerReadings | undefined): void {
    this.server = readings;
  }

  /** Follows the run: call with every BenchmarkEvent. */
  readonly onEvent = (e: BenchmarkEvent): void => {
    switch (e.type) {
      case 'load-start':
        this.loaded = 0;
        break;
      case 'load-progress':
        this.addLoaded(e.loaded);
        break;
      case 'load-done':
        this.addLoaded(e.docs);
        break;
      case 'step-start':
        this.clients = e.clients;
        if (e.trial === 1) this.steps++;
        this.step = { step: this.steps, clients: e.clients };
        break;
      case 'tick':
        if (e.tick.latency) this.addLatency(e.tick.latency);
        break;
      case 'outage':
        this.outage(e.kind ?? 'server', e.since, e.end);
        break;
      case 'step-done':
        // An outage the step ended in (a server that never answered again) counts to the step's end.
        for (const [kind, since] of [...this.open]) this.outage(kind, since, Date.now());
        this.clients = 0;
        this.dropped += e.step.arrival?.dropped ?? 0;
        this.late += e.step.arrival?.late ?? 0;
        break;
    }
  };

  private addLoaded(loaded: number): void {
    if (loaded <= this.loaded) return;
    this.add('write', 'load', loaded - this.loaded);
    this.loaded = loaded;
  }

  private add(kind: string, phase: MetricsPhase, n: number): void {
    const key = `${kind}|${phase}`;
    this.ops.set(key, (this.ops.get(key) ?? 0) + n);
  }

  private addLatency(delta: TickLatencyDelta): void {
    for (const s of delta.series) {
      const kind = s.kind === 'reads' ? 'read' : 'write';
      const phase = TICK_PHASES[s.phase];
      const key = `${kind}|${phase}`;
      const sums = this.latency.get(key) ?? {
        counts: new Array<number>(TICK_LATENCY_SLOTS).fill(0),
        sumSeconds: 0,
      };
      s.counts.forEach((n, i) => (sums.counts[i] += n));
      sums.sumSeconds += s.sumMicros / 1e6;
      this.latency.set(key, sums);
      this.add(
        kind,
        phase,
        s.counts.reduce((a, b) => a + b, 0),
      );
    }
    if (delta.errors.warmup > 0) this.add('error', 'warmup', delta.errors.warmup);
    if (delta.errors.measure > 0) this.add('error', 'measured', delta.errors.measure);
  }

  /** Cumulative `le` buckets, +Inf, _sum and _count per kind and phase. */
  private histogramSamples(): Sample[] {
    const out: Sample[] = [];
    const name = 'mongo_bench_op_duration_seconds';
    for (const [key, sums] of this.latency) {
      const labels = labelsOf(key);
      let cumulative = 0;
      sums.counts.forEach((n, i) => {
        cumulative += n;
        const le = i < TICK_LATENCY_BOUNDS_SECONDS.length ? TICK_LATENCY_BOUNDS_SECONDS[i] : '+Inf';
        out.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      out.push({ metricName: `${name}_sum`, labels, value: sums.sumSeconds });
      out.push({ metricName: `${name}_count`, labels, value: cumulative });
    }
    return out;
  }

  private outage(kind: string, since: number, end: number | undefined): void {
    const o = this.outages.get(kind) ?? { count: 0, seconds: 0 };
    this.outages.set(kind, o);
    if (end === undefined) {
      // Said once when it opens (a tick may say it again: counted once).
      if (this.open.has(kind)) return;
      o.count++;
      this.open.set(kind, since);
      return;
    }
    // Closed: an outage said only at its end (a short one) is counted now.
    if (!this.open.has(kind)) o.count++;
    this.open.delete(kind);
    o.seconds += Math.max(0, (end - since) / 1000);
  }

  private registerServerGauges(): void {
    const perProcess = (
      name: string,
      help: string,
      value: (s: ServerSnapshot) => number | undefined,
    ) =>
      this.registry.registerMetric(
        collected(name, help, 'gauge', () =>
          [...(this.server?.latest() ?? new Map<string, ServerSnapshot>())].flatMap(([id, s]) => {
            const v = value(s);
            return v === undefined ? [] : [{ labels: { process: redactText(id) }, value: v }];
          }),
        ),
      );
    this.registry.registerMetric(
      collected(
        'mongo_bench_server_opcounters',
        "The server's opcounters (serverStatus), by process and op, as last sampled: cumulative since the process started",
        'gauge',
        () =>
          [...(this.server?.latest() ?? new Map<string, ServerSnapshot>())].flatMap(([id, s]) =>
            OP_COUNTERS.flatMap((op) => {
              const v = s.ops?.[op];
              return v === undefined ? [] : [{ labels: { process: redactText(id), op }, value: v }];
            }),
          ),
      ),
    );
    perProcess(
      'mongo_bench_server_connections',
      'Connections open on the process (serverStatus connections.current), as last sampled',
      (s) => s.connections,
    );
    perProcess(
      'mongo_bench_server_cache_bytes',
      'Bytes in the WiredTiger cache, as last sampled',
      (s) => s.cacheBytes,
    );
    perProcess(
      'mongo_bench_server_cache_dirty_bytes',
      'Dirty bytes in the WiredTiger cache, as last sampled',
      (s) => s.cacheDirtyBytes,
    );
    perProcess(
      'mongo_bench_server_cache_max_bytes',
      'The WiredTiger cache size configured, as last sampled',
      (s) => s.cacheMaxBytes,
    );
  }
}

function labelsOf(key: string): Labels {
  const [kind, phase] = key.split('|');
  return { kind, phase };
}
