/**
 * The open model's chart (rate runs only): per second of every step, the achieved ops/s (reads +
 * writes completed) against the target (ops due that second), with the ops dropped that second, so a
 * target the server could not hold shows as the gap and the dropped series.
 */
import type { ResultDocument, StepResult } from '../result';
import {
  ChartSpec,
  PALETTE,
  Point,
  secondPoint,
  stepSeconds,
  timelineSegments,
} from './chart-data';
import { measuredLine, seriesLabels, warnings } from './describe';
import { openModelSteps } from './rate-summary';

export const RATE_CHART_FILE = 'rate.png';

function points(
  result: ResultDocument,
  value: (p: StepResult['perSecond'][number]) => number | undefined,
): Point[] {
  const out: Point[] = [];
  if (result.scenarios) {
    // Only the open-model scenarios, each second on the run's clock (their steps' startSecond).
    for (const { step } of openModelSteps(result)) {
      const start = step.startSecond ?? 0;
      for (const sample of step.perSecond) out.push(ratePoint(start + sample.t, sample, value));
      out.push({ x: start + step.seconds, y: null });
    }
    return out;
  }
  for (const seg of timelineSegments([result])) {
    const step = result.steps.find((s) => s.clients === seg.clients);
    if (!step?.arrival) continue;
    for (const { at, sample } of stepSeconds(step))
      out.push(ratePoint(seg.start + at, sample, value));
    out.push({ x: seg.start + seg.length, y: null });
  }
  return out;
}

function ratePoint(
  at: number,
  sample: StepResult['perSecond'][number],
  value: (p: StepResult['perSecond'][number]) => number | undefined,
): Point {
  const count = value(sample);
  return count === undefined ? { x: at + 0.5, y: null } : secondPoint(at, sample, count);
}

/** One result with a rate: its chart; none otherwise (and none for comparisons). */
export function rateCharts(results: readonly ResultDocument[]): ChartSpec[] {
  if (results.length !== 1 || openModelSteps(results[0]).length === 0) return [];
  const [r] = results;
  const segments = timelineSegments(results);
  const last = segments[segments.length - 1];
  const late = openModelSteps(r).some(({ step }) => step.arrival.late > 0);
  return [
    {
      file: RATE_CHART_FILE,
      title: 'Target rate against achieved ops/s, each second (dropped: never started)',
      subtitle: `${seriesLabels(results)[0]} · ${measuredLine(results)}`,
      warnings: warnings(results),
      x: {
        kind: 'seconds',
        title: 'seconds into the sweep (measured seconds only, warm-up excluded)',
        max: last ? last.start + last.length : 1,
        steps: segments,
      },
      y: { title: 'operations/sec (each second)', unit: 'ops/s', scale: 'linear' },
      series: [
        {
          label: 'target (ops due)',
          color: PALETTE[6],
          pointStyle: 'circle',
          dash: [6, 3],
          points: points(r, (p) => p.scheduled),
        },
        {
          label: 'achieved (completed)',
          color: PALETTE[0],
          pointStyle: 'circle',
          dash: [],
          points: points(r, (p) => p.reads + p.writes),
        },
        {
          label: 'dropped',
          color: PALETTE[1],
          pointStyle: 'circle',
          dash: [],
          points: points(r, (p) => p.dropped),
        },
        ...(late
          ? [
              {
                label: 'late (started after their due time)',
                color: PALETTE[4],
                pointStyle: 'circle' as const,
                dash: [2, 2],
                points: points(r, (p) => p.late),
              },
            ]
          : []),
      ],
    },
  ];
}
