/**
 * compareResults and `mongo-bench compare` on constructed result documents whose trials' rates are
 * known: the verdict (the trials are the replicates, never the seconds), the regression gate (exit 1),
 * the noise threshold, one run each (a ratio, "not compared", exit 3), several files per side, and the
 * refusal to compare a test double with MongoDB (exit 2).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareResults } from '../../lib/compare';
import { renderComparisonChart } from '../../lib/compare/chart';
import { notMongoDBWarning, serverLabel } from '../../lib/report/describe';
import { NULL_SERVER_VERSION } from '../../lib/calibrate/null-server';
import { identifyServer } from '../../lib/server/identify-server';
import { UsageError } from '../../lib/config/errors';
import { ResultDocument, StepResult } from '../../lib/result';
import { runCli, usageMessage } from '../support/cli';
import { countPixels, decodePng, isWarningRed, PNG_SIGNATURE } from '../report/helpers';
import { resultDocument, resultStep } from '../support/results';

const latency = (p50: number) => ({
  avg: p50,
  p50,
  p95: p50 * 2,
  p99: p50 * 3,
  p999: p50 * 4,
  max: p50 * 5,
  count: 100,
});

/**
 * A step of `rates.length` one-second trials whose ops/s are `rates` (6 reads : 1 write, roughly),
 * latency scaled by 1/rate. Each trial's seconds all run at its rate: seconds never decide.
 */
function step(clients: number, rates: number[]): StepResult {
  const total = rates.reduce((a, b) => a + b, 0);
  const perSecond = rates.map((r, i) => ({
    t: 0,
    reads: Math.round((r * 6) / 7),
    writes: r - Math.round((r * 6) / 7),
    errors: 0,
    ...(rates.length > 1 ? { trial: i + 1 } : {}),
  }));
  const reads = perSecond.reduce((a, s) => a + s.reads, 0);
  const mean = total / rates.length;
  return resultStep({
    clients,
    trials: rates.length,
    status: 'ok',
    ops: { reads, writes: total - reads, errors: 0 },
    opsPerSec: { total: mean, reads: reads / rates.length, writes: (total - reads) / rates.length },
    peakOpsPerSec: { total: Math.max(...rates), reads: 0, writes: 0 },
    latencyMicros: {
      reads: latency((1e6 * clients) / mean),
      writes: latency((2e6 * clients) / mean),
    },
    ...(rates.length > 1
      ? { trialStats: { opsPerSec: { mean, median: mean, stdev: 0, values: rates } } }
      : {}),
    perSecond,
    elapsedSeconds: rates.length,
  });
}

/** One run of `seconds` seconds whose seconds wobble around `base`: what a run without --trials gives. */
function oneRun(clients: number, base: number, seconds = 10): StepResult {
  const s = step(clients, [base]);
  const perSecond = WOBBLE.slice(0, seconds).map((w, t) => {
    const r = Math.round(base * (1 + w));
    return { t, reads: Math.round((r * 6) / 7), writes: r - Math.round((r * 6) / 7), errors: 0 };
  });
  return { ...s, seconds, perSecond, elapsedSeconds: seconds };
}

const result = resultDocument;

/** base * (1 + wobble): a fixed pattern of +-3% so rates are not all equal. */
const WOBBLE = [0, 0.021, -0.013, 0.027, -0.029, 0.008, -0.018, 0.014, -0.004, 0.03];
const rates = (base: number) => WOBBLE.map((w) => Math.round(base * (1 + w)));

describe('compareResults', () => {
  it('the same rates in another order: no difference beyond noise, no regression', () => {
    const a = result('A', [step(1, rates(1000)), step(2, rates(1800))]);
    const b = result('B', [
      step(1, [...rates(1000)].reverse()),
      step(2, [...rates(1800)].reverse()),
    ]);
    const c = compareResults(a, b);
    expect(c.steps.map((s) => s.verdict)).toEqual([
      'no difference beyond noise',
      'no difference beyond noise',
    ]);
    expect(c.steps[0].pValue).toBeGreaterThan(0.9);
    expect(c.steps[0].opsRatio).toBeCloseTo(1, 9);
    expect(c.regression).toBe(false);
  });

  it('B 20% slower at every second: "slower", a regression, latency ratios above 1', () => {
    const c = compareResults(
      result('A', [step(4, rates(1000))]),
      result('B', [step(4, rates(800))]),
    );
    const s = c.steps[0];
    expect(s.verdict).toBe('slower');
    expect(s.regression).toBe(true);
    expect(s.opsRatio).toBeCloseTo(0.8, 2);
    expect(s.pValue).toBeLessThan(0.001);
    expect(s.method).toBe('Mann-Whitney U, exact');
    expect(s.latencyRatio.reads.p50).toBeCloseTo(1.25, 2);
    expect(c.regression).toBe(true);
  });

  it('B 20% faster: "faster", never a regression', () => {
    const c = compareResults(
      result('A', [step(4, rates(1000))]),
      result('B', [step(4, rates(1200))]),
    );
    expect(c.steps[0]).toMatchObject({ verdict: 'faster', regression: false });
  });

  it('a significant 4% drop is "slower" but within the 5% threshold; with --threshold 3 it is a regression', () => {
    const a = result('A', [step(1, rates(1000))]);
    const b = result('B', [
      step(
        1,
        rates(1000).map((r) => r - 40),
      ),
    ]); // 4% lower, every second
    const c = compareResults(a, b);
    expect(c.steps[0].pValue).toBeLessThan(0.05);
    expect(c.steps[0]).toMatchObject({ verdict: 'slower', regression: false });
    expect(compareResults(a, b, { threshold: 3 }).steps[0].regression).toBe(true);
  });

  it('a significant change smaller than the noise threshold is no difference', () => {
    const a = result('A', [
      step(
        1,
        WOBBLE.map((w, i) => 1000 + i),
      ),
    ]);
    const b = result('B', [
      step(
        1,
        WOBBLE.map((w, i) => 1010 + i),
      ),
    ]); // +1%: every B second beats A's median
    const c = compareResults(a, b);
    expect(c.steps[0].pValue).toBeLessThan(0.05);
    expect(c.steps[0].verdict).toBe('no difference beyond noise');
    expect(c.steps[0].note).toMatch(/within the 2% noise threshold/);
    expect(compareResults(a, b, { noise: 0.5 }).steps[0].verdict).toBe('faster');
  });

  it('client counts only one side has, failed steps, one run each and 3 + 3 trials are "not compared", with the reason', () => {
    const failed = { ...step(2, rates(900)), status: 'failed' as const, error: 'lost the server' };
    const c = compareResults(
      result('A', [step(1, rates(1000)), failed, step(8, [1000]), step(16, [1000, 1010, 990])]),
      result('B', [
        step(1, rates(1000)),
        step(2, rates(900)),
        step(4, rates(900)),
        step(8, [900]),
        step(16, [800, 810, 790]),
      ]),
    );
    expect(c.steps.map((s) => [s.clients, s.verdict, s.note])).toEqual([
      [1, 'no difference beyond noise', undefined],
      [2, 'not compared', "A's step failed"],
      [4, 'not compared', 'no step with 4 clients in A'],
      [
        8,
        'not compared',
        expect.stringMatching(
          /^one run each: cannot tell this from run-to-run variation; run 4 or more trials per side/,
        ),
      ],
      [
        16,
        'not compared',
        expect.stringMatching(
          /3 and 3 runs cannot reach p < 0.05 \(the smallest possible p is 0.10\)/,
        ),
      ],
    ]);
    expect(c.outcome).toBe('no regression');
  });

  it('one run each: 10 seconds 20% slower at every second is a ratio, never a verdict or a regression', () => {
    const c = compareResults(result('A', [oneRun(4, 1000)]), result('B', [oneRun(4, 800)]));
    expect(c.steps[0]).toMatchObject({
      verdict: 'not compared',
      regression: false,
      pValue: null,
      samples: { a: 1, b: 1 },
    });
    expect(c.steps[0].opsRatio).toBeCloseTo(0.8, 2);
    expect(c.regression).toBe(false);
    expect(c.outcome).toBe('not compared');
  });

  it('several result files per side: each trial of each file is a replicate', () => {
    const as = [1000, 1020, 990, 1010, 1005].map((r) => result('A', [step(1, [r])]));
    const bs = [880, 900, 870, 890, 885].map((r) => result('B', [step(1, [r])]));
    const c = compareResults(as, bs);
    expect(c.steps[0]).toMatchObject({
      verdict: 'slower',
      regression: true,
      samples: { a: 5, b: 5 },
    });
    expect(c.steps[0].pValue).toBeCloseTo(2 / 252, 6); // complete separation of 5 + 5
    expect(c.steps[0].opsRatio).toBeCloseTo(885 / 1005, 2);
    expect(c.notes.join(' ')).toMatch(/5 result file\(s\) for A, 5 for B/);
  });

  it('refuses a test double against MongoDB, naming which is which', () => {
    const run = () =>
      compareResults(
        result('java', [step(1, rates(1000))], true),
        result('mongod', [step(1, rates(1000))]),
        {},
        { a: 'a.json', b: 'b.json' },
      );
    expect(run).toThrow(UsageError);
    expect(run).toThrow(
      /cannot compare A \(a\.json\) with B \(b\.json\): A \(a\.json\) was measured on a test double/,
    );
    // Two test doubles compare, marked as such.
    const both = compareResults(
      result('java', [step(1, rates(1000))], true),
      result('java', [step(1, rates(1000))], true),
    );
    expect(both.testDouble).toBe(true);
    expect(both.notes.join(' ')).toMatch(/TEST DOUBLE/);
  });

  it('a test double against a null server or FerretDB (neither is MongoDB): compared, each side named, never "MongoDB"', () => {
    // The null server's own buildInfo (lib/calibrate/null-server.ts): a version and no gitVersion.
    const product = identifyServer({
      uri: 'mongodb://127.0.0.1:27017',
      buildInfo: { version: NULL_SERVER_VERSION, versionArray: [7, 0, 0, 0] },
    });
    const nul = result('null', [step(1, rates(1000))]);
    const nullResult = {
      ...nul,
      target: { ...nul.target, serverVersion: NULL_SERVER_VERSION, product },
    };
    const java = result('java', [step(1, rates(1000))], true);
    const c = compareResults(java, nullResult, {}, { a: 'a.json', b: 'b.json' });
    expect(c.testDouble).toBe(true);
    expect([c.a.server, c.b.server]).toEqual([serverLabel(java), serverLabel(nullResult)]);
    expect(c.notes).toContain(
      `A ran on ${serverLabel(java)} and B on NOT MongoDB: unidentified server, reports MongoDB ${NULL_SERVER_VERSION}: neither is MongoDB, so the ratios compare these two servers, never MongoDB`,
    );
    expect(c.warnings).toEqual([
      expect.stringMatching(/^NOT MongoDB: B ran on unidentified server/),
      "TEST DOUBLE server: A's numbers are not MongoDB numbers",
    ]);
    expect(c.notes.join('\n')).not.toMatch(/both results come from a TEST DOUBLE/);
    expect(notMongoDBWarning(nullResult)).toMatch(/^NOT MongoDB: unidentified server/);
    // The newcomer's case: the CRUD double against FerretDB, compared.
    const ferret = {
      ...nul,
      target: {
        ...nul.target,
        serverVersion: '7.0.42',
        product: identifyServer({
          uri: 'mongodb://127.0.0.1:27017',
          buildInfo: { version: '7.0.42', ferretdbVersion: 'v1.24.2' },
        }),
      },
    };
    expect(compareResults(ferret, java).b.server).toBe(serverLabel(java));
    // A MongoDB side is refused, named as its summary names it.
    expect(
      usageMessage(() =>
        compareResults(
          result('java', [step(1, rates(1000))], true),
          result('mongod', [step(1, rates(1000))]),
        ),
      ),
    ).toContain(`B was measured on ${serverLabel(result('mongod', []))};`);
  });

  it('names each server as every summary does and warns NOT MongoDB, in its notes and under its chart, for a side on FerretDB', async () => {
    const product = identifyServer({
      uri: 'mongodb://127.0.0.1:27017',
      buildInfo: { version: '7.0.42', ferretdbVersion: 'v1.24.2' },
    });
    const mongo = result('mongod', [step(1, rates(1000))]);
    const ferret = {
      ...result('ferret', [step(1, rates(900))]),
      target: { ...mongo.target, serverVersion: '7.0.42', product },
    };
    const c = compareResults(mongo, ferret);
    expect([c.a.server, c.b.server]).toEqual([serverLabel(mongo), serverLabel(ferret)]);
    expect(c.b.server).toContain('FerretDB 1.24.2');
    expect(c.warnings).toEqual([expect.stringMatching(/^NOT MongoDB: B ran on FerretDB 1\.24\.2/)]);
    expect(c.notes).toContain(c.warnings[0]);
    const onFerret = compareResults(ferret, ferret);
    expect(onFerret.warnings).toEqual([expect.stringMatching(/^NOT MongoDB: FerretDB 1\.24\.2/)]);
    // Drawn: red text under the axis of the FerretDB comparison's chart, none under MongoDB against MongoDB.
    const bottomRed = async (png: Buffer) => {
      const pixels = await decodePng(png);
      return countPixels(pixels, pixels.height - 30, pixels.height, isWarningRed);
    };
    expect(await bottomRed(await renderComparisonChart(c))).toBeGreaterThan(300);
    expect(await bottomRed(await renderComparisonChart(compareResults(mongo, mongo)))).toBe(0);
  });

  it('rejects options out of range, naming them', () => {
    const a = result('A', [step(1, rates(1000))]);
    expect(() => compareResults(a, a, { threshold: -1 })).toThrow(
      /option --threshold: must be a number from 0 to 100, got -1/,
    );
    expect(() => compareResults(a, a, { alpha: 2 })).toThrow(/option --alpha/);
  });
});

describe('mongo-bench compare', () => {
  let dir: string;
  const write = (name: string, doc: ResultDocument) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-compare-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the table, writes compare.md, compare.json, the chart and the page, and exits 1 on a regression', async () => {
    const a = write('a.json', result('main', [step(1, rates(1000)), step(2, rates(1900))]));
    const b = write('b.json', result('branch', [step(1, rates(1000)), step(2, rates(1500))]));
    // (ten trials a side: enough replicates for a verdict)
    const out = join(dir, 'out');
    const { code, stdout, stderr } = await runCli(['compare', a, b, '--out', out]);
    expect(stderr).not.toContain('error');
    expect(code).toBe(1);
    expect(stdout).toMatch(/^\s+1\s.*no difference beyond noise$/m);
    expect(stdout).toMatch(/^\s+2\s.*0\.79x \(-21\.1%\).*SLOWER \(regression\)$/m);
    expect(stdout).toContain('REGRESSION: B is slower than A beyond the 5% threshold at 2 clients');
    expect(stdout).toContain('Mann-Whitney U');
    const md = readFileSync(join(out, 'compare.md'), 'utf8');
    expect(md).toContain('| Clients | A ops/s | B ops/s | ops/s B/A |');
    expect(md).toContain('![B/A ratios by client count](compare-ratios.png)');
    expect(JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8'))).toMatchObject({
      regression: true,
      threshold: 5,
    });
    const png = readFileSync(join(out, 'compare-ratios.png'));
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(png.length).toBeGreaterThan(10_000); // drawn, with text
    // The interactive page (tested in a browser in test/report/page-browser.test.ts) holds the same verdicts.
    const page = readFileSync(join(out, 'index.html'), 'utf8');
    expect(page).toContain('REGRESSION: B is slower than A beyond the 5% threshold at 2 clients');
    expect(page).toMatch(
      /<tr><td class="right">2<\/td>.*<td class="left">SLOWER \(regression\)<\/td><\/tr>/,
    );
  });

  it('--threshold 25 lets the same drop pass (exit 0); --json prints the comparison', async () => {
    const a = write('a2.json', result('main', [step(2, rates(1900))]));
    const b = write('b2.json', result('branch', [step(2, rates(1500))]));
    const { code, stdout } = await runCli([
      'compare',
      a,
      b,
      '--threshold',
      '25',
      '--out',
      join(dir, 'out2'),
      '--json',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      regression: false,
      steps: [{ clients: 2, verdict: 'slower', regression: false }],
    });
  });

  it('one run each: the ratio, "NOT COMPARED" in the headline, exit 3', async () => {
    const a = write('one-a.json', result('main', [oneRun(1, 1000), oneRun(2, 1900)]));
    const b = write('one-b.json', result('branch', [oneRun(1, 700), oneRun(2, 1300)]));
    const out = join(dir, 'one');
    const { code, stdout } = await runCli(['compare', a, b, '--out', out]);
    expect(code).toBe(3);
    expect(stdout).toMatch(
      /^\s+2\s.*0\.68x \(-31\.6%\).*not compared: one run each: cannot tell this from run-to-run variation/m,
    );
    expect(stdout).toMatch(/NOT COMPARED: no client count could be tested/);
    expect(stdout).not.toMatch(/no difference beyond noise/);
    expect(readFileSync(join(out, 'compare.md'), 'utf8')).toContain(
      '**NOT COMPARED: no client count could be tested',
    );
    // Several files per side (comma separated) give the replicates a verdict needs.
    const files = (side: string, base: number) =>
      [0, 1, 2, 3, 4]
        .map((i) => write(`${side}-${i}.json`, result(side, [oneRun(1, base + 7 * i)])))
        .join(',');
    const several = await runCli([
      'compare',
      files('ma', 1000),
      files('br', 800),
      '--out',
      join(dir, 'several'),
      '--json',
    ]);
    expect(several.code).toBe(1);
    expect(JSON.parse(several.stdout)).toMatchObject({
      outcome: 'regression',
      steps: [{ clients: 1, verdict: 'slower', samples: { a: 5, b: 5 } }],
    });
  });

  it('exits 2 with the reason for a test double against MongoDB, and for a bad file; writes nothing', async () => {
    const a = write('double.json', result('java', [step(1, rates(1000))], true));
    const b = write('mongod.json', result('mongod', [step(1, rates(1000))]));
    const out = join(dir, 'refused');
    const refused = await runCli(['compare', a, b, '--out', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/a test double's numbers say nothing about MongoDB/);
    const missing = await runCli(['compare', a, join(dir, 'nope.json'), '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.json: cannot read result file (no such file)');
    const badOption = await runCli(['compare', a, a, '--threshold', 'lots', '--out', out]);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('option --threshold: expected a number, got "lots"');
    expect(existsSync(out)).toBe(false);
  });
});
