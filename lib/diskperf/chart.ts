/**
 * The diskperf chart: ops/s (left axis) and MB/s (right axis) by thread count, as a PNG, on the
 * tool's shared chart base (lib/report/chart-base.ts: font, frame, white background, PNG output).
 */
import {
  ChartConfiguration,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  Plugin,
  PointElement,
  SubTitle,
  Title,
} from 'chart.js';
import { BYTES_PER_MB, DiskperfResult, ENGINE_BOUND_BUSY, engineBound, modeLabel } from './result';
import { directIoNote, filesystemNote } from './format';
import { CHART_FONT_FAMILY as FONT_FAMILY } from '../report/fonts';
import {
  baseChartOptions,
  basePlugins,
  registerChartComponents,
  renderConfigurationPng,
  WARNING_COLOR,
} from '../report/chart-base';
const LINE_COLOR = '#1f5fbf';

/** Writes each point's ops/s above it, so the figures can be read off the image. */
const pointValues: Plugin<'line'> = {
  id: 'pointValues',
  afterDatasetsDraw(chart) {
    const c = chart.ctx;
    const meta = chart.getDatasetMeta(0);
    c.save();
    c.font = `12px "${FONT_FAMILY}"`;
    c.fillStyle = '#222';
    c.textAlign = 'center';
    c.textBaseline = 'bottom';
    c.strokeStyle = '#ffffff';
    c.lineWidth = 4;
    meta.data.forEach((point, i) => {
      const text = Math.round((chart.data.datasets[0].data[i] as { y: number }).y).toLocaleString(
        'en-US',
      );
      // A white halo keeps the figure readable where the line runs through it.
      c.strokeText(text, point.x, point.y - 8);
      c.fillText(text, point.x, point.y - 8);
    });
    c.restore();
  },
};

const font = (size: number) => ({ size });

/** A round axis maximum a little above the highest value (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^n). */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const target = value * 1.08;
  const magnitude = 10 ** Math.floor(Math.log10(target));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10])
    if (m * magnitude >= target) return m * magnitude;
  return 10 * magnitude;
}

export function diskperfChartConfig(
  result: DiskperfResult,
): ChartConfiguration<'line', Array<{ x: number; y: number }>> {
  const steps = result.steps;
  const threads = steps.map((s) => s.threads);
  const opsMax = niceCeiling(Math.max(0, ...steps.map((s) => s.opsPerSec.total)));
  const mbPerOp = result.settings.blockSize / BYTES_PER_MB;
  const xMin = threads.length ? Math.min(...threads) : 1;
  const xMax = threads.length ? Math.max(...threads) : 2;

  // One line: MB/s is ops/s x 4 KB, so the right axis relabels the same line. Reads and writes of a
  // mixed run are not drawn apart: they are half each and would lie on top of one another (see the table).
  const datasets: ChartConfiguration<'line', Array<{ x: number; y: number }>>['data']['datasets'] =
    [
      {
        label: 'ops/s',
        data: steps.map((s) => ({ x: s.threads, y: s.opsPerSec.total })),
        borderColor: LINE_COLOR,
        backgroundColor: LINE_COLOR,
        borderWidth: 3,
        pointRadius: 5,
        pointBorderWidth: 2,
        // Hollow where the Node engine, not the disk, was the limit.
        pointBackgroundColor: steps.map((s) => (engineBound(s) ? '#ffffff' : LINE_COLOR)),
        yAxisID: 'ops',
      },
    ];

  const s = result.settings;
  const subtitle = [
    `${s.fileSizeMB} MB file in ${s.dir}${result.io.filesystem ? ` (${result.io.filesystem})` : ''}, ${s.seconds} s per step, engine ${result.io.engine}, host ${result.host.hostname}`,
    directIoNote(result.io),
  ];
  if (steps.some(engineBound))
    subtitle.push(
      `hollow points: the Node engine was busy ${Math.round(ENGINE_BOUND_BUSY * 100)}%+ of the step, so the disk can do more (fio measures further)`,
    );
  const fsWarning = filesystemNote(result.io);
  if (fsWarning) subtitle.push(fsWarning);
  if (!result.complete) subtitle.push(`INCOMPLETE: ${result.incompleteReason ?? 'cut short'}`);

  return {
    type: 'line',
    data: { datasets },
    options: {
      ...baseChartOptions({
        title: `diskperf: ${modeLabel(s.mode)} by threads`,
        subtitle,
        subtitleColor:
          result.io.direct && result.complete && !fsWarning ? undefined : WARNING_COLOR,
        legend: false,
      }),
      scales: {
        x: {
          type: 'logarithmic',
          // A little room either side, so the first and last points and their figures are not cut by the axes.
          min: xMin / 1.3,
          max: xMax * 1.3,
          title: {
            display: true,
            text: 'threads (concurrent 4 KB operations, log scale)',
            font: font(14),
          },
          ticks: { font: font(12), callback: (v) => String(v) },
          // The log axis only labels 1, 2, 5 x 10^n by itself: put a tick on every thread count.
          afterBuildTicks: (axis) => {
            axis.ticks = threads.map((value) => ({ value }));
          },
        },
        ops: {
          type: 'linear',
          position: 'left',
          min: 0,
          max: opsMax,
          title: {
            display: true,
            text: `operations per second${result.settings.mode === 'mixed' ? ' (reads + writes)' : ''}`,
            font: font(14),
            color: LINE_COLOR,
          },
          // The maximum is not always a multiple of the tick step: an extra label there would crowd the last one.
          ticks: {
            font: font(12),
            includeBounds: false,
            callback: (v) => Number(v).toLocaleString('en-US'),
          },
          grid: { color: '#e4e4e4' },
        },
        mb: {
          type: 'linear',
          position: 'right',
          // Same line, second unit: MB/s is ops/s x 4 KB, so this axis is the left one rescaled.
          min: 0,
          max: opsMax * mbPerOp,
          title: {
            display: true,
            text: 'MB/s (1 MB = 1,048,576 bytes)',
            font: font(14),
            color: LINE_COLOR,
          },
          // Its maximum is the left one's divided by 256, rarely round: label only the round steps.
          ticks: { font: font(12), includeBounds: false },
          grid: { drawOnChartArea: false },
        },
      },
    },
    plugins: [...basePlugins<'line'>(), pointValues],
  };
}

/** Renders the chart to PNG bytes. */
export async function renderDiskperfChart(result: DiskperfResult): Promise<Buffer> {
  registerChartComponents(
    LineController,
    LineElement,
    PointElement,
    LinearScale,
    LogarithmicScale,
    Title,
    SubTitle,
  );
  return renderConfigurationPng(diskperfChartConfig(result));
}
