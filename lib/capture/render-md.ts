/** capture.md: what was captured (shapes, shares, server time, logged latency) and what was skipped, and why. */
import { CaptureSummary } from './capture';
import { SYNTHETIC_UPDATE_FIELD, SYNTHETIC_UPDATE_KEYS } from './statements';

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
/** "1 getMore", "2 getMores". */
const counted = (n: number, word: string) => `${fmt(n)} ${word}${n === 1 ? '' : 's'}`;

export const SLOWMS_ADVICE = `The server logs an operation only when it runs longer than slowms (100 ms by default), so a log
holds the slow tail, not the workload. To capture every operation for a while, on each mongod:

    db.setProfilingLevel(0, { slowms: 0 })                    // log every op (profiler stays off)
    db.setProfilingLevel(0, { slowms: 0, sampleRate: 0.1 })   // or a 10% sample of them

and set it back afterwards (\`db.setProfilingLevel(0, { slowms: 100, sampleRate: 1 })\`). The cost: one log
line (about 1-2 KB) per operation, written by the thread that served it; at 10,000 ops/s that is 10-20 MB/s
of log and a few percent of throughput. sampleRate lowers both in proportion. The server samples each
update/delete statement and its command on their own: capture counts the statement lines of a sampled
log (--sampled, or detected) so that the shares of a sample are the shares of the workload; the rate
(ops/s) is divided by the sample rate. From 8.0 slowms is compared with the op's workingMillis (its time
less waits for locks and tickets), not with durationMillis.`;

export function renderCaptureMarkdown(summary: CaptureSummary, chartFile: string): string {
  const lines: string[] = [];
  lines.push('# Captured workload', '');
  lines.push(`Sources: ${summary.sources.map((s) => `\`${s}\``).join(', ')}`, '');
  lines.push(...sourceRecords(summary));
  const unit = summary.queryStats ? 'executions' : 'statements';
  lines.push(
    summary.queryStats
      ? `${fmt(summary.recordsRead)} $queryStats entries read in ${summary.queryStats.snapshots.length} snapshot(s), ${fmt(summary.servedOps)} in the last; ` +
          `${fmt(summary.statements)} executions in ${summary.shapes.length} shapes (\`workload.json\`, one op per shape with its \`weight\`).`
      : `${fmt(summary.recordsRead)} records read; ${fmt(summary.servedOps)} operations served, ${fmt(summary.statements)} statements in ` +
          `${summary.shapes.length} shapes (\`workload.json\`, one op per shape with its \`weight\`).`,
  );
  if (summary.firstAt && summary.lastAt) {
    lines.push(
      `Time span: ${summary.firstAt} to ${summary.lastAt}${summary.opsPerSecond !== undefined ? `, ${summary.opsPerSecond.toPrecision(4)} ${unit}/s on average` : ''}.`,
    );
    if (summary.spanSeconds !== undefined && summary.spanSeconds > SECONDS_PER_DAY)
      lines.push(
        '',
        `**The lines span ${fmt(summary.spanSeconds / SECONDS_PER_DAY)} days:** the rate above and workload.json's per-second curve describe that span ` +
          `(${unit} over ${fmt(summary.spanSeconds)} s), not a load the server carried; \`run --replay-rate\` would replay that pace. ` +
          'Capture the window you want to replay (or split the log) for a rate that means a load.',
      );
  }
  lines.push(...slowTailNote(summary));
  if (summary.queryStats) lines.push('', ...queryStatsSection(summary));
  else
    lines.push(
      '',
      "Latencies below are the server's own (`durationMillis` as logged), not measured by mongo-bench.",
      '',
    );
  lines.push(`![share of operations and of server time by shape](${chartFile})`, '');
  lines.push('## Shapes', '');
  lines.push(
    '| op | type | namespace | shape | count | share of ops | share of server time | p50 ms | p95 ms | max ms | plan | queryHash |',
  );
  lines.push('| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
  for (const s of summary.shapes) {
    const l = s.latencyMillis;
    lines.push(
      `| ${s.op} | ${s.type}${s.synthetic ? ` (synthetic: ${s.synthetic})` : ''}${s.cursorsFromGetMores ? ` (${fmt(s.cursorsFromGetMores)} from getMores)` : ''} | ${cell(s.ns)} | \`${cell(clip(s.description, 140))}\` | ${fmt(s.count)} | ${fmt(s.sharePercent)}% | ${fmt(s.serverSharePercent)}% | ` +
        `${l ? fmt(l.p50) : ''} | ${l ? fmt(l.p95) : ''} | ${l ? fmt(l.max) : ''} | ${cell(s.planSummary ?? '')} | ${s.shapeHashes.join(', ')} |`,
    );
  }
  lines.push('');
  if (summary.shapes.some((s) => s.type === 'insert')) {
    lines.push(
      summary.insertDocuments === 'docs-like'
        ? 'Inserts write documents generated like the sampled collection (`--docs-like`).'
        : 'A log holds no inserted documents (only `ninserted`): inserts write a placeholder document. Use `--docs-like` for documents shaped like yours.',
      '',
    );
  }
  if (summary.shapes.some((s) => s.synthetic)) {
    lines.push(
      '**synthetic: filter unknown**: these updates and deletes were logged without their statements (a driver that sends them as an ' +
        'OP_MSG document sequence, a mongos log, or statements below slowms). Each counts as one op of its kind, replayed in a form that ' +
        `invents nothing of yours: an update of one document by \`_id\` (0..${SYNTHETIC_UPDATE_KEYS - 1}, the loader's) with ` +
        `\`$inc\` of the tool's own field \`${SYNTHETIC_UPDATE_FIELD}\`; a delete of one document the replay itself inserted ` +
        '(`capturedBy: "mongo-bench capture"`).',
      '',
    );
  }
  const notes = readingNotes(summary);
  if (notes.length > 0) lines.push('## How it was read', '', ...notes.map((n) => `- ${n}`), '');
  lines.push('## Skipped', '');
  if (summary.skipped.length === 0) lines.push('Nothing was skipped.');
  else {
    lines.push('| reason | count | first examples |', '| --- | ---: | --- |');
    for (const s of summary.skipped)
      lines.push(
        `| ${s.reason} | ${fmt(s.count)} | ${cell(s.examples.map((e) => clip(e, 160)).join('; '))} |`,
      );
  }
  lines.push('');
  if (!summary.queryStats)
    lines.push(
      `Other log entries (connections, storage, replication, ...): ${fmt(summary.otherEntries)}.`,
      '',
    );
  lines.push('## Replaying it', '');
  lines.push(
    '    mongo-bench run --uri mongodb://HOST --workload-file workload.json --no-load --clients 8 --seconds 60',
    '',
  );
  lines.push(
    'Each client draws the ops by weight (reproducibly with `--seed`): the mix of a run matches the shares above.',
    '',
  );
  if (!summary.queryStats) lines.push('## Capturing every operation', '', SLOWMS_ADVICE, '');
  return lines.join('\n');
}

const micros = (n: number | undefined) => (n === undefined ? '' : fmt(n));

const SECONDS_PER_DAY = 86_400;

/** The sources as workload.json names them: base names, what was read, hashes. */
function sourceRecords(summary: CaptureSummary): string[] {
  const records = summary.capturedFrom?.sources ?? [];
  if (records.length === 0) return [];
  const lines = records.map((r) => {
    const count =
      r.lines !== undefined
        ? counted(r.lines, 'line')
        : r.documents !== undefined
          ? counted(r.documents, 'document')
          : '';
    const hash = r.sha256 ? `sha256 \`${r.sha256}\`` : '';
    return `- \`${r.name}\`${count || hash ? `: ${[count, hash].filter(Boolean).join(', ')}` : ''}`;
  });
  return [
    'workload.json names its sources by base name (a full path can name a host or a customer), with what was read and a hash to check them by:',
    '',
    ...lines,
    '',
  ];
}

/** What the shortest logged time says of slowms, and what a slow tail means for the weights. */
function slowTailNote(summary: CaptureSummary): string[] {
  const slowms = summary.capturedFrom?.slowms;
  if (!slowms) return [];
  if (!slowms.slowTail)
    return [
      '',
      `The shortest logged operation took ${fmt(slowms.shortestMillis)} ms: the server logged with slowms at most ${fmt(slowms.suggested)}` +
        `${slowms.suggested === 0 ? ' (every operation)' : ''} (workload.json: \`capturedFrom.slowms\`).`,
    ];
  return [
    '',
    `**The slow tail, not the load.** Every logged operation took ${fmt(slowms.shortestMillis)} ms or more, at or above the default slowms of 100 ms: ` +
      'the server wrote only its slow operations (workload.json: `capturedFrom.slowms`, suggested 100). The weights are how often each shape was slow, ' +
      'not how often the application runs it: a fast, frequent query weighs little or nothing, a slow rare one a lot, and the rate is the rate of ' +
      'slow operations. Log every operation for a while (below) to capture the load.',
  ];
}

/** What the $queryStats output held of writes: the paragraph replaces "Reads only" when it has some. */
function queryStatsWrites(summary: CaptureSummary): string {
  const writes = summary.shapes.filter(
    (s) => s.type === 'insert' || s.type === 'update' || s.type === 'remove',
  );
  if (writes.length === 0)
    return (
      '**Reads only.** This output holds no write shape: $queryStats records find, aggregate and distinct (count on later releases) on the releases ' +
      'the Manual covers; updates, deletes and inserts only where the server collects them (the master branch registers their shapes ' +
      'behind feature flags). Capture from a log or the profiler for the writes.'
    );
  return (
    `**Writes.** ${writes.length} shape(s) are writes the server collected (${[...new Set(writes.map((s) => s.type))].join(', ')}): ` +
    "replayed as update, remove and insert ops with their filter and update given values as below; an insert writes the insert document in batches of the shape's mean `writes.nInserted` (1 without it)."
  );
}

/** What a $queryStats capture's weights, span, values and latencies are. */
function queryStatsSection(summary: CaptureSummary): string[] {
  const q = summary.queryStats;
  if (!q) return [];
  const lines: string[] = ['## Read from $queryStats', ''];
  if (q.mode === 'window') {
    lines.push(
      `Weights: the difference of two snapshots (${q.snapshots.map((s) => `\`${s.source}\`${s.asOf ? ` as of ${s.asOf}` : ''}`).join(' and ')})` +
        `${q.windowSeconds !== undefined ? `, ${fmt(q.windowSeconds)} s apart` : ''}: what ran between them.`,
    );
  } else {
    lines.push(
      `Weights: cumulative \`execCount\`, each shape counted since the server first saw it (\`firstSeenTimestamp\`), not over one common span: ` +
        `the shapes kept were first seen from ${q.firstSeen ?? '?'} and last seen up to ${q.latestSeen ?? '?'}. A shape seen for longer weighs more; ` +
        'entries the server evicted (its store is bounded) or started again after a restart are missing or counted from then. For the shares of one span, ' +
        'take two snapshots (`--query-stats-window S`, or two saved files). No pace (ops/s) is kept: `--replay-rate` does not apply.',
    );
  }
  lines.push('', queryStatsWrites(summary), '');
  const l = q.literals;
  const dropped = l
    ? Object.entries(l.dropped)
        .map(([k, n]) => `${k} ${fmt(n)}`)
        .join(', ')
    : '';
  lines.push(
    `**Values.** $queryStats keeps no literal, only its type (\`{item: {$eq: "?string"}}\`). ${
      q.values === 'sample'
        ? "Each in a filter was given a pick among its field's sampled values of its type (`--docs-like` with `--keep-sample`: they are in sample.json too), else the `--docs-like` template of its field, else a generator of its type"
        : q.values === 'docs-like'
          ? 'Each was given the `--docs-like` template of its field (sampled ranges and lengths, no sampled value) where the template has it, else a generator of its type'
          : "Without `--docs-like` each was given a generator of its type: a number one of the loader's `_id`s 0..9999, a string random text, a date within the shape's first..latest seen, an ObjectId a new one"
    }: a replay runs the same shapes, but its matches are not your queries' matches (an equality on a random string finds nothing).` +
      (l
        ? ` Filled: ${l.fromSample ? `${fmt(l.fromSample)} from sampled values, ` : ''}${fmt(l.fromDocsLike)} from --docs-like, ${fmt(l.byType)} by type, ${fmt(l.expressionConstants)} expression constants as 1/true; ` +
          `${fmt(l.limitsFromDocsReturned)} limits set to the shape's docsReturned.max${dropped ? `; dropped: ${dropped}` : ''}.`
        : ''),
    '',
  );
  lines.push("### Latency per shape (the server's, from $queryStats)", '');
  lines.push(
    "Means are over the executions read; max and min are the entry's since it was first seen. Microseconds, not measured by mongo-bench.",
    '',
  );
  lines.push(
    '| op | type | namespace | executions | mean µs | mean first response µs | mean docs returned | max µs | min µs | first seen | latest seen |',
  );
  lines.push('| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
  for (const s of summary.shapes) {
    const m = s.queryStats;
    if (!m) continue;
    lines.push(
      `| ${s.op} | ${s.type} | ${cell(s.ns)} | ${fmt(m.execCount)} | ${micros(m.meanExecMicros)} | ${micros(m.meanFirstResponseMicros)} | ${micros(m.meanDocsReturned)} | ` +
        `${micros(m.maxExecMicros)} | ${micros(m.minExecMicros)} | ${m.firstSeen ?? ''} | ${m.latestSeen ?? ''} |`,
    );
  }
  lines.push('');
  return lines;
}

/** What the capture did to read the source that changes its numbers: sampling, truncation, shard logs, prefixes. */
function readingNotes(summary: CaptureSummary): string[] {
  const notes: string[] = [];
  const sampling = summary.sampling;
  if (sampling?.sampled) {
    notes.push(
      `Sampled log (${sampling.sampled === 'option' ? '--sampled' : `detected: ${fmt(sampling.unpairedStatements)} statement lines without their command`}): ` +
        'updates and deletes are counted by their statement lines only (the server samples a statement and its command on their own draws); ' +
        'the commands of connections that have statement lines are skipped.',
    );
  }
  if (summary.truncatedInsertsKept) {
    notes.push(
      `${fmt(summary.truncatedInsertsKept)} inserts kept although the server cut their logged \`documents\` (maxLogSizeKB): \`ninserted\` is whole, and a replay never uses logged documents.`,
    );
  }
  if (summary.forwardedByMongos) {
    notes.push(
      `${fmt(summary.forwardedByMongos)} statements came from a mongos (a shard's log): the fields it added (\`fromMongos\`, \`needsMerge\`, \`shardVersion\`, ...) were stripped; ` +
        "a find's `limit` on a shard is the mongos's limit + skip (its skip is not sent), so replay the capture of a mongos's log where you can.",
    );
  }
  if (summary.composePrefixesStripped) {
    notes.push(
      `${fmt(summary.composePrefixesStripped)} lines carried a \`docker compose logs\` prefix (\`db_1  | \`), stripped (\`docker compose logs --no-log-prefix\` writes none).`,
    );
  }
  const g = summary.getMores;
  if (g && g.ofLoggedCursors > 0)
    notes.push(
      `${counted(g.ofLoggedCursors, 'getMore')} of a find or aggregate in the source: skipped as part of their cursor, their ${fmt(g.millisAddedToOpeners)} ms ` +
        "added to their opening command's share of server time.",
    );
  if (g && g.cursors > 0)
    notes.push(
      `${counted(g.alone, 'getMore')} of ${counted(g.cursors, 'cursor')} whose opening command is not in the source (a fast first batch under slowms, its getMores over it): ` +
        'each cursor counts once, as its `originatingCommand`, with its getMores\' time (shapes marked "from getMores"). ' +
        `${fmt(g.limited)} of them are replayed as far as the log shows they read (the first batch and each logged getMore's nreturned, as a \`limit\` or a final \`$limit\`); ` +
        `${fmt(g.cursors - g.limited)} to the end (a getMore said cursorExhausted). A limit after a blocking sort lets the server keep only the top documents: less work than the application's cursor did.`,
    );
  if (summary.failedKept)
    notes.push(
      `${fmt(summary.failedKept)} operations that failed on the server were kept as workload (--keep-failed).`,
    );
  return notes;
}
