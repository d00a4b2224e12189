/**
 * index.html: the report as one self-contained interactive page (page/page.ts renders it). Live
 * charts of the same ChartSpecs as the PNGs, the step table sortable, the servers' view beside the
 * clients', the consistency check, the load machine's saturation and what was measured; the result
 * documents embedded as JSON (`mb-data-results`). Without JavaScript each chart shows its PNG.
 */
import { availabilityNotes, availabilityTable } from './availability-summary';
import { CLIENT_BOUND_ELU, sweepAdvice } from '../metrics/client-load';
import { ResultDocument } from '../result';
import { checkWarning } from '../server-stats/consistency';
import { agentsTable, sharesTable } from './agents-summary';
import { ChartSpec } from './chart-data';
import { clientBoundWarnings, seriesLabels, warnings } from './describe';
import { chartEntry, ChartSection, REPORT_CHARTS, buildEntry } from './chart-registry';
import { ChartBlock, escapeHtml, PageBlock, PageModel, renderPage } from './page/page';
import { serverChartsAbsence } from './server-charts';
import { consistencyTable } from './server-summary';
import { oplogTable, STORAGE_NOTE, storageNotes, storageTable } from './storage-summary';
import { errorLines, resultDetails } from './summary-md';
import { comparisonTables, latencyByOpTable, resultTable, Table } from './tables';
import { scenarioEventsTable, scenarioStepsTable } from './scenario-report';

export { escapeHtml };

/** Charts of one time axis zoom and pan together. */
const SWEEP_ZOOM = 'sweep';

/** A chart's block: its PNG as the fallback when its entry draws one. The registry's id stays out of the page's data. */
function chart(spec: ChartSpec): ChartBlock {
  const { chart: id, ...drawn } = spec;
  const image = REPORT_CHARTS.find((entry) => entry.id === id)?.png === true;
  return {
    kind: 'chart',
    spec: drawn,
    ...(image ? { image: spec.file } : {}),
    ...(spec.x.kind === 'seconds' ? { zoomGroup: SWEEP_ZOOM } : {}),
  };
}

/** A chart's PNG carries the page-wide warnings (a PNG travels alone); on the page they are said once, at the top. */
function withoutRepeatedWarnings(block: PageBlock, shown: ReadonlySet<string>): PageBlock {
  if (block.kind === 'chart')
    return {
      ...block,
      spec: { ...block.spec, warnings: block.spec.warnings.filter((w) => !shown.has(w)) },
    };
  if (block.kind === 'grid' || block.kind === 'section')
    return { ...block, blocks: block.blocks.map((b) => withoutRepeatedWarnings(b, shown)) };
  return block;
}

/** The report's charts by the section their registry entry puts them in. */
function chartGroups(charts: readonly ChartSpec[]) {
  const inSection = (section: ChartSection) =>
    charts.filter((c) => chartEntry(c)?.section === section);
  return {
    throughput: inSection('throughput'),
    latency: inSection('latency'),
    timeline: inSection('timeline'),
    serverOps: inSection('server-ops'),
    serverOther: inSection('server-other'),
    scenarios: inSection('scenarios'),
  };
}

export interface ReportPageOptions {
  /** For compare's page: the page-only charts (the load machine) only where their entry is marked for it. */
  comparePage?: boolean;
}

function pageWarnings(results: readonly ResultDocument[]): PageBlock[] {
  return [
    ...warnings(results).map((text): PageBlock => ({ kind: 'text', text, style: 'warning' })),
    ...clientBoundWarnings(results).map(([what, meaning]): PageBlock => ({
      kind: 'text',
      text: `${what} ${meaning}`,
      style: 'warning',
    })),
  ];
}

/** Charts over time: the clients' timeline beside the servers' ops, then the other server charts. */
function overTime(
  results: readonly ResultDocument[],
  groups: ReturnType<typeof chartGroups>,
): PageBlock[] {
  const out: PageBlock[] = [
    {
      kind: 'text',
      style: 'note',
      text: "Every second of every step, warm-up left out. The clients' view (what mongo-bench counted) beside the servers' view (serverStatus opcounters, per process): zoom into one and the others follow.",
    },
  ];
  out.push({
    kind: 'grid',
    blocks: [...groups.timeline, ...groups.serverOps].map((c) => chart(c)),
  });
  if (groups.serverOther.length > 0)
    out.push({ kind: 'grid', blocks: groups.serverOther.map((c) => chart(c)) });
  const absent = results
    .map((r, i) => ({ reason: serverChartsAbsence(r), label: seriesLabels(results)[i] }))
    .filter((x) => x.reason);
  for (const { reason, label } of absent)
    out.push({
      kind: 'text',
      style: 'note',
      text: `No server charts${results.length > 1 ? ` for ${label}` : ''}: ${reason}.`,
    });
  return out;
}

/** The consistency check and what the sampler could not read, for one result with a server section. */
function serversBlocks(result: ResultDocument): PageBlock[] {
  const server = result.server;
  if (!server) return [];
  const out: PageBlock[] = [
    {
      kind: 'text',
      text: `serverStatus every ${server.intervalMs / 1000} s from ${server.processes.length} process${server.processes.length === 1 ? '' : 'es'}.`,
    },
  ];
  for (const check of server.checks) {
    const warning = checkWarning(check);
    if (warning) out.push({ kind: 'text', style: 'warning', text: `Warning: ${warning}` });
  }
  const table = consistencyTable(result);
  if (table) {
    out.push({ kind: 'table', table, sortable: true });
    out.push({
      kind: 'text',
      style: 'note',
      text: "Servers' counts: opcounters query + insert + update + delete between readings taken as each measured window opened and closed; allowed = 2% of the clients' ops + the sampler's own commands + failed ops.",
    });
  }
  for (const note of new Set(
    server.checks.filter((c) => c.status === 'ok' && c.note).map((c) => c.note!),
  ))
    out.push({ kind: 'text', style: 'note', text: `Note: ${note}.` });
  if (server.notes.length > 0)
    out.push({ kind: 'list', items: server.notes.map((n) => `Could not sample: ${n}`) });
  const processes: Table = {
    title: 'Processes sampled',
    columns: ['process', 'kind', 'shard', 'replica set', 'last role seen', 'readings'],
    align: ['left', 'left', 'left', 'left', 'left', 'right'],
    rows: server.processes.map((p) => {
      const series = server.series[p.id] ?? [];
      const role = [...series].reverse().find((q) => q.role)?.role;
      return [
        p.id,
        p.kind,
        p.shard ?? '–',
        p.set ?? '–',
        role ?? '–',
        String(series.filter((q) => !q.gap).length),
      ];
    }),
  };
  if (processes.rows.length > 0) out.push({ kind: 'table', table: processes, sortable: true });
  return out;
}

/** The page-only charts of one result's section (built here, one result at a time). */
function resultCharts(
  result: ResultDocument,
  section: ChartSection,
  options: ReportPageOptions,
): ChartSpec[] {
  return REPORT_CHARTS.filter(
    (entry) =>
      entry.section === section && !entry.png && (!options.comparePage || entry.comparePage),
  ).flatMap((entry) => buildEntry(entry, [result]));
}

function loadMachineBlocks(result: ResultDocument, options: ReportPageOptions): PageBlock[] {
  const [spec] = resultCharts(result, 'load-machine', options);
  if (!spec) return [];
  const loads = result.steps.flatMap((s) =>
    s.client ? [{ clients: s.clients, load: s.client, bound: s.clientBound === true }] : [],
  );
  const distinct = (values: number[]) => [...new Set(values)].join(' / ');
  const bound = loads.filter((l) => l.bound).map((l) => l.clients);
  const out: PageBlock[] = [
    {
      kind: 'facts',
      facts: [
        [
          'Cores',
          `${distinct(loads.map((l) => l.load.cores))} (what the load machine offered mongo-bench)`,
        ],
        [
          'Workers',
          `${distinct(loads.map((l) => l.load.workers))} event loop${loads.every((l) => l.load.workers === 1) ? '' : 's'} running the clients`,
        ],
        [
          'Client-bound steps',
          bound.length > 0
            ? `${bound.join(', ')} clients (a loop busier than ${CLIENT_BOUND_ELU * 100}%)`
            : 'none',
        ],
      ],
    },
    chart(spec),
  ];
  const advice = sweepAdvice(result.steps);
  if (advice) out.push({ kind: 'text', style: 'strong', text: `Load generator: ${advice}` });
  return out;
}

function agentBlocks(result: ResultDocument): PageBlock[] {
  const agents = agentsTable(result);
  if (!agents) return [];
  const shares = sharesTable(result);
  return [
    {
      kind: 'text',
      text: `Coordinated through ${result.agents!.controlUri} (database ${result.agents!.controlDb}, run ${result.agents!.runId}).`,
    },
    { kind: 'table', table: agents, sortable: true },
    ...(shares ? [{ kind: 'table', table: shares, sortable: true } as PageBlock] : []),
  ];
}

function configFacts(result: ResultDocument): Array<[string, string]> {
  return Object.entries(result.config).map(([key, value]) => [
    key,
    typeof value === 'string' ? value : JSON.stringify(value),
  ]);
}

/** One result's own sections (the whole page for one result; a section each in a comparison). */
function resultBlocks(
  result: ResultDocument,
  label: string,
  several: boolean,
  options: ReportPageOptions,
): PageBlock[] {
  const level = several ? 3 : 2;
  const steps: PageBlock[] =
    result.steps.length > 0
      ? [
          {
            kind: 'table',
            table: resultTable(result, `${label}: one row per step (click a heading to sort)`),
            sortable: true,
          },
        ]
      : [{ kind: 'text', text: 'No step finished: nothing measured.' }];
  const byOp = latencyByOpTable(result);
  if (byOp) steps.push({ kind: 'table', table: byOp, sortable: true });
  const errors = errorLines(result);
  if (errors.length > 0)
    steps.push({ kind: 'text', text: 'Errors by kind:' }, { kind: 'list', items: errors });
  const blocks: PageBlock[] = [{ kind: 'section', heading: 'Steps', level, blocks: steps }];
  const outages = availabilityTable(result);
  if (outages) {
    const notes = availabilityNotes(result);
    blocks.push({
      kind: 'section',
      heading: 'Availability',
      level,
      blocks: [
        outages.rows.length > 0
          ? { kind: 'table', table: outages, sortable: true }
          : { kind: 'text', text: 'No outage.' },
        ...(notes.length > 0 ? [{ kind: 'list', items: notes } as PageBlock] : []),
      ],
    });
  }
  const storage = storageTable(result);
  const oplog = oplogTable(result);
  if (storage || oplog) {
    const inner: PageBlock[] = [];
    if (storage)
      inner.push(
        { kind: 'text', style: 'note', text: STORAGE_NOTE },
        { kind: 'table', table: storage, sortable: true },
      );
    if (oplog) inner.push({ kind: 'table', table: oplog, sortable: true });
    const notes = storageNotes(result);
    if (notes.length > 0) inner.push({ kind: 'list', items: notes });
    blocks.push({ kind: 'section', heading: 'Storage', level, blocks: inner });
  }
  const servers = serversBlocks(result);
  if (servers.length > 0)
    blocks.push({
      kind: 'section',
      heading: 'Servers against clients (consistency check)',
      level,
      blocks: servers,
    });
  const load = loadMachineBlocks(result, options);
  if (load.length > 0)
    blocks.push({ kind: 'section', heading: 'Load machine', level, blocks: load });
  const agents = agentBlocks(result);
  if (agents.length > 0) blocks.push({ kind: 'section', heading: 'Agents', level, blocks: agents });
  blocks.push({
    kind: 'section',
    heading: 'What was measured',
    level,
    blocks: [{ kind: 'facts', facts: resultDetails(result) }],
  });
  blocks.push({
    kind: 'section',
    heading: 'Run configuration',
    level: 3,
    collapsed: true,
    blocks: [{ kind: 'facts', facts: configFacts(result) }],
  });
  return blocks;
}

/** A run with scenarios: each one's ops/s on the run's clock (events marked), its steps, the events. None otherwise. */
function scenarioBlocks(
  result: ResultDocument,
  groups: ReturnType<typeof chartGroups>,
): PageBlock[] {
  const steps = scenarioStepsTable(result);
  if (!steps) return [];
  const [timeline] = groups.scenarios;
  const events = scenarioEventsTable(result);
  const inner: PageBlock[] = [
    {
      kind: 'text',
      style: 'note',
      text: 'The scenarios ran at once on one clock; the last row is all of them together. Shaded spans: background events, from start to end.',
    },
    ...(timeline ? [chart(timeline)] : []),
    { kind: 'table', table: steps, sortable: true },
    ...(events ? [{ kind: 'table', table: events, sortable: false } as PageBlock] : []),
  ];
  return [{ kind: 'section', heading: 'Scenarios', blocks: inner }];
}

/**
 * One step (a run of scenarios, or of one client count such as a --rate ramp): what changed over time
 * leads, and charts by client count, one point each, are left out (the step's table has the figures).
 */
function isOneStep(results: readonly ResultDocument[]): boolean {
  return (
    results.length === 1 &&
    (results[0].scenarios !== undefined ||
      new Set(results[0].steps.map((s) => s.clients)).size <= 1)
  );
}

/** The sections whose charts the page leaves out on purpose for these results (their PNGs are still written). */
export function sectionsLeftOut(results: readonly ResultDocument[]): ChartSection[] {
  return isOneStep(results) ? ['throughput', 'latency'] : [];
}

/** The page model of a report: one result, or several overlaid (the comparison first, then each result). */
export function reportPageModel(
  results: readonly ResultDocument[],
  charts: readonly ChartSpec[],
  options: ReportPageOptions = {},
): PageModel {
  const labels = seriesLabels(results);
  const several = results.length > 1;
  const groups = chartGroups(charts);
  const blocks: PageBlock[] = [
    {
      kind: 'text',
      text: 'Throughput is operations per second (reads = queries, writes = updates/inserts/deletes); latency is in milliseconds. Point at a line for its exact figures.',
    },
    ...pageWarnings(results),
  ];
  const oneStep = isOneStep(results);
  const overTimeSection = (): void => {
    if (groups.timeline.length + groups.serverOps.length + groups.serverOther.length > 0)
      blocks.push({
        kind: 'section',
        heading: "Over time: the clients' view and the servers'",
        blocks: overTime(results, groups),
      });
  };
  if (oneStep) {
    blocks.push(...scenarioBlocks(results[0], groups));
    overTimeSection();
  } else {
    if (groups.throughput.length > 0)
      blocks.push({
        kind: 'section',
        heading: several ? 'Throughput compared' : 'Throughput by concurrent clients',
        blocks: [{ kind: 'grid', blocks: groups.throughput.map((c) => chart(c)) }],
      });
    if (groups.latency.length > 0)
      blocks.push({
        kind: 'section',
        heading: several ? 'Latency compared' : 'Latency percentiles',
        blocks: [{ kind: 'grid', blocks: groups.latency.map((c) => chart(c)) }],
      });
    overTimeSection();
  }
  if (several) {
    blocks.push({
      kind: 'section',
      heading: 'Comparison tables',
      blocks: [
        { kind: 'text', text: 'One column per result; rows are concurrent clients.' },
        ...comparisonTables(results).map((table): PageBlock => ({
          kind: 'table',
          table,
          sortable: true,
        })),
      ],
    });
    results.forEach((result, i) =>
      blocks.push({
        kind: 'section',
        heading: `Result: ${labels[i]}`,
        blocks: resultBlocks(result, labels[i], true, options),
      }),
    );
  } else if (results.length === 1) {
    if (!oneStep) blocks.push(...scenarioBlocks(results[0], groups));
    blocks.push(...resultBlocks(results[0], labels[0], false, options));
  }
  const shown = new Set([...warnings(results), ...clientBoundWarnings(results).flat()]);
  return {
    title: several
      ? `mongo-bench comparison: ${labels.join(' vs ')}`
      : `mongo-bench report: ${labels[0] ?? 'no result'}`,
    blocks: blocks.map((b) => withoutRepeatedWarnings(b, shown)),
    data: { results },
  };
}

export function renderIndexHtml(
  results: readonly ResultDocument[],
  charts: readonly ChartSpec[],
): string {
  return renderPage(reportPageModel(results, charts));
}
