/**
 * The report of a run with `scenarios`: each scenario apart and all together. A timeline of ops/s
 * per scenario plus their total on the run's one clock, with the background events marked as
 * bands (start to end), a table of every scenario's steps and a table of the events. A result
 * without scenarios gets none of this, so its report is unchanged.
 */
import { ResultDocument, ScenarioResult, ScenarioStep } from '../result';
import { ChartSpec, PALETTE, Point, Series, TimeMarker, secondPoint } from './chart-data';
import { measuredLine, stepStatus, warnings } from './describe';
import { formatMicrosAsMs, formatOps } from './format';
import type { Table } from './tables';

export const SCENARIO_TIMELINE_FILE = 'scenarios-timeline.png';

const NONE = '–';

/** The events of every scenario as timeline markers (seconds on the run's clock); an event never sent is left out. */
export function eventMarkers(result: ResultDocument): TimeMarker[] {
  return (result.scenarios ?? []).flatMap((s) =>
    (s.events ?? [])
      .filter((e) => e.startedAt !== undefined)
      .map((e) => ({
        label: `${e.action}${e.ok ? '' : ' (failed)'} · ${s.name}`,
        start: e.startedAt as number,
        end: e.endedAt ?? (e.startedAt as number),
        ...(e.ok ? {} : { failed: true }),
      })),
  );
}

/** A scenario's per-second ops (reads + writes) placed on the run's clock, a gap after each step. */
function scenarioPoints(scenario: ScenarioResult): Point[] {
  const points: Point[] = [];
  for (const step of scenario.steps) {
    for (const p of step.perSecond)
      points.push(secondPoint(step.startSecond + p.t, p, p.reads + p.writes));
    points.push({ x: step.startSecond + step.seconds, y: null });
  }
  return points;
}

/** Ops/s of each scenario and of all of them, second by second on the run's clock, events marked. */
export function scenarioTimelineChart(result: ResultDocument): ChartSpec | undefined {
  const scenarios = result.scenarios;
  if (!scenarios || scenarios.length === 0) return undefined;
  const together = result.steps[0];
  const series: Series[] = scenarios.map((s, i) => ({
    label: s.name,
    color: PALETTE[i % PALETTE.length],
    pointStyle: 'circle',
    dash: [],
    points: scenarioPoints(s),
  }));
  if (together) {
    series.push({
      label: 'all scenarios',
      color: '#000000',
      pointStyle: 'circle',
      dash: [6, 3],
      points: together.perSecond.map((p) => secondPoint(p.t, p, p.reads + p.writes)),
    });
  }
  const end = Math.max(
    1,
    ...scenarios.map(
      (s) => s.start + s.duration * Math.max(1, s.steps.length, s.clients?.length ?? 1),
    ),
  );
  const notes = warnings([result]);
  return {
    file: SCENARIO_TIMELINE_FILE,
    title: 'Operations per second of each scenario, on one clock',
    subtitle: `${scenarios.map((s) => s.name).join(' + ')} · ${measuredLine([result])}`,
    warnings: notes,
    x: {
      kind: 'seconds',
      title: "seconds since the scenarios' clock began (shaded: background events, start to end)",
      max: end,
      steps: [],
    },
    y: { title: 'reads + writes/sec (each second)', unit: 'ops/s', scale: 'linear' },
    // Markers on every second: a step of one second is a single point, invisible as a bare line.
    lines: { width: 1.5, pointRadius: 3 },
    series,
    markers: eventMarkers(result),
  };
}

/** Every chart a scenarios result adds to the report (none for other results, or for several results). */
export function buildScenarioCharts(results: readonly ResultDocument[]): ChartSpec[] {
  if (results.length !== 1) return [];
  const chart = scenarioTimelineChart(results[0]);
  return chart && chart.series.some((s) => s.points.some((p) => p.y !== null)) ? [chart] : [];
}

/** The run's own timeline (all scenarios together, one step on the same clock) gets the events marked too. */
export function withEventMarkers(
  charts: ChartSpec[],
  results: readonly ResultDocument[],
): ChartSpec[] {
  if (results.length !== 1) return charts;
  const markers = eventMarkers(results[0]);
  if (markers.length === 0) return charts;
  return charts.map((c) => (c.file === 'timeline.png' ? { ...c, markers } : c));
}

function load(scenario: ScenarioResult, step: ScenarioStep): string {
  if (scenario.rate !== undefined) {
    const rate = scenario.rate as { kind?: string; opsPerSecond?: number };
    return rate.kind === 'constant' ? `${formatOps(rate.opsPerSecond ?? 0)} ops/s` : 'ramping rate';
  }
  return `${step.clients} client${step.clients === 1 ? '' : 's'}`;
}

const latency = (
  s: ScenarioStep | ResultDocument['steps'][number],
  kind: 'reads' | 'writes',
  p: 'p50' | 'p99',
) => (s.latencyMicros[kind].count > 0 ? formatMicrosAsMs(s.latencyMicros[kind][p]) : NONE);

/** One row per scenario step, and one for all of them together. */
export function scenarioStepsTable(result: ResultDocument): Table | undefined {
  const scenarios = result.scenarios;
  if (!scenarios) return undefined;
  const rows: string[][] = scenarios.flatMap((s) =>
    s.steps.map((step) => [
      s.name,
      load(s, step),
      `${step.startSecond}`,
      `${step.seconds}`,
      step.startedLateBy !== undefined
        ? `${stepStatus(step)}, began ${step.startedLateBy} s late`
        : stepStatus(step),
      formatOps(step.ops.reads),
      formatOps(step.ops.writes),
      formatOps(step.ops.errors),
      formatOps(step.opsPerSec.total),
      latency(step, 'reads', 'p50'),
      latency(step, 'reads', 'p99'),
      latency(step, 'writes', 'p50'),
      latency(step, 'writes', 'p99'),
    ]),
  );
  const all = result.steps[0];
  if (all) {
    rows.push([
      'all scenarios',
      `${all.clients} clients at most`,
      '0',
      `${all.seconds}`,
      stepStatus(all),
      formatOps(all.ops.reads),
      formatOps(all.ops.writes),
      formatOps(all.ops.errors),
      formatOps(all.opsPerSec.total),
      latency(all, 'reads', 'p50'),
      latency(all, 'reads', 'p99'),
      latency(all, 'writes', 'p50'),
      latency(all, 'writes', 'p99'),
    ]);
  }
  return {
    title: 'Scenarios',
    columns: [
      'scenario',
      'load',
      'from (s)',
      'seconds',
      'status',
      'reads',
      'writes',
      'errors',
      'ops/s avg',
      'read p50 ms',
      'read p99 ms',
      'write p50 ms',
      'write p99 ms',
    ],
    rows,
    align: [
      'left',
      'left',
      'right',
      'right',
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
    ],
  };
}

/** The background events: when planned, when sent and answered, and how they went. */
export function scenarioEventsTable(result: ResultDocument): Table | undefined {
  const rows = (result.scenarios ?? []).flatMap((s) =>
    (s.events ?? []).map((e) => [
      s.name,
      e.action,
      `${e.at}`,
      e.startedAt !== undefined ? `${e.startedAt}` : NONE,
      e.endedAt !== undefined ? `${e.endedAt}` : NONE,
      e.ok ? 'ok' : `failed: ${e.error ?? ''}`,
    ]),
  );
  if (rows.length === 0) return undefined;
  return {
    title: 'Background events',
    columns: ['scenario', 'event', 'planned (s)', 'started (s)', 'ended (s)', 'outcome'],
    rows,
    align: ['left', 'left', 'right', 'right', 'right', 'left'],
  };
}

/** summary.md's scenario section (empty for a result without scenarios). */
export function scenarioSummaryLines(
  result: ResultDocument,
  markdownTable: (t: Table) => string,
): string[] {
  const steps = scenarioStepsTable(result);
  if (!steps) return [];
  const out = [
    '',
    '### Scenarios',
    '',
    'The scenarios ran at once on one clock; "from" is when each step began on it. The last row is all of them together.',
    '',
    markdownTable(steps),
  ];
  const events = scenarioEventsTable(result);
  if (events)
    out.push(
      '',
      '### Background events',
      '',
      'Seconds on the same clock; a failed event is recorded and the run goes on.',
      '',
      markdownTable(events),
    );
  return out;
}
