/**
 * Objectives on real measurements (the CRUD test server; its numbers are not MongoDB numbers, only
 * the verdicts are checked, with limits no server could miss or meet): the API returns the verdicts,
 * the command lists them in summary.md, exits 99 when one fails, and --slo-abort stops the sweep.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchmark } from 'mongo-bench';
import { ResultDocument } from '../../lib/result';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const SHORT = [
  '--clients',
  '1,2',
  '--seconds',
  '1',
  '--warmup',
  '0',
  '--docs',
  '100',
  '--doc-size',
  '128',
  '--no-server-stats',
  '--quiet',
];

describeNeeding('crud', 'objectives (--slo) on the CRUD test server', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-slo-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = (out: string) =>
    JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultDocument;

  it('benchmark() returns the verdicts: every objective at every step, all passed', async () => {
    const result = await benchmark({
      uri: crudUri(),
      ns: `${uniqueDbName('slo_api')}.docs`,
      clients: [1, 2],
      seconds: 1,
      warmup: 0,
      docs: 100,
      docSize: 128,
      serverStats: false,
      slo: ['errors<50%', 'total>0.01/s', 'reads.p99<60s'],
    });
    expect(result.slo).toMatchObject({
      objectives: ['errors<50%', 'total>0.01/s', 'reads.p99<60s'],
      abortOnFailure: false,
      pass: true,
    });
    expect(result.slo!.verdicts.map((v) => [v.clients, v.objective, v.pass])).toEqual([
      [1, 'errors<50%', true],
      [1, 'total>0.01/s', true],
      [1, 'reads.p99<60s', true],
      [2, 'errors<50%', true],
      [2, 'total>0.01/s', true],
      [2, 'reads.p99<60s', true],
    ]);
    const step = result.steps[0];
    expect(result.slo!.verdicts[1].actual).toBe(step.opsPerSec.total);
    expect(result.slo!.verdicts[2].actual).toBe(step.latencyMicros.reads.p99);
  });

  it('run: a passing objective exits 0; a failing one exits 99, every step still runs and summary.md says which failed', async () => {
    const pass = join(dir, 'pass');
    const ok = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${uniqueDbName('slo_pass')}.docs`,
      ...SHORT,
      '--out',
      pass,
      '--slo',
      'errors<50%',
    ]);
    expect(ok.code).toBe(0);
    expect(read(pass).slo?.pass).toBe(true);

    const fail = join(dir, 'fail');
    const failed = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${uniqueDbName('slo_fail')}.docs`,
      ...SHORT,
      '--out',
      fail,
      '--slo',
      'errors<50%',
      '--slo',
      'total>1000000000/s',
    ]);
    expect(failed.code).toBe(99);
    expect(failed.stderr).toContain('objectives failed (exit 99): total>1000000000/s at 1 client');
    const result = read(fail);
    expect(result.complete).toBe(true);
    expect(result.steps.map((s) => s.clients)).toEqual([1, 2]);
    expect(result.slo).toMatchObject({ pass: false, abortOnFailure: false });
    expect(
      result.slo!.verdicts.filter((v) => v.pass === false).map((v) => [v.clients, v.objective]),
    ).toEqual([
      [1, 'total>1000000000/s'],
      [2, 'total>1000000000/s'],
    ]);
    const summary = readFileSync(join(fail, 'summary.md'), 'utf8');
    expect(summary).toContain('### Objectives (--slo)');
    expect(summary).toMatch(
      /\| total>1000000000\/s \| \*\*FAIL\*\* \([\d,]+ ops\/s\) \| \*\*FAIL\*\*/,
    );
    expect(summary).toMatch(/\| errors<50% \| pass \(0\.000%\) \| pass/);
    expect(summary).toContain('**An objective failed** (exit 99).');
  });

  it('--slo-abort from a config file: the sweep stops after the first failing step, marked incomplete, exit 99', async () => {
    const config = join(dir, 'run.yaml');
    writeFileSync(config, 'slo:\n  - reads.p50<1us\nsloAbort: true\n');
    const out = join(dir, 'abort');
    const cli = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${uniqueDbName('slo_abort')}.docs`,
      ...SHORT,
      '--out',
      out,
      '--config',
      config,
    ]);
    expect(cli.code).toBe(99);
    const result = read(out);
    expect(result.steps.map((s) => s.clients)).toEqual([1]);
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toContain(
      'an objective failed (--slo-abort): reads.p50<1us at 1 client',
    );
    expect(result.slo).toMatchObject({ pass: false, aborted: true, abortOnFailure: true });
  });

  it('a bad expression is refused before anything connects (exit 2), naming it', async () => {
    const cli = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1',
      '--out',
      join(dir, 'bad'),
      '--slo',
      'reads.p99<5',
    ]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('option --slo: "reads.p99<5": a latency needs a unit');
  });
});
