/**
 * Pure chart-data builders: result documents in, plain chart descriptions out (titles, axes,
 * series of points). No drawing here; render-chart.ts turns a ChartSpec into a PNG. Which charts a
 * report has, and where each goes, is chart-registry.ts.
 */
import {
  LatencySummary,
  PerSecondSample,
  ResultDocument,
  StepResult,
  perSecondRate,
  sampleSpan,
} from '../result';
import { clientBoundWarnings, measuredLine, seriesLabels, stepStatus, warnings } from './describe';

export interface Point {
  x: number;
  /** null leaves a gap (no measurement, or a break between steps). */
  y: number | null;
  /** From a step that was interrupted or failed: partial figures, drawn hollow. */
  partial?: boolean;
  /** A per-second point that covers other than one second (the window's last, partial second): its rate over `span` s, drawn as a marked point. */
  span?: number;
}

export type PointStyle =
  'circle' | 'rect' | 'triangle' | 'rectRot' | 'crossRot' | 'star' | 'rectRounded';

export interface Series {
  label: string;
  color: string;
  pointStyle: PointStyle;
  /** Canvas line dash; empty for solid. */
  dash: number[];
  points: Point[];
  /** 'y2' plots against the right-hand axis (errors/sec, far smaller than ops/sec). */
  yAxis?: 'y' | 'y2';
}

/** x = concurrent clients on a log axis, labelled exactly at `ticks`. */
export interface ClientsAxis {
  kind: 'clients';
  title: string;
  ticks: number[];
}

/** One step of a timeline: where it starts on the x axis (seconds) and how long it is. */
export interface StepSegment {
  clients: number;
  start: number;
  length: number;
  /** Some result's run of this step was interrupted or failed. */
  partial: boolean;
}

/** x = seconds into the sweep, steps laid one after another. */
export interface TimeAxis {
  kind: 'seconds';
  title: string;
  max: number;
  /** The "concurrent clients in each step" axis on top; none is drawn when empty (e.g. an import: one step). */
  steps: StepSegment[];
}

/** '%': a share shown 0..100; 's': seconds; 'count': a gauge (queued ops, tickets); 'ratio': B/A (compare). */
export type Unit = 'ops/s' | 'ms' | '%' | 's' | 'count' | 'ratio';

export interface ChartSpec {
  /** File name of the PNG, e.g. "avg-read-ops.png". */
  file: string;
  /** The id of the chart-registry.ts entry that made it, which says where the page places it. */
  chart?: string;
  title: string;
  /** What was measured: workload, topology, server version, document size. */
  subtitle: string;
  /** Drawn prominently: incomplete run, test-double server. */
  warnings: string[];
  x: ClientsAxis | TimeAxis;
  y: {
    title: string;
    unit: Unit;
    scale: 'linear' | 'log';
    /** A linear axis reaches at least this high (ticks stay round): charts meant to be compared share it. */
    suggestedMax?: number;
    /** A log axis's bounds come from these values (charts shown side by side share them), not from its own series. */
    logRange?: { min: number; max: number };
  };
  /** Right-hand axis, when a series needs its own scale. */
  y2?: { title: string; unit: Unit };
  /** Line width and marker radius of every series (default: timelines 1.5 and no markers, others 2.5 and 5). */
  lines?: { width: number; pointRadius: number };
  series: Series[];
  /** Timelines: spans marked over the plot (a scenario's background events), x in seconds. */
  markers?: TimeMarker[];
}

/** A labelled span on a timeline, from `start` to `end` seconds (a line when they meet). */
export interface TimeMarker {
  label: string;
  start: number;
  end: number;
  /** Drawn in the warning colour (the event failed). */
  failed?: boolean;
}

/** Okabe-Ito colours (colour-blind safe), without the yellow that vanishes on white. */
export const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
];
// Filled shapes first: thin ones (crossRot, star) read poorly in the legend.
const POINT_STYLES: PointStyle[] = [
  'circle',
  'rect',
  'triangle',
  'rectRot',
  'rectRounded',
  'crossRot',
  'star',
];

function seriesStyle(index: number): Pick<Series, 'color' | 'pointStyle' | 'dash'> {
  return {
    color: PALETTE[index % PALETTE.length],
    pointStyle: POINT_STYLES[index % POINT_STYLES.length],
    // Past the palette, dashes keep series apart.
    dash: index >= PALETTE.length ? [8, 4] : [],
  };
}

export type ThroughputMetric = 'avgReads' | 'peakReads' | 'avgWrites' | 'peakWrites';

/** The mean (avg) or the best second (peak) of reads or writes, by concurrent clients. */
function throughput(
  kind: OpKind,
  peak: boolean,
): { file: string; title: string; yTitle: string; value: (s: StepResult) => number } {
  const word = kind === 'reads' ? 'read' : 'write';
  return {
    file: `${peak ? 'peak' : 'avg'}-${word}-ops.png`,
    title: `${peak ? 'Peak' : 'Average'} ${word} operations per second by concurrent clients`,
    yTitle: `${kind}/sec (${peak ? 'best second of' : 'mean over'} the step)`,
    value: (s) => (peak ? s.peakOpsPerSec : s.opsPerSec)[kind],
  };
}

const THROUGHPUT: Record<ThroughputMetric, ReturnType<typeof throughput>> = {
  avgReads: throughput('reads', false),
  peakReads: throughput('reads', true),
  avgWrites: throughput('writes', false),
  peakWrites: throughput('writes', true),
};

export const THROUGHPUT_METRICS = Object.keys(THROUGHPUT) as ThroughputMetric[];

/** Every client count any of the results measured, ascending. */
export function clientCounts(results: readonly ResultDocument[]): number[] {
  return [...new Set(results.flatMap((r) => r.steps.map((s) => s.clients)))].sort((a, b) => a - b);
}

function clientsAxis(results: readonly ResultDocument[]): ClientsAxis {
  return { kind: 'clients', title: 'concurrent clients (log scale)', ticks: clientCounts(results) };
}

export const PARTIAL_NOTE =
  'hollow points: steps cut short (interrupted or failed), partial figures';

function isPartial(step: StepResult): boolean {
  return stepStatus(step) !== 'ok';
}

function common(
  results: readonly ResultDocument[],
  partialMarkers = true,
): Pick<ChartSpec, 'subtitle' | 'warnings'> {
  const notes = warnings(results);
  for (const lines of clientBoundWarnings(results)) notes.push(...lines);
  if (partialMarkers && results.some((r) => r.steps.some(isPartial))) notes.push(PARTIAL_NOTE);
  const measured = measuredLine(results);
  return {
    subtitle: results.length === 1 ? `${seriesLabels(results)[0]} · ${measured}` : measured,
    warnings: notes,
  };
}

function clientPoint(step: StepResult, y: number | null): Point {
  return isPartial(step) ? { x: step.clients, y, partial: true } : { x: step.clients, y };
}

/** One of the SoftLayer four: a throughput figure by concurrent clients, one series per result. */
export function throughputChart(
  results: readonly ResultDocument[],
  metric: ThroughputMetric,
): ChartSpec {
  const def = THROUGHPUT[metric];
  const labels = seriesLabels(results);
  return {
    file: def.file,
    title: def.title,
    ...common(results),
    x: clientsAxis(results),
    y: { title: def.yTitle, unit: 'ops/s', scale: 'linear' },
    series: results.map((r, i) => ({
      label: labels[i],
      ...seriesStyle(i),
      points: r.steps.map((s) => clientPoint(s, def.value(s))),
    })),
  };
}

export type OpKind = 'reads' | 'writes';
export type Percentile = 'p50' | 'p95' | 'p99';
export const PERCENTILES: Percentile[] = ['p50', 'p95', 'p99'];

/** Latency in ms, or null when the step measured no operation of that kind. */
export function latencyMs(summary: LatencySummary, percentile: Percentile): number | null {
  return summary.count > 0 ? summary[percentile] / 1000 : null;
}

/** Log scale when the values span more than ~1.5 decades, so fast and slow series both stay readable. */
export function chooseLatencyScale(series: readonly Series[]): 'linear' | 'log' {
  const values = series
    .flatMap((s) => s.points.map((p) => p.y))
    .filter((y): y is number => y !== null && y > 0);
  if (values.length === 0) return 'linear';
  return Math.max(...values) / Math.min(...values) > 30 ? 'log' : 'linear';
}

type Scale = ChartSpec['y']['scale'];

/** A latency axis: log or linear as given, else as its own series need. */
function latencyAxis(
  what: string,
  series: readonly Series[],
  scale: Scale = chooseLatencyScale(series),
): ChartSpec['y'] {
  return { title: `${what} (ms${scale === 'log' ? ', log scale' : ''})`, unit: 'ms', scale };
}

const kindWord = (kind: OpKind) => (kind === 'reads' ? 'Read' : 'Write');

/** One result: p50, p95 and p99 of reads (or writes) by concurrent clients. */
export function latencyChart(result: ResultDocument, kind: OpKind, scale?: Scale): ChartSpec {
  // Blue, orange, vermillion: light to dark as the percentile rises; solid markers stay visible in the legend.
  const percentileStyle: Record<Percentile, [number, PointStyle]> = {
    p50: [0, 'circle'],
    p95: [4, 'triangle'],
    p99: [1, 'rect'],
  };
  const series: Series[] = PERCENTILES.map((p) => ({
    label: p,
    ...seriesStyle(percentileStyle[p][0]),
    pointStyle: percentileStyle[p][1],
    points: result.steps.map((s) => clientPoint(s, latencyMs(s.latencyMicros[kind], p))),
  }));
  return {
    file: `latency-${kind}.png`,
    title: `${kindWord(kind)} latency percentiles (p50, p95, p99) by concurrent clients`,
    ...common([result]),
    x: clientsAxis([result]),
    y: latencyAxis(`${kind === 'reads' ? 'read' : 'write'} latency`, series, scale),
    series,
  };
}

/** Several results: one percentile of reads (or writes), one series per result. */
export function latencyComparisonChart(
  results: readonly ResultDocument[],
  kind: OpKind,
  percentile: Percentile,
  scale?: Scale,
): ChartSpec {
  const labels = seriesLabels(results);
  const series: Series[] = results.map((r, i) => ({
    label: labels[i],
    ...seriesStyle(i),
    points: r.steps.map((s) => clientPoint(s, latencyMs(s.latencyMicros[kind], percentile))),
  }));
  return {
    file: `latency-${kind}-${percentile}.png`,
    title: `${kindWord(kind)} latency ${percentile} by concurrent clients`,
    ...common(results),
    x: clientsAxis(results),
    y: latencyAxis(`${kind === 'reads' ? 'read' : 'write'} latency ${percentile}`, series, scale),
    series,
  };
}

/**
 * A step's per-second samples on one continuous clock: with several trials `t` restarts at 0 per
 * trial, so each trial is placed after the previous one.
 */
export function stepSeconds(
  step: StepResult,
): Array<{ at: number; sample: StepResult['perSecond'][number] }> {
  const trials = [...new Set(step.perSecond.map((p) => p.trial ?? 1))].sort((a, b) => a - b);
  const out: Array<{ at: number; sample: StepResult['perSecond'][number] }> = [];
  let offset = 0;
  for (const trial of trials) {
    const samples = step.perSecond
      .filter((p) => (p.trial ?? 1) === trial)
      .sort((a, b) => a.t - b.t);
    for (const sample of samples) out.push({ at: offset + sample.t, sample });
    offset += Math.max(...samples.map((p) => p.t)) + 1;
  }
  return out;
}

function stepLength(step: StepResult): number {
  const seconds = stepSeconds(step);
  return seconds.length === 0 ? 0 : seconds[seconds.length - 1].at + 1;
}

/**
 * Lays the steps one after another on a shared time axis. Results are aligned by client count, so a
 * step of 8 clients starts at the same x in every series; each segment is as long as the longest run of it.
 */
export function timelineSegments(results: readonly ResultDocument[]): StepSegment[] {
  const order: number[] = [];
  for (const r of results)
    for (const s of r.steps) if (!order.includes(s.clients)) order.push(s.clients);
  if (results.length > 1) order.sort((a, b) => a - b);
  let start = 0;
  return order.map((clients) => {
    const runs = results.flatMap((r) => r.steps.filter((s) => s.clients === clients));
    const length = Math.max(1, ...runs.map(stepLength));
    const segment = { clients, start, length, partial: runs.some(isPartial) };
    start += length;
    return segment;
  });
}

/**
 * One sample's point: its count as a rate over the time it covers, at the middle of that time. A sample
 * that is not one whole second (the window's last, partial second) is marked `span`.
 */
export function secondPoint(at: number, sample: PerSecondSample, count: number): Point {
  const span = sampleSpan(sample);
  return {
    x: at + Math.min(span, 1) / 2,
    y: perSecondRate(sample, count),
    ...(sample.span !== undefined ? { span: sample.span } : {}),
  };
}

/** Per-second points of one result; each second is plotted at its middle, with a gap between steps. */
export function timelinePoints(
  result: ResultDocument,
  segments: readonly StepSegment[],
  value: (p: StepResult['perSecond'][number]) => number,
): Point[] {
  const points: Point[] = [];
  for (const seg of segments) {
    const step = result.steps.find((s) => s.clients === seg.clients);
    if (!step) continue;
    for (const { at, sample } of stepSeconds(step))
      points.push(secondPoint(seg.start + at, sample, value(sample)));
    points.push({ x: seg.start + seg.length, y: null });
  }
  return points;
}

/** Ops/sec of every second of every step. One result: reads, writes (and errors if any); several: total per result. */
export function timelineChart(results: readonly ResultDocument[]): ChartSpec {
  const segments = timelineSegments(results);
  let series: Series[];
  let title: string;
  if (results.length === 1) {
    const [r] = results;
    title = 'Operations per second over time, step by step';
    series = [
      {
        label: 'reads/sec',
        ...seriesStyle(0),
        points: timelinePoints(r, segments, (p) => p.reads),
      },
      {
        label: 'writes/sec',
        ...seriesStyle(1),
        points: timelinePoints(r, segments, (p) => p.writes),
      },
    ];
    if (r.steps.some((s) => s.perSecond.some((p) => p.errors > 0))) {
      series.push({
        label: 'errors/sec (right axis)',
        ...seriesStyle(6),
        dash: [6, 3],
        yAxis: 'y2',
        points: timelinePoints(r, segments, (p) => p.errors),
      });
    }
  } else {
    title = 'Total operations per second over time, step by step';
    const labels = seriesLabels(results);
    series = results.map((r, i) => ({
      label: labels[i],
      ...seriesStyle(i),
      points: timelinePoints(r, segments, (p) => p.reads + p.writes),
    }));
  }
  for (const s of series) s.pointStyle = 'circle';
  const last = segments[segments.length - 1];
  const markers = outageMarkers(results, segments);
  return {
    file: 'timeline.png',
    title,
    ...common(results, false),
    x: {
      kind: 'seconds',
      title: 'seconds into the sweep (measured seconds only, warm-up excluded)',
      max: last ? last.start + last.length : 1,
      steps: segments,
    },
    y: {
      title:
        results.length === 1 ? 'operations/sec (each second)' : 'reads + writes/sec (each second)',
      unit: 'ops/s',
      scale: 'linear',
    },
    ...(series.some((s) => s.yAxis === 'y2')
      ? { y2: { title: 'errors/sec', unit: 'ops/s' as const } }
      : {}),
    series,
    ...(markers.length > 0 ? { markers } : {}),
  };
}

/**
 * Each step's outages as shaded spans on the timeline (docs/reliability.md): placed from the opening of
 * their trial's window (`at`), in the warning colour, labelled with the kind and length.
 */
export function outageMarkers(
  results: readonly ResultDocument[],
  segments: readonly StepSegment[],
): TimeMarker[] {
  const out: TimeMarker[] = [];
  const labels = results.length > 1 ? seriesLabels(results) : undefined;
  results.forEach((r, i) => {
    for (const seg of segments) {
      const step = r.steps.find((s) => s.clients === seg.clients);
      if (!step?.availability) continue;
      // Where each trial's seconds begin on the step's segment (as stepSeconds lays them out).
      const trialStart = new Map<number, number>();
      for (const { at, sample } of stepSeconds(step))
        if (!trialStart.has(sample.trial ?? 1)) trialStart.set(sample.trial ?? 1, at - sample.t);
      for (const o of step.availability.outages) {
        if (o.at === undefined) continue;
        const start = seg.start + (trialStart.get(o.trial ?? 1) ?? 0) + Math.max(0, o.at);
        const end = Math.min(seg.start + seg.length, start + o.seconds);
        out.push({
          label: `${labels ? `${labels[i]}: ` : ''}${o.kind === 'all' ? 'all' : o.kind} out ${o.seconds} s`,
          start,
          end: Math.max(start, end),
          failed: true,
        });
      }
    }
  });
  return out;
}

/** A chart with no point to draw (a result with no finished step) is left out. */
export function hasPoints(spec: ChartSpec): boolean {
  return spec.series.some((s) => s.points.some((p) => p.y !== null));
}

/** The SoftLayer four: average and peak reads and writes by concurrent clients. */
export function throughputCharts(results: readonly ResultDocument[]): ChartSpec[] {
  if (results.length === 0) return [];
  return THROUGHPUT_METRICS.map((m) => throughputChart(results, m)).filter(hasPoints);
}

/**
 * Reads, then writes (one result: its p50, p95 and p99; several: one chart per percentile, one line
 * per result), shown side by side on the page, so on one y scale chosen from all their series: log
 * for all or for none, over the same range (log: the same bounds; linear: the same top), so reads and
 * writes, or one percentile and the next, can be compared by eye.
 */
export function latencyCharts(results: readonly ResultDocument[]): ChartSpec[] {
  if (results.length === 0) return [];
  const kinds: OpKind[] = ['reads', 'writes'];
  const build = (scale?: Scale) =>
    (results.length === 1
      ? kinds.map((kind) => latencyChart(results[0], kind, scale))
      : kinds.flatMap((kind) =>
          PERCENTILES.map((p) => latencyComparisonChart(results, kind, p, scale)),
        )
    ).filter(hasPoints);
  const series = build().flatMap((c) => c.series);
  const values = series
    .flatMap((s) => s.points.map((p) => p.y))
    .filter((y): y is number => y !== null && y > 0);
  if (values.length === 0) return build();
  const scale = chooseLatencyScale(series);
  const range = { min: Math.min(...values), max: Math.max(...values) };
  return build(scale).map((c) => ({
    ...c,
    y: { ...c.y, ...(scale === 'log' ? { logRange: range } : { suggestedMax: range.max }) },
  }));
}

/** The timeline of every measured second (none when no step finished). */
export function timelineCharts(results: readonly ResultDocument[]): ChartSpec[] {
  return results.length === 0 ? [] : [timelineChart(results)].filter(hasPoints);
}
