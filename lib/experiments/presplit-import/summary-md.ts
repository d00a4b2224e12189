/** summary.md of a presplit-import result: the ways side by side, then each way's shards and chunks. */
import { formatOps } from '../../report/format';
import { PresplitImportResult, WayResult } from './result';
import { perShardChartFile, TOTAL_CHART_FILE } from './chart-data';
import { wayLabel } from './ways';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

function ratio(way: WayResult): string {
  if (!way.spread) return '-';
  return way.spread.ratio === null
    ? `∞ (${way.spread.idlest.shard} took none)`
    : `${way.spread.ratio.toFixed(2)}x`;
}

function status(way: WayResult): string {
  if (way.error) return `failed: ${way.error}`;
  return way.complete ? 'complete' : (way.incompleteReason ?? 'cut short');
}

function chunkCell(way: WayResult, shard: string, when: 'before' | 'after'): string {
  const d = way.chunks[when];
  return d ? String(d.perShard[shard] ?? 0) : '-';
}

export function renderPresplitImportSummary(
  result: PresplitImportResult,
  charts: readonly string[],
): string {
  const s = result.settings;
  const lines: string[] = ['# presplit-import: a sharded bulk import, three ways', ''];
  if (result.target.testDouble)
    lines.push(
      `> **Test double:** ${result.target.testDouble}. These are not MongoDB figures.`,
      '',
    );
  if (!result.complete)
    lines.push(
      `> **Incomplete:** ${result.incompleteReason ?? 'cut short'}. The figures cover what was measured.`,
      '',
    );
  lines.push(
    `- Cluster: ${result.target.uri} · MongoDB ${result.target.serverVersion} · ${result.target.shards.length} shards (${result.target.shards.map((x) => x.id).join(', ')})`,
    `- Import per way: ${formatOps(s.docs)} documents of ~${formatOps(s.docSize)} bytes into ${s.ns}, insertMany batches of ${formatOps(s.batchSize)}, ${s.writers} concurrent writer(s)${s.w !== undefined ? `, w: ${s.w}` : ''}`,
    `- Keys: ranged \`${s.shardKey}\` cycling through [${s.range.min}, ${s.range.max}); way (b) chunk size ${s.chunkSizeMb} MB; way (c) hashed \`${s.hashedKey}\``,
    `- Sampling: serverStatus opcounters.insert on every shard's primary and on the mongos, every ${s.sampleIntervalMs / 1000} s`,
    `- ${result.startedAt} to ${result.finishedAt}`,
    '',
    '## The ways',
    '',
    'Spread: the coefficient of variation (CV) of the inserts each shard took during the import ',
    '(standard deviation / mean): 0 is perfectly even, sqrt(shards - 1) is everything on one shard. ',
    "Busiest/idlest is the ratio of the two extreme shards' totals.",
    '',
    table(
      [
        'way',
        'status',
        'docs inserted',
        'seconds',
        'docs/s (client)',
        'peak inserts/s (mongos)',
        'busiest shard (share)',
        'busiest/idlest',
        'spread (CV)',
      ],
      result.ways.map((w) => [
        wayLabel(w.way),
        status(w),
        formatOps(w.import.insertedDocs),
        w.import.seconds.toFixed(1),
        formatOps(w.import.docsPerSec),
        formatOps(w.peakPerSec.mongos),
        w.spread ? `${w.spread.busiest.shard} (${Math.round(w.spread.busiestShare * 100)}%)` : '-',
        ratio(w),
        w.spread ? `${w.spread.cv.toFixed(2)} of ${w.spread.cvAllOnOne.toFixed(2)}` : '-',
      ]),
    ),
    '',
  );
  if (charts.includes(TOTAL_CHART_FILE))
    lines.push(`![cluster inserts/sec at the mongos](${TOTAL_CHART_FILE})`, '');

  for (const w of result.ways) {
    lines.push(`## ${wayLabel(w.way)}`, '', w.description, '');
    lines.push(
      `Set up with the plan of \`mongo-bench scripts ${w.scriptsArgs.join(' ')}\` (its data-distribution steps):`,
      '',
    );
    for (const step of w.setup) lines.push(`${step.step}. ${step.description} (${step.status})`);
    lines.push('');
    if (w.setupWarnings.length > 0)
      lines.push(...w.setupWarnings.map((x) => `- warning: ${x}`), '');
    lines.push(
      table(
        [
          'shard',
          'inserts (opcounters)',
          'share',
          'peak inserts/s',
          'chunks before',
          'chunks after',
        ],
        w.shards.map((id) => {
          const total = w.totals.perShard[id] ?? 0;
          return [
            id,
            formatOps(total),
            w.totals.shardsSum > 0 ? `${Math.round((total / w.totals.shardsSum) * 100)}%` : '-',
            formatOps(w.peakPerSec.shards[id] ?? 0),
            chunkCell(w, id, 'before'),
            chunkCell(w, id, 'after'),
          ];
        }),
      ),
      '',
      `All shards: ${formatOps(w.totals.shardsSum)} inserts counted; the client had ${formatOps(w.totals.client)} acknowledged` +
        `${w.totals.mongos !== null ? `; the mongos counted ${formatOps(w.totals.mongos)}` : ''}. ` +
        'Shard counters also count chunk migrations into the shard, so they can exceed the documents imported.',
      '',
    );
    const file = perShardChartFile(w.way);
    if (charts.includes(file))
      lines.push(`![inserts/sec on each shard, ${wayLabel(w.way)}](${file})`, '');
  }
  if (result.warnings.length > 0)
    lines.push('## Warnings', '', ...result.warnings.map((x) => `- ${x}`), '');
  lines.push('How to read this report: docs/presplit-import.md in the mongo-bench repository.', '');
  return lines.join('\n');
}
