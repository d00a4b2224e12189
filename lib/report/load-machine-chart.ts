/**
 * The load machine's saturation by concurrent clients: the busiest event loop's busy share and the
 * process CPU as a share of the machine's cores, beside the line above which a step is client-bound.
 * A live chart of the page only (the step table's "Load generator" column says the same in words).
 */
import { CLIENT_BOUND_ELU } from '../metrics/client-load';
import { ResultDocument } from '../result';
import { ChartSpec, clientCounts, PALETTE, Series } from './chart-data';
import { measuredLine, seriesLabels } from './describe';

const round1 = (x: number) => Math.round(x * 10) / 10;

/** undefined when no step recorded the load generator's load (older results, agents without it). */
export function loadMachineChart(result: ResultDocument): ChartSpec | undefined {
  const steps = result.steps.filter((s) => s.client !== undefined);
  if (steps.length === 0) return undefined;
  const partial = (s: (typeof steps)[number]) => (s.status ?? 'ok') !== 'ok';
  const series: Series[] = [
    {
      label: 'busiest event loop, % of the time busy',
      color: PALETTE[1],
      pointStyle: 'circle',
      dash: [],
      points: steps.map((s) => ({
        x: s.clients,
        y: round1(Math.max(0, ...s.client!.eventLoopUtilization) * 100),
        ...(partial(s) ? { partial: true } : {}),
      })),
    },
    {
      label: "process CPU, % of the machine's cores",
      color: PALETTE[0],
      pointStyle: 'rect',
      dash: [],
      points: steps.map((s) => ({
        x: s.clients,
        y: round1(s.client!.cpuPercent / Math.max(1, s.client!.cores)),
        ...(partial(s) ? { partial: true } : {}),
      })),
    },
    {
      label: `client-bound above ${CLIENT_BOUND_ELU * 100}% busy`,
      color: '#b00020',
      pointStyle: 'crossRot',
      dash: [6, 4],
      points: steps.map((s) => ({ x: s.clients, y: CLIENT_BOUND_ELU * 100 })),
    },
  ];
  const cores = [...new Set(steps.map((s) => s.client!.cores))];
  return {
    file: 'load-machine.png',
    title: 'The load machine: how busy mongo-bench itself was, by concurrent clients',
    subtitle: `${seriesLabels([result])[0]} · ${measuredLine([result])} · ${cores.join(' / ')} core${cores.length === 1 && cores[0] === 1 ? '' : 's'} on the load machine`,
    warnings: [],
    x: {
      kind: 'clients',
      title: 'concurrent clients (log scale)',
      ticks: clientCounts([{ ...result, steps }]),
    },
    y: { title: '% busy', unit: '%', scale: 'linear', suggestedMax: 100 },
    series,
  };
}
