/**
 * What the terminal says, on hand-made events and results (no server): the connect line names a server
 * that is not MongoDB in the very words of summary.md and the charts (--quiet too), and the smaller
 * console lines read as they should.
 */
import { ProgressPrinter, SilentPrinter } from '../../lib/cli/progress-printer';
import type { RunEvent } from '../../lib/run/events';
import { ProgressTracker } from '../../lib/run/progress';
import { warnings } from '../../lib/report/describe';
import { identifyServer } from '../../lib/server/identify-server';
import { resultDocument } from '../support/results';

/** Every line a printer writes for `events`, --quiet or not. */
function printed(events: RunEvent[], quiet = false): string[] {
  const tracker = new ProgressTracker({ clients: [1], trials: 1, seconds: 1, warmupSeconds: 0 });
  const lines: string[] = [];
  const write = (text: string) => lines.push(...text.split('\n').filter((l) => l !== ''));
  const printer = quiet ? new SilentPrinter(tracker, write) : new ProgressPrinter(tracker, { progress: write, tables: write, tty: false });
  for (const event of events) printer.handle(event);
  printer.stop();
  return lines;
}

describe('the connect line', () => {
  const mongo = resultDocument('r', []);
  const ferretProduct = identifyServer({ uri: mongo.target.uri, buildInfo: { version: '7.0.42', ferretdbVersion: 'v1.24.2' } });
  const ferret = { ...mongo, target: { ...mongo.target, serverVersion: '7.0.42', product: ferretProduct } };
  const connected = (target: typeof mongo.target): RunEvent => ({ type: 'connected', target });

  it('says NOT MongoDB for FerretDB, in the words summary.md and the charts carry, --quiet included', () => {
    const summaryLine = warnings([ferret]).find((w) => w.startsWith('NOT MongoDB'));
    expect(summaryLine).toBe("NOT MongoDB: FerretDB 1.24.2, reports MongoDB 7.0.42; these are its numbers, not MongoDB's");
    expect(printed([connected(ferret.target)])).toEqual([`[connect] ${mongo.target.uri}: FerretDB 1.24.2, reports MongoDB 7.0.42, standalone`, `warning: ${summaryLine}`]);
    expect(printed([connected(ferret.target)], true)).toEqual([`warning: ${summaryLine}`]);
  });

  it('says TEST DOUBLE for a test double, as summary.md does, and nothing more for MongoDB', () => {
    const double = resultDocument('d', [], true);
    const summaryLine = warnings([double]).find((w) => w.startsWith('TEST DOUBLE'));
    expect(printed([connected(double.target)])).toContain(`warning: ${summaryLine}`);
    expect(printed([connected(double.target)], true)).toEqual([`warning: ${summaryLine}`]);
    expect(printed([connected(mongo.target)])).toEqual([`[connect] ${mongo.target.uri}: server 7.0.14, standalone`]);
    expect(printed([connected(mongo.target)], true)).toEqual([]);
  });
});
