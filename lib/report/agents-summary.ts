/** summary.md's agents part for a run through agents: who ran it, their clocks, and each one's share of every step. */
import { ResultDocument } from '../result';
import { formatMicrosAsMs, formatOps } from './format';
import { Table } from './tables';

export function agentsTable(result: ResultDocument): Table | undefined {
  const section = result.agents;
  if (!section || section.agents.length === 0) return undefined;
  return {
    title: 'Agents',
    columns: [
      'agent',
      'host',
      'cores',
      'version',
      'clock offset (ms)',
      'offset measured over (ms)',
    ],
    align: ['left', 'left', 'right', 'left', 'right', 'right'],
    rows: section.agents.map((a) => [
      a.name,
      a.host,
      String(a.cores),
      a.version,
      a.clockOffsetMs.toFixed(1),
      a.clockRttMs.toFixed(1),
    ]),
  };
}

export function sharesTable(result: ResultDocument): Table | undefined {
  const rows = result.steps.flatMap((step) =>
    (step.agents ?? []).map((a) => [
      String(step.clients),
      a.trial !== undefined ? `${a.agent} (trial ${a.trial})` : a.agent,
      a.count === 1 ? `${a.first}` : `${a.first}..${a.first + a.count - 1}`,
      a.status,
      formatOps(a.opsPerSec),
      a.latencyMicros && a.latencyMicros.reads.count > 0
        ? formatMicrosAsMs(a.latencyMicros.reads.p99)
        : '–',
      a.latencyMicros && a.latencyMicros.writes.count > 0
        ? formatMicrosAsMs(a.latencyMicros.writes.p99)
        : '–',
      formatOps(a.ops.errors),
      a.clientBound ? 'yes' : 'no',
    ]),
  );
  if (rows.length === 0) return undefined;
  return {
    title: "Each agent's share",
    columns: [
      'clients',
      'agent',
      'its clients',
      'status',
      'ops/s',
      'read p99 (ms)',
      'write p99 (ms)',
      'errors',
      'client-bound',
    ],
    align: ['right', 'left', 'right', 'left', 'right', 'right', 'right', 'right', 'left'],
    rows,
  };
}

/** Markdown lines for a result run through agents; empty for any other result. */
export function agentSummaryLines(
  result: ResultDocument,
  markdownTable: (t: Table) => string,
): string[] {
  const agents = agentsTable(result);
  if (!agents) return [];
  const out = [
    '',
    '### Agents',
    '',
    `Coordinated through ${result.agents!.controlUri} (database ${result.agents!.controlDb}, run ${result.agents!.runId}); start instants are set on the control server's clock, which each agent's offset converts to its own.`,
    '',
    markdownTable(agents),
  ];
  const shares = sharesTable(result);
  if (shares)
    out.push(
      '',
      markdownTable(shares),
      '',
      'The step figures above are the exact merge of these (histograms added, per-second buckets aligned); a `lost` agent stopped reporting mid-step and shows its last progress.',
    );
  return out;
}
