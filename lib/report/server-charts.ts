/**
 * The servers' side of a run as ChartSpecs (plain data), from the result's `server` section: ops/s on
 * each process (one line per shard on a sharded cluster) beside the clients' ops/s, the WiredTiger
 * cache in use and dirty, queues and tickets, and each secondary's replication lag. They share the
 * client timeline's axis: each measured window is laid on its step's segment, warm-up left out.
 * Several results overlay one line per result. `serverChartsAbsence` says why a result has none.
 */
import { ResultDocument, ServerPoint, ServerSection, ServerWindow } from '../result';
import {
  ChartSpec,
  PALETTE,
  Point,
  Series,
  stepSeconds,
  StepSegment,
  timelinePoints,
  timelineSegments,
} from './chart-data';
import { measuredLine, seriesLabels, uniqueLabels, warnings } from './describe';

export const SERVER_CHART_FILES = {
  ops: 'server-ops.png',
  cache: 'server-cache.png',
  queues: 'server-queues.png',
  lag: 'server-repl-lag.png',
} as const;

const CRUD = ['query', 'insert', 'update', 'delete'] as const;
const DASHES = [[], [8, 4], [2, 3], [12, 3, 2, 3]];

function style(index: number, dashIndex = 0): Pick<Series, 'color' | 'pointStyle' | 'dash'> {
  return {
    color: PALETTE[index % PALETTE.length],
    pointStyle: 'circle',
    dash: DASHES[(dashIndex + Math.floor(index / PALETTE.length)) % DASHES.length],
  };
}

/** Why a result has no server charts, or undefined when it has some. */
export function serverChartsAbsence(result: ResultDocument): string | undefined {
  const server = result.server;
  if (!server) {
    return result.config.serverStats === false
      ? 'the run was made with --no-server-stats'
      : 'the result has no server section (written before mongo-bench sampled servers, or by the API without it)';
  }
  if (
    server.processes.length === 0 ||
    Object.values(server.series).every((s) => s.every((p) => p.gap))
  ) {
    return `no process could be sampled${server.notes.length ? `: ${server.notes.join('; ')}` : ''}`;
  }
  if (server.windows.length === 0) return 'no measured window was sampled';
  const charted = (p: ServerPoint) =>
    p.opsPerSec !== undefined ||
    p.cacheUsedShare !== undefined ||
    p.queuedReaders !== undefined ||
    p.queuedWriters !== undefined ||
    p.readTicketsOut !== undefined ||
    p.writeTicketsOut !== undefined ||
    p.lagSeconds !== undefined;
  if (!Object.values(server.series).some((s) => s.some(charted))) {
    return 'the servers reported none of the figures charted (opcounters, WiredTiger cache, queues, tickets, replication lag)';
  }
  return undefined;
}

function crudPerSec(p: ServerPoint): number | undefined {
  if (!p.opsPerSec) return undefined;
  return CRUD.reduce((s, k) => s + (p.opsPerSec?.[k] ?? 0), 0);
}

/**
 * The points of one process laid on the timeline: for each window of a step, the intervals that end
 * inside it, at the middle of each interval, x = the step's start + seconds into the window.
 */
function onTimeline(
  section: ServerSection,
  result: ResultDocument,
  segments: readonly StepSegment[],
  series: readonly ServerPoint[],
  value: (p: ServerPoint) => number | undefined,
): Point[] {
  const points: Point[] = [];
  for (const seg of segments) {
    const step = result.steps.find((s) => s.clients === seg.clients);
    if (!step) continue;
    const windows = section.windows
      .filter((w) => w.clients === seg.clients)
      .sort((a, b) => a.trial - b.trial);
    let offset = 0;
    for (const w of windows) {
      for (const p of series) {
        if (p.t <= w.open || p.t > w.close + (p.seconds ?? 1) / 2) continue;
        const mid = Math.min(w.close, p.t - (p.seconds ?? 0) / 2);
        const y = p.gap ? null : (value(p) ?? null);
        points.push({ x: seg.start + offset + Math.max(0, mid - w.open), y });
      }
      offset += trialLength(step, w);
    }
    points.push({ x: seg.start + seg.length, y: null });
  }
  return points;
}

function trialLength(step: ResultDocument['steps'][number], w: ServerWindow): number {
  const seconds = stepSeconds(step).filter((s) => (s.sample.trial ?? 1) === w.trial);
  return seconds.length > 0
    ? Math.max(...seconds.map((s) => s.sample.t)) + 1
    : Math.ceil(w.close - w.open);
}

function clientLine(
  result: ResultDocument,
  segments: readonly StepSegment[],
  label: string,
  index: number,
): Series {
  return {
    label,
    ...style(index, 1),
    color: '#000000',
    points: timelinePoints(result, segments, (p) => p.reads + p.writes),
  };
}

/** A process's name in a legend: its shard, kind and host. */
function processLabel(section: ServerSection, id: string): string {
  const p = section.processes.find((x) => x.id === id)!;
  const lastRole = [...(section.series[id] ?? [])].reverse().find((pt) => pt.role)?.role;
  return `${p.shard ? `${p.shard} ` : ''}${p.kind === 'mongos' ? 'mongos' : (lastRole ?? 'mongod')} ${id}`;
}

/** Groups of processes, each one line: a shard (its members summed), or each process alone. */
function opsGroups(section: ServerSection): Array<{ label: string; ids: string[] }> {
  const shards = [...new Set(section.processes.flatMap((p) => (p.shard ? [p.shard] : [])))];
  if (shards.length > 0) {
    return [
      ...section.processes
        .filter((p) => p.kind === 'mongos')
        .map((p) => ({ label: `mongos ${p.id}`, ids: [p.id] })),
      ...shards.map((shard) => ({
        label: `shard ${shard}`,
        ids: section.processes.filter((p) => p.shard === shard).map((p) => p.id),
      })),
    ];
  }
  return section.processes.map((p) => ({ label: processLabel(section, p.id), ids: [p.id] }));
}

/**
 * Sums a value over processes, point by point (the processes are sampled together, so their t
 * match), or takes the largest: a share of each process's own cache does not add up across processes.
 */
function summed(
  section: ServerSection,
  ids: readonly string[],
  value: (p: ServerPoint) => number | undefined,
  combine: 'sum' | 'max' = 'sum',
): ServerPoint[] {
  const [first, ...rest] = ids;
  const base = section.series[first] ?? [];
  if (rest.length === 0)
    return base.map((p) => ({ ...p, summed: value(p) }) as ServerPoint & { summed?: number });
  return base.map((p, i) => {
    const parts = ids
      .map((id) => section.series[id]?.[i])
      .map((q) => (q && !q.gap ? value(q) : undefined));
    const known = parts.filter((v): v is number => v !== undefined);
    const combined =
      known.length === 0
        ? undefined
        : combine === 'max'
          ? Math.max(...known)
          : known.reduce((s, v) => s + v, 0);
    return { ...p, summed: combined } as ServerPoint & { summed?: number };
  });
}

const summedValue = (p: ServerPoint) => (p as ServerPoint & { summed?: number }).summed;

function timeAxis(segments: readonly StepSegment[]): ChartSpec['x'] {
  const last = segments[segments.length - 1];
  return {
    kind: 'seconds',
    title: 'seconds into the sweep (measured seconds only, warm-up excluded)',
    max: last ? last.start + last.length : 1,
    steps: [...segments],
  };
}

function chartCommon(results: readonly ResultDocument[]): Pick<ChartSpec, 'subtitle' | 'warnings'> {
  const processes = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;
  const names = uniqueLabels(results);
  const intervals = [...new Set(results.map((r) => r.server!.intervalMs / 1000))];
  // A comparison says how many processes each result sampled, by name (one interval said once).
  const sampled =
    results.length === 1
      ? `serverStatus every ${intervals[0]} s from ${processes(results[0].server!.processes.length)}`
      : intervals.length === 1
        ? `serverStatus every ${intervals[0]} s from ${results.map((r, i) => `${processes(r.server!.processes.length)} (${names[i]})`).join(', ')}`
        : `serverStatus ${results.map((r, i) => `${names[i]}: every ${r.server!.intervalMs / 1000} s from ${processes(r.server!.processes.length)}`).join('; ')}`;
  const label = results.length === 1 ? `${seriesLabels(results)[0]} · ` : '';
  const notes = warnings(results);
  // One line per result (named in a comparison), not per step: warning lines take the plot's height.
  const labels = seriesLabels(results);
  results.forEach((r, i) => {
    const gaps = r.server!.checks.filter((c) => c.status === 'gap').map((c) => c.clients);
    if (gaps.length > 0)
      notes.push(
        `${results.length > 1 ? `${labels[i]}: ` : ''}servers and clients disagree at ${gaps.join(', ')} client${gaps.length === 1 && gaps[0] === 1 ? '' : 's'} (see summary.md)`,
      );
  });
  return {
    subtitle: `${label}${measuredLine(results)} · ${sampled}`,
    warnings: notes.map((w) => (w.length > 110 ? `${w.slice(0, 107)}...` : w)),
  };
}

function hasValues(series: readonly Series[]): boolean {
  return series.some((s) => s.points.some((p) => p.y !== null));
}

const pct = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * 1000) / 10);

/** Which server charts: ops/s on the servers, or their state (cache, queues, lag). */
export type ServerCharts = 'ops' | 'state';

/** The charts of one result. */
function singleResultCharts(result: ResultDocument, which: ReadonlySet<ServerCharts>): ChartSpec[] {
  const section = result.server!;
  const segments = timelineSegments([result]);
  const common = chartCommon([result]);
  const x = timeAxis(segments);
  const charts: ChartSpec[] = [];
  const line = (ids: string[], value: (p: ServerPoint) => number | undefined) =>
    onTimeline(section, result, segments, summed(section, ids, value), summedValue);

  const ops: Series[] = which.has('ops')
    ? opsGroups(section).map((g, i) => ({
        label: `${g.label} (opcounters)`,
        ...style(i),
        points: line(g.ids, crudPerSec),
      }))
    : [];
  if (hasValues(ops)) {
    ops.push(clientLine(result, segments, 'clients: reads + writes', ops.length));
    // Few points (a short run): show markers, so a one-second client figure is not an invisible line.
    const lines = { width: 1.5, pointRadius: ops.every((s) => s.points.length <= 60) ? 2 : 0 };
    charts.push({
      file: SERVER_CHART_FILES.ops,
      title: 'Operations per second on each server, beside what the clients counted',
      ...common,
      x,
      y: { title: 'query + insert + update + delete per second', unit: 'ops/s', scale: 'linear' },
      lines,
      series: ops,
    });
  }
  if (!which.has('state')) return charts;
  const dataBearing = section.processes.filter((p) => p.kind === 'mongod');
  const cache: Series[] = dataBearing.flatMap((p, i) => [
    {
      label: `in use: ${processLabel(section, p.id)}`,
      ...style(i),
      points: line([p.id], (q) => pct(q.cacheUsedShare)),
    },
    {
      label: `dirty: ${processLabel(section, p.id)}`,
      ...style(i, 1),
      points: line([p.id], (q) => pct(q.cacheDirtyShare)),
    },
  ]);
  if (hasValues(cache))
    charts.push({
      file: SERVER_CHART_FILES.cache,
      title: 'WiredTiger cache in use and dirty, as a share of its maximum',
      ...common,
      x,
      y: { title: "% of the cache's configured maximum", unit: '%', scale: 'linear' },
      series: cache,
    });
  const queues: Series[] = section.processes
    .flatMap((p, i) => [
      {
        label: `queued r+w: ${processLabel(section, p.id)}`,
        ...style(i),
        points: line([p.id], (q) =>
          q.queuedReaders === undefined ? undefined : q.queuedReaders + (q.queuedWriters ?? 0),
        ),
      },
      {
        label: `tickets in use r+w: ${processLabel(section, p.id)}`,
        ...style(i, 1),
        points: line([p.id], (q) =>
          q.readTicketsOut === undefined ? undefined : q.readTicketsOut + (q.writeTicketsOut ?? 0),
        ),
      },
    ])
    .filter((s) => s.points.some((p) => p.y !== null));
  if (hasValues(queues))
    charts.push({
      file: SERVER_CHART_FILES.queues,
      title: 'Queued operations and tickets in use on each server',
      ...common,
      x,
      y: {
        title: 'operations (globalLock.currentQueue; tickets out)',
        unit: 'count',
        scale: 'linear',
      },
      series: queues,
    });
  const members = [
    ...new Set(
      Object.values(section.series).flatMap((s) =>
        s.flatMap((p) => Object.keys(p.lagSeconds ?? {})),
      ),
    ),
  ];
  const lag: Series[] = members.map((member, i) => {
    const primaries = section.processes
      .filter((p) => (section.series[p.id] ?? []).some((q) => q.lagSeconds?.[member] !== undefined))
      .map((p) => p.id);
    const set = section.processes.find((p) => p.id === member)?.set;
    return {
      label: `${set ? `${set} ` : ''}secondary ${member}`,
      ...style(i),
      points: line(primaries, (q) => q.lagSeconds?.[member]),
    };
  });
  if (hasValues(lag))
    charts.push({
      file: SERVER_CHART_FILES.lag,
      title: 'Replication lag of each secondary behind its primary',
      ...common,
      x,
      y: {
        title: 'seconds behind the primary (replSetGetStatus optimes)',
        unit: 's',
        scale: 'linear',
      },
      series: lag,
    });
  return charts;
}

/** Several results: one line per result for each chart (the servers that count the clients' ops, summed). */
function comparisonCharts(
  results: readonly ResultDocument[],
  which: ReadonlySet<ServerCharts>,
): ChartSpec[] {
  const segments = timelineSegments(results);
  const x = timeAxis(segments);
  const common = chartCommon(results);
  const labels = seriesLabels(results);
  const each = (
    value: (section: ServerSection) => {
      ids: string[];
      value: (p: ServerPoint) => number | undefined;
      combine?: 'sum' | 'max';
    },
  ) =>
    results.map((r, i) => {
      const pick = value(r.server!);
      return {
        label: labels[i],
        ...style(i),
        points: onTimeline(
          r.server!,
          r,
          segments,
          summed(r.server!, pick.ids, pick.value, pick.combine),
          summedValue,
        ),
      };
    });
  const counting = (s: ServerSection) => {
    const mongos = s.processes.filter((p) => p.kind === 'mongos').map((p) => p.id);
    return mongos.length > 0 ? mongos : s.processes.map((p) => p.id);
  };
  const mongods = (s: ServerSection) =>
    s.processes.filter((p) => p.kind === 'mongod').map((p) => p.id);
  // Axis titles stay short: a rotated title longer than the plot's height runs into the warning lines.
  const charts: Array<() => ChartSpec> = [
    () => ({
      file: SERVER_CHART_FILES.ops,
      title: 'Operations per second on the servers, each result (its mongos, else its mongods)',
      ...common,
      x,
      y: { title: 'query + insert + update + delete per second', unit: 'ops/s', scale: 'linear' },
      series: each((s) => ({ ids: counting(s), value: crudPerSec })),
    }),
    () => ({
      file: SERVER_CHART_FILES.cache,
      title: 'WiredTiger dirty cache of the fullest mongod, each result',
      ...common,
      x,
      y: { title: "dirty, % of the cache's maximum", unit: '%', scale: 'linear' },
      series: each((s) => ({
        ids: mongods(s),
        value: (p) => pct(p.cacheDirtyShare),
        combine: 'max',
      })),
    }),
    () => ({
      file: SERVER_CHART_FILES.queues,
      title: 'Queued operations, each result (its processes summed)',
      ...common,
      x,
      y: { title: 'queued readers + writers (currentQueue)', unit: 'count', scale: 'linear' },
      series: each((s) => ({
        ids: s.processes.map((p) => p.id),
        value: (p) =>
          p.queuedReaders === undefined ? undefined : p.queuedReaders + (p.queuedWriters ?? 0),
      })),
    }),
    () => ({
      file: SERVER_CHART_FILES.lag,
      title: 'Largest replication lag, each result',
      ...common,
      x,
      y: { title: 'seconds the furthest secondary is behind', unit: 's', scale: 'linear' },
      series: each((s) => ({
        ids: mongods(s),
        value: (p) =>
          p.lagSeconds && Object.keys(p.lagSeconds).length > 0
            ? Math.max(...Object.values(p.lagSeconds))
            : undefined,
        combine: 'max',
      })),
    }),
  ];
  return charts
    .filter((_, i) => which.has(i === 0 ? 'ops' : 'state'))
    .map((chart) => chart())
    .filter((c) => hasValues(c.series));
}

/**
 * Room above the highest value: a flat gauge (queued ops, lag, cache share) at its maximum would
 * otherwise run along the plot's top border and read as part of the frame.
 */
function withHeadroom(spec: ChartSpec): ChartSpec {
  const top = Math.max(
    0,
    ...spec.series.flatMap((s) => s.points.flatMap((p) => (p.y === null ? [] : [p.y]))),
  );
  return top > 0 ? { ...spec, y: { ...spec.y, suggestedMax: top * 1.1 } } : spec;
}

/** Every server chart for these results, or those of one kind (none when no result has server data). */
export function buildServerCharts(
  results: readonly ResultDocument[],
  only?: ServerCharts,
): ChartSpec[] {
  const withData = results.filter((r) => serverChartsAbsence(r) === undefined);
  if (withData.length === 0) return [];
  const which = new Set<ServerCharts>(only ? [only] : ['ops', 'state']);
  return (
    results.length === 1
      ? singleResultCharts(withData[0], which)
      : comparisonCharts(withData, which)
  ).map(withHeadroom);
}
