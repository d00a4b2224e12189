/** Writes history.md, history.json and the trend charts (ops/s, read and write p99 per label) to a folder. */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { writeJsonAtomically } from '../common/atomic-write';
import { renderTrendChart } from './chart';
import type { HistoryDocument, HistorySeries } from './history';
import { renderHistoryMarkdown } from './render-md';

export const HISTORY_FILES = { markdown: 'history.md', json: 'history.json' } as const;

const CHARTED: HistorySeries['metric'][] = ['opsPerSec', 'readsP99', 'writesP99'];

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[_.]+|_+$/g, '') || 'label';
}

/** Every file writeHistory may write for this history: the trend charts of each label (drawn where there are points), history.md, history.json. */
export function historyFileNames(h: Pick<HistoryDocument, 'labels'>): string[] {
  return [
    ...h.labels.flatMap(({ label }) => CHARTED.map((metric) => trendChartName(label, metric))),
    HISTORY_FILES.markdown,
    HISTORY_FILES.json,
  ];
}

function trendChartName(label: string, metric: HistorySeries['metric']): string {
  return `trend-${safeName(label)}-${metric}.png`;
}

export async function writeHistory(
  h: HistoryDocument,
  outDir: string,
): Promise<{ files: string[] }> {
  await mkdir(outDir, { recursive: true });
  const files: string[] = [];
  const charts = new Map<string, string[]>();
  for (const { label } of h.labels) {
    for (const metric of CHARTED) {
      const png = await renderTrendChart(h, label, metric);
      if (!png) continue;
      const name = trendChartName(label, metric);
      await writeFile(path.join(outDir, name), png);
      files.push(path.join(outDir, name));
      charts.set(label, [...(charts.get(label) ?? []), name]);
    }
  }
  const md = path.join(outDir, HISTORY_FILES.markdown);
  await writeFile(md, renderHistoryMarkdown(h, charts));
  const json = path.join(outDir, HISTORY_FILES.json);
  await writeJsonAtomically(json, h);
  return { files: [md, json, ...files] };
}
