/**
 * Writes a capture's folder: capture.md, capture.json (the summary as data), the chart, and last
 * workload.json, each atomically (write then rename). A capture that fails writes nothing, so a
 * previous workload.json in the folder is never replaced by a partial one.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically, writeJsonAtomically } from '../common/atomic-write';
import { CaptureOutcome } from './capture';
import { renderCaptureChart } from './chart';
import { renderCaptureMarkdown } from './render-md';

export const CAPTURE_FILES = {
  workload: 'workload.json',
  report: 'capture.md',
  summary: 'capture.json',
  chart: 'capture-shapes.png',
} as const;

export async function writeCapture(dir: string, outcome: CaptureOutcome): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const png = await renderCaptureChart(outcome.summary);
  await writeFileAtomically(join(dir, CAPTURE_FILES.chart), png);
  await writeFileAtomically(
    join(dir, CAPTURE_FILES.report),
    renderCaptureMarkdown(outcome.summary, CAPTURE_FILES.chart),
  );
  await writeJsonAtomically(join(dir, CAPTURE_FILES.summary), outcome.summary);
  // The workload last: everything it is described by is already there.
  await writeJsonAtomically(join(dir, CAPTURE_FILES.workload), outcome.workload);
  return Object.values(CAPTURE_FILES).map((f) => join(dir, f));
}
