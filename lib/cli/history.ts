import { join } from 'node:path';
import { assertWritableDir } from '../common/dir-check';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT, RunError, UsageError } from '../config/errors';
import { z } from 'zod';
import { intArg, numberArg } from '../config/validate';
import { addOptions, option, TableValues } from '../config/option-table';
import { loadResult } from '../result';
import { openStore, resolveStoreSpec, ResultStore, STORE_ENV } from '../store';
import { buildHistory, GATE_CHOICES, HISTORY_DEFAULTS, writeHistory } from '../history';
import { historyFileNames } from '../history/write';
import { fileEntries, FileWrites, FORCE_OPTION } from '../common/file-plan';
import { changePointLine, gateLine, newestRunFailureLine } from '../history/render-md';
import { FolderStore } from '../store/folder-store';
import { formatServerRuns } from '../history/server-change';
import { stat } from 'node:fs/promises';
import { fileTimestamp, messageOf } from '../common/values';
import { checkJunitFile, writeJunit } from '../report/junit';
import { historyJunitSuite } from '../history/junit';

const HISTORY_HELP = `
Reads every result in the store (a folder of results.json files at any depth, or a MongoDB collection),
groups them by label, orders each label's runs by startedAt, and looks for change points in each series
(ops/s, read and write p50 and p99, the error rate, at every client count) with E-Divisive means and a
seeded permutation test (the same history gives the same answer). Each change point names the first run
after it (startedAt and label), the last run before, the means on either side, the change and its p-value.

Writes history.md, history.json and trend charts (trend-<label>-<metric>.png, change points marked) to --out.

Beside E-Divisive (run on series of 10 runs or more), the newest-run check gates short series: the
newest run against the runs before the newest change point or failed check (their median); it fails
when the newest is worse by more than max(--threshold, 4 x the noise scale), the scale being
max(1.4826 x MAD of those runs, the within-run spread of the trials, 1%). A collapse that persists
keeps failing night after night until it is accepted as the new baseline: --accept TIME (runs from
that time on are the baseline). By default the gate checks ops/s and the p50s; --gate p99,errors adds
those (their night-to-night spread is large). A series too short for either test says so.

Examples:
  mongo-bench history --store results/
  mongo-bench history --store mongodb://perf-db.example.net/mongo_bench --label nightly-6to1 --threshold 3
  MONGO_BENCH_STORE=results/ mongo-bench history --json > history.json

Exit codes:
  0    no gated series ends on a regression beyond --threshold
  1    the newest change point of some gated series is a regression beyond --threshold, or its newest
       run fails the newest-run check (for CI)
  2    bad input: no store, an unreadable store, a bad option, a --label the store does not hold
  3    not tested: no gated series has enough runs for either test (3 before the newest)`;

const IMPORT_HELP = `
Copies result files (results.json, or folders holding them at any depth) into a store: into a MongoDB
collection, or into a folder store. A result already in the store is kept once (same label, startedAt
and target). Credentials are never stored: every connection string in a result is redacted first.

Examples:
  mongo-bench import --store mongodb://perf-db.example.net/mongo_bench reports/
  mongo-bench import --store results/ reports/2026-01-05T02-00-00Z-nightly/results.json`;

/** history's options, one row each (flags only), in --help's order. */
const HISTORY_OPTIONS = {
  store: option({
    flag: '--store <dir|uri>',
    help: `the results store: a folder of result files, or mongodb://host/db[.collection] (default: env ${STORE_ENV})`,
    schema: z.string(),
  }),
  label: option({
    flag: '--label <label>',
    help: 'only this label (default: every label in the store, each its own series)',
    schema: z.string(),
  }),
  workload: option({
    flag: '--workload <name>',
    help: 'only results of this workload',
    schema: z.string(),
  }),
  threshold: option({
    flag: '--threshold <percent>',
    help: 'a significant worsening beyond this is a regression, exit code 1',
    schema: z.number(),
    default: HISTORY_DEFAULTS.threshold,
    arg: numberArg,
  }),
  pvalue: option({
    flag: '--pvalue <p>',
    help: 'a change point needs a permutation p-value at most this',
    schema: z.number(),
    default: HISTORY_DEFAULTS.pvalue,
    arg: numberArg,
  }),
  permutations: option({
    flag: '--permutations <n>',
    help: 'permutations per significance test',
    schema: z.number(),
    default: HISTORY_DEFAULTS.permutations,
    arg: intArg,
  }),
  seed: option({
    flag: '--seed <n>',
    help: 'seed of the permutation test',
    schema: z.number(),
    default: HISTORY_DEFAULTS.seed,
    arg: intArg,
  }),
  gate: option({
    flag: '--gate <metrics>',
    help: `also gate these, comma separated: ${Object.keys(GATE_CHOICES).join(', ')} (ops/s and p50 are always gated)`,
    schema: z.string(),
  }),
  accept: option({
    flag: '--accept <time>',
    help: 'an ISO time: runs from then on are the baseline (accept a change as the new normal; earlier runs are no baseline)',
    schema: z.string(),
  }),
  out: option({
    flag: '-o, --out <dir>',
    help: 'where history.md, history.json and the trend charts go (default: reports/history-<timestamp>/)',
    schema: z.string(),
  }),
  json: option({
    flag: '--json',
    help: 'print history.json on stdout instead of the summary',
    schema: z.boolean(),
  }),
  junit: option({
    flag: '--junit <file>',
    help: "also write a JUnit XML file for CI: a test case per series (label, metric, client count); the gate's failures fail, the series it does not check are skipped",
    schema: z.string(),
  }),
  force: FORCE_OPTION,
};

type HistoryFlags = TableValues<typeof HISTORY_OPTIONS>;

/** import's options, one row each (flags only). */
const IMPORT_OPTIONS = {
  store: option({
    flag: '--store <dir|uri>',
    help: `the results store (default: env ${STORE_ENV})`,
    schema: z.string(),
  }),
};

type ImportFlags = TableValues<typeof IMPORT_OPTIONS>;

function requireStore(given: string | undefined): string {
  const spec = resolveStoreSpec(given);
  if (spec === undefined)
    throw new UsageError(
      `option --store: required: a folder of result files or a mongodb:// URI (or env ${STORE_ENV})`,
    );
  return spec;
}

export function registerHistory(program: Command, ctx: CliContext): void {
  const history = program
    .command('history')
    .description(
      'performance over time: the series of stored results per label, client count and metric, change points (E-Divisive means), trend charts; exit 1 when the newest change is a regression',
    );
  addOptions(history, HISTORY_OPTIONS)
    .addHelpText('after', HISTORY_HELP)
    .action((flags: HistoryFlags) => historyAction(flags, ctx));

  const importCommand = program
    .command('import')
    .description(
      'import result files (or folders of them) into a results store: a MongoDB collection or a folder',
    )
    .argument('<paths...>', 'result files (results.json) or folders searched at any depth');
  addOptions(importCommand, IMPORT_OPTIONS)
    .addHelpText('after', IMPORT_HELP)
    .action(async (paths: string[], flags: ImportFlags) => {
      const spec = requireStore(flags.store);
      const results = [];
      for (const p of paths) {
        const info = await stat(p).catch(() => undefined);
        if (!info) throw new UsageError(`${p}: no such file or folder`);
        if (info.isDirectory()) {
          const found = await new FolderStore(p).list();
          for (const s of found.skipped) ctx.err(`warning: not imported: ${s.why.split('\n')[0]}`);
          results.push(...found.results.map((r) => r.result));
        } else {
          results.push(await loadResult(p));
        }
      }
      const store = await openStore(spec);
      let created = 0;
      try {
        for (const r of results) if ((await store.put(r)).created) created++;
      } finally {
        await store.close();
      }
      ctx.out(
        `imported ${created} result${created === 1 ? '' : 's'} into ${store.description}${results.length > created ? ` (${results.length - created} already there)` : ''}\n`,
      );
    });
}

/** history: the store read, the history built and gated, its files written (after the check of those files). */
async function historyAction(flags: HistoryFlags, ctx: CliContext): Promise<void> {
  const spec = requireStore(flags.store);
  if (flags.threshold !== undefined && !(flags.threshold >= 0))
    throw new UsageError(`option --threshold: must be a percentage >= 0, got ${flags.threshold}`);
  if (flags.pvalue !== undefined && !(flags.pvalue > 0 && flags.pvalue < 1))
    throw new UsageError(`option --pvalue: must be between 0 and 1, got ${flags.pvalue}`);
  if (flags.permutations !== undefined && flags.permutations < 1)
    throw new UsageError(`option --permutations: must be at least 1, got ${flags.permutations}`);
  if (flags.out !== undefined) assertWritableDir(flags.out, 'option --out');
  if (flags.junit !== undefined) checkJunitFile(flags.junit, 'history', flags.force);
  const gate =
    flags.gate === undefined
      ? undefined
      : flags.gate
          .split(',')
          .map((g) => g.trim())
          .filter((g) => g.length > 0);
  const unknown = gate?.find((g) => !(g in GATE_CHOICES));
  if (unknown !== undefined)
    throw new UsageError(
      `option --gate: unknown metric "${unknown}": choose from ${Object.keys(GATE_CHOICES).join(', ')}`,
    );
  if (flags.accept !== undefined && Number.isNaN(Date.parse(flags.accept)))
    throw new UsageError(
      `option --accept: not a time: "${flags.accept}" (an ISO time such as 2026-01-05T02:00:00Z)`,
    );
  // An unreachable store is not a regression: exit 2, never the gate's 1.
  const store = await openStore(spec).catch((err: unknown) => {
    throw err instanceof RunError ? new RunError(err.message, EXIT.usage) : err;
  });
  let stored;
  try {
    stored = await store.list({ label: flags.label, workload: flags.workload });
    // A label the store does not hold is a typo, not a history too short to test: exit 2, never 3.
    if (flags.label !== undefined && stored.results.length === 0)
      await refuseUnknownLabel(flags.label, store);
  } finally {
    await store.close();
  }
  const history = buildHistory(
    stored,
    { store: store.description, label: flags.label },
    {
      threshold: flags.threshold,
      pvalue: flags.pvalue,
      permutations: flags.permutations,
      seed: flags.seed,
      gate,
      accept: flags.accept,
    },
  );
  const outDir = flags.out ?? join('reports', `history-${fileTimestamp(new Date())}`);
  // The store was only read: the charts' names (by label) are known now, before the first write.
  const writes = FileWrites.check(fileEntries(outDir, historyFileNames(history), 'history'), flags);
  const { files } = await writeHistory(history, outDir);
  await writes.record();
  if (flags.json) ctx.out(`${JSON.stringify(history, null, 2)}\n`);
  else ctx.out(renderSummary(history));
  for (const s of history.skipped) ctx.err(`warning: not read: ${s.why.split('\n')[0]}`);
  ctx.err(`wrote ${files.join(', ')}`);
  // --junit: its path was checked first; a write that fails now is said, and the exit code stays the gate's.
  if (flags.junit !== undefined)
    await writeJunit(flags.junit, historyJunitSuite(history)).then(
      () => ctx.err(`wrote ${flags.junit}`),
      (err: unknown) => ctx.err(`warning: --junit: cannot write ${flags.junit}: ${messageOf(err)}`),
    );
  ctx.exitCode =
    history.outcome === 'regression'
      ? EXIT.failed
      : history.outcome === 'not tested'
        ? EXIT.notCompared
        : EXIT.ok;
}

/** Throws the usage error for --label when no run of the store has it, naming the labels it holds. */
async function refuseUnknownLabel(label: string, store: ResultStore): Promise<void> {
  const runs = new Map<string, number>();
  for (const { result } of (await store.list()).results)
    runs.set(result.label, (runs.get(result.label) ?? 0) + 1);
  if (runs.has(label)) return;
  const held = [...runs].map(([l, n]) => `${l} (${n} run${n === 1 ? '' : 's'})`).join(', ');
  throw new UsageError(
    `option --label: no run labelled "${label}" in ${store.description}: ${runs.size > 0 ? `it holds ${held}` : 'it holds no results'}`,
  );
}

function renderSummary(h: ReturnType<typeof buildHistory>): string {
  const lines: string[] = [];
  for (const label of h.labels) {
    const series = h.series.filter((s) => s.label === label.label);
    const points = series.flatMap((s) => s.changePoints.map((cp) => ({ s, cp })));
    lines.push(
      `${label.label}: ${label.runs} run${label.runs === 1 ? '' : 's'} (${label.first} to ${label.last}), ${points.length} change point${points.length === 1 ? '' : 's'}${label.testDouble ? ' [test double: not MongoDB numbers]' : ''}`,
    );
    if (label.mixedServers)
      lines.push(
        `  mixes runs on different servers: ${formatServerRuns(label.mixedServers)}; their numbers do not belong in one series`,
      );
    for (const { s, cp } of points) lines.push(`  ${changePointLine(h, s, cp)}`);
  }
  if (h.labels.length === 0) lines.push(`no results in ${h.store}`);
  for (const f of h.newestRunFailures) lines.push(`  ${newestRunFailureLine(f)}`);
  for (const t of h.notTested)
    lines.push(
      `  ${t.label}, ${t.metric} at ${t.clients} client${t.clients === 1 ? '' : 's'}: not tested (${t.why})`,
    );
  lines.push(gateLine(h));
  return `${lines.join('\n')}\n`;
}
