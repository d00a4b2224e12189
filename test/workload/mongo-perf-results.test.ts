/**
 * suite.json points only at results that were written (issue 25, point 4): a test that failed before
 * it measured, or did not run, has no `results` path but `noResults` saying why, even when the --out
 * folder holds an older results.json from an earlier suite.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMongoPerfSuite, SuiteReport } from '../../lib/run/perf-suite';

const FILE = join(__dirname, '..', 'fixtures', 'mongo-perf', 'testcases', 'sample.js');

describe('perf-suite outcomes without a result', () => {
  let outDir: string;
  beforeAll(() => (outDir = mkdtempSync(join(tmpdir(), 'mb-perf-nores-'))));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('names no results.json for a test that failed before measuring, or did not run, and says why', async () => {
    // An earlier suite's file in the same --out folder: not this run's result.
    const stale = join(outDir, 'Sample.UniqueSeqInsert', 'results.json');
    mkdirSync(join(stale, '..'), { recursive: true });
    writeFileSync(stale, '{}');
    utimesSync(stale, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));

    const report = await runMongoPerfSuite({
      files: [FILE],
      uri: 'mongodb://127.0.0.1:1/?directConnection=true',
      serverSelectionTimeoutMS: 300,
      outDir,
      tests: /UniqueSeqInsert|ReadsInPre/,
      clients: [1],
      seconds: 1,
      warmupSeconds: 0,
      trials: 1,
      reset: 'each-step',
      randomSeed: 1,
      workers: 1,
    });
    expect(report.outcomes.map((o) => [o.test, o.status, o.results, o.noResults])).toEqual([
      [
        'Sample.UniqueSeqInsert',
        'failed',
        undefined,
        'no results.json: the test stopped before its first step was measured',
      ],
      ['Sample.ReadsInPre', 'unsupported', undefined, 'not run: unsupported (see reason)'],
    ]);
    const written = JSON.parse(readFileSync(join(outDir, 'suite.json'), 'utf8')) as SuiteReport;
    for (const outcome of written.outcomes)
      if (outcome.results !== undefined) expect(existsSync(outcome.results)).toBe(true);
    expect(written.outcomes.every((o) => o.results === undefined)).toBe(true);
  }, 30_000);
});
