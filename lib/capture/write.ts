/**
 * Writes a capture's folder: capture.md, capture.json (the summary as data), the chart, and last
 * workload.json, each atomically (write then rename). A capture that fails writes nothing, so a
 * previous workload.json in the folder is never replaced by a partial one.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically, writeJsonAtomically } from '../common/atomic-write';
import { CaptureOutcome, CaptureSummary } from './capture';
import { renderCaptureChart } from './chart';
import { renderCaptureMarkdown } from './render-md';

export const CAPTURE_FILES = {
  workload: 'workload.json',
  report: 'capture.md',
  summary: 'capture.json',
  chart: 'capture-shapes.png',
} as const;

/** The sampled documents, with --docs-like --keep-sample only. */
export const SAMPLE_FILE = 'sample.json';

/** capture.json's schema: how a later capture into the folder knows the file for mongo-bench's. */
export const CAPTURE_SCHEMA = 'mongo-bench/capture@1';

/** capture.json (and what --json prints): the summary, with its schema first. */
export function captureDocument(summary: CaptureSummary): { schema: string } & CaptureSummary {
  return { schema: CAPTURE_SCHEMA, ...summary };
}

export async function writeCapture(dir: string, outcome: CaptureOutcome): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const png = await renderCaptureChart(outcome.summary);
  await writeFileAtomically(join(dir, CAPTURE_FILES.chart), png);
  await writeFileAtomically(
    join(dir, CAPTURE_FILES.report),
    renderCaptureMarkdown(outcome.summary, CAPTURE_FILES.chart),
  );
  await writeJsonAtomically(join(dir, CAPTURE_FILES.summary), captureDocument(outcome.summary));
  // The workload last: everything it is described by is already there.
  await writeJsonAtomically(join(dir, CAPTURE_FILES.workload), outcome.workload);
  return Object.values(CAPTURE_FILES).map((f) => join(dir, f));
}
