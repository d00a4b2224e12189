/**
 * What the terminal says, on hand-made events and results (no server): the connect line names a server
 * that is not MongoDB in the very words of summary.md and the charts (--quiet too), and the smaller
 * console lines read as they should.
 */
import { ProgressPrinter, SilentPrinter } from '../../lib/cli/progress-printer';
import { abbreviationsOf } from '../../lib/cli/did-you-mean';
import { counted } from '../../lib/common/values';
import { formatStepTable } from '../../lib/metrics/format-step';
import type { RunEvent } from '../../lib/run/events';
import { ProgressTracker } from '../../lib/run/progress';
import { environmentDetails, serverLabel, warnings } from '../../lib/report/describe';
import type { StepResult } from '../../lib/result';
import { parseObjective } from '../../lib/slo/objective';
import { identifyServer } from '../../lib/server/identify-server';
import { parseWorkloadText } from '../../lib/workload/language/workload-file';
import { runCli, usageMessage } from '../support/cli';
import { resultDocument, resultStep } from '../support/results';

/** Every line a printer writes for `events`, --quiet or not. */
function printed(events: RunEvent[], quiet = false): string[] {
  const tracker = new ProgressTracker({ clients: [1], trials: 1, seconds: 1, warmupSeconds: 0 });
  const lines: string[] = [];
  const write = (text: string) => lines.push(...text.split('\n').filter((l) => l !== ''));
  const printer = quiet
    ? new SilentPrinter(tracker, write)
    : new ProgressPrinter(tracker, { progress: write, tables: write, tty: false });
  for (const event of events) printer.handle(event);
  printer.stop();
  return lines;
}

describe('the connect line', () => {
  const mongo = resultDocument('r', []);
  const ferretProduct = identifyServer({
    uri: mongo.target.uri,
    buildInfo: { version: '7.0.42', ferretdbVersion: 'v1.24.2' },
  });
  const ferret = {
    ...mongo,
    target: { ...mongo.target, serverVersion: '7.0.42', product: ferretProduct },
  };
  const connected = (target: typeof mongo.target): RunEvent => ({ type: 'connected', target });

  it('says NOT MongoDB for FerretDB, in the words summary.md and the charts carry, --quiet included', () => {
    const summaryLine = warnings([ferret]).find((w) => w.startsWith('NOT MongoDB'));
    expect(summaryLine).toBe(
      "NOT MongoDB: FerretDB 1.24.2, reports MongoDB 7.0.42; these are its numbers, not MongoDB's",
    );
    expect(printed([connected(ferret.target)])).toEqual([
      `[connect] ${mongo.target.uri}: FerretDB 1.24.2, reports MongoDB 7.0.42, standalone`,
      `warning: ${summaryLine}`,
    ]);
    expect(printed([connected(ferret.target)], true)).toEqual([`warning: ${summaryLine}`]);
  });

  it('says TEST DOUBLE for a test double, as summary.md does, and nothing more for MongoDB', () => {
    const double = resultDocument('d', [], true);
    const summaryLine = warnings([double]).find((w) => w.startsWith('TEST DOUBLE'));
    expect(printed([connected(double.target)])).toContain(`warning: ${summaryLine}`);
    // With its product identified, the server is named as summary.md's "Server" line names it.
    const java = identifyServer({
      uri: double.target.uri,
      buildInfo: { version: '6.0.0' },
      serverStatus: { process: 'java' },
    });
    expect(printed([connected({ ...double.target, product: java })])[0]).toBe(
      `[connect] ${double.target.uri}: ${serverLabel({ ...double, target: { ...double.target, product: java } })}, standalone`,
    );
    expect(printed([connected(double.target)], true)).toEqual([`warning: ${summaryLine}`]);
    expect(printed([connected(mongo.target)])).toEqual([
      `[connect] ${mongo.target.uri}: server 7.0.14, standalone`,
    ]);
    expect(printed([connected(mongo.target)], true)).toEqual([]);
  });
});

describe('the ops that completed after the window', () => {
  /** A step of `total` ops at `clients` clients, `late` of them completed after the window closed. */
  const step = (clients: number, total: number, late: number, open = false): StepResult =>
    resultStep({
      clients,
      seconds: 10,
      ops: { reads: total, writes: 0, errors: 0 },
      overrun: { reads: late, writes: 0, errors: 0, seconds: 0.4 },
      ...(open
        ? {
            arrival: {
              target: { kind: 'constant', opsPerSecond: 500 },
              lateAfterMs: 5,
              dropAfterMs: 500,
              scheduled: total,
              dropped: 0,
              late,
            },
          }
        : {}),
    });

  it("are not mentioned when they are the closed loop's routine: one in flight per client, a sliver of the ops", () => {
    expect(formatStepTable(step(8, 50_000, 8))).not.toContain('after the window');
  });

  it('are said when they are a visible share of the ops (a slow server: 10 ops a step)', () => {
    expect(formatStepTable(step(1, 10, 1))).toContain(
      "after the window: 1 op in flight at its close completed within 0.4 s; it is in the totals and latencies, not in any second (10% of the step's ops)",
    );
  });

  it('in the open model, queued ops are not called "in flight": they are ops due in the window', () => {
    const table = formatStepTable(step(1, 5000, 101, true));
    expect(table).toContain(
      'after the window: 101 ops due in it completed after its close, within 0.4 s: at most 1 (one per client) in flight at the close, the rest queued for a busy client and started after it',
    );
    expect(table).not.toContain('in flight at its close completed');
  });
});

describe('small wording', () => {
  it('"1 client", never "1 clients"', () => {
    expect([
      counted(1, 'client'),
      counted(4, 'client'),
      counted([1], 'client'),
      counted([1, 2, 4], 'client'),
    ]).toEqual(['1 client', '4 clients', '1 client', '1, 2, 4 clients']);
  });

  it('"Collection vs cache" says a sentence every step shares once', () => {
    const unread = { unavailable: 'collStats not permitted' };
    const same = resultDocument(
      'r',
      [1, 2, 4].map((clients) => resultStep({ clients, dataVsCache: unread })),
    );
    expect(environmentDetails(same).find(([k]) => k === 'Collection vs cache')?.[1]).toBe(
      'every step: not read (collStats not permitted)',
    );
    const sized = { dataBytes: 1024, indexBytes: 0, cacheBytes: 2 ** 30, ratio: 1024 / 2 ** 30 };
    const mixed = resultDocument('r', [
      resultStep({ clients: 1, dataVsCache: unread }),
      resultStep({ clients: 2, dataVsCache: sized }),
      resultStep({ clients: 4, dataVsCache: unread }),
    ]);
    expect(environmentDetails(mixed).find(([k]) => k === 'Collection vs cache')?.[1]).toBe(
      '1, 4 clients: not read (collStats not permitted); 2 clients: 1 KiB data + 0 B indexes = 0% of the 1 GiB cache',
    );
  });

  it("an unknown option suggests the flag it abbreviates (--secs: --seconds), and commander's guess for a typo", async () => {
    const secs = await runCli(['run', '--secs', '5']);
    expect(secs.code).toBe(2);
    expect(secs.stderr).toBe("error: unknown option '--secs'\n(Did you mean --seconds?)\n");
    expect((await runCli(['run', '--seocnds', '5'])).stderr).toContain('(Did you mean --seconds?)');
    expect(abbreviationsOf('--warm', ['--seconds', '--warmup-max', '--warmup'])).toEqual([
      '--warmup',
      '--warmup-max',
    ]);
    expect(abbreviationsOf('--zzz', ['--seconds', '--warmup'])).toEqual([]);
  });
});

describe('bad input, placed and explained', () => {
  it('a workload file with a trailing comma names the line and column, as config files do', () => {
    const text = ['{', '  "ops": [', '    { "op": "nop" },', '  ]', '}'].join('\n');
    expect(usageMessage(() => parseWorkloadText(text, 'w.json'))).toBe(
      "workload file w.json:3:20: not valid JSON: a trailing comma before ']' (JSON allows none: remove it)",
    );
    expect(usageMessage(() => parseWorkloadText('[{"op" "nop"}]', 'w.json'))).toBe(
      "workload file w.json:1:8: not valid JSON: unexpected '\"': expected ':' after the key",
    );
  });

  it('--slo with no comparison (the shell took an unquoted > as a redirection) says to quote it', () => {
    expect(usageMessage(() => parseObjective('reads.p99'))).toMatch(
      /the shell probably took an unquoted > or < as a redirection .*quote the whole expression/,
    );
    // In a config file there is no shell to blame.
    expect(usageMessage(() => parseObjective('reads.p99', 'config slo'))).not.toMatch(/shell/);
  });
});

describe("a step's table heading", () => {
  it('says seconds for a timed step and the op count for a step of --ops N', () => {
    const step = resultStep({ clients: 1, seconds: 1, trials: 1 });
    expect(formatStepTable(step).split('\n')[0]).toBe('clients 1: 1 s x 1 trial');
    expect(formatStepTable(step, undefined, 300).split('\n')[0]).toBe(
      'clients 1: 300 ops x 1 trial',
    );
  });
});

describe('latency by op on the console', () => {
  const summary = (count: number, avg: number) => ({
    count,
    avg,
    min: avg / 2,
    p50: avg,
    p95: avg * 2,
    p99: avg * 3,
    p999: avg * 4,
    max: avg * 5,
  });
  const op = (index: number, opType: string, name: string, count: number, avg: number) => ({
    index,
    op: opType,
    name,
    ...summary(count, avg),
  });

  it('more than two ops in the workload: a row per op under the step table, its index and what it runs', () => {
    const step = resultStep({
      clients: 4,
      latencyByOp: [
        op(0, 'findOne', 'findOne', 1200, 150),
        op(1, 'update', 'update', 3000, 420),
        op(2, 'command', 'aggregate', 1500, 2100),
      ],
    });
    const lines = formatStepTable(step).split('\n');
    const at = lines.findIndex((l) => l.startsWith('latency by op'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at].split(/ {2,}/)).toEqual([
      'latency by op',
      'ops',
      'avg µs',
      'p50',
      'p95',
      'p99',
      'p99.9',
      'max',
    ]);
    expect(lines.slice(at + 1, at + 4).map((l) => l.split(/ {2,}/))).toEqual([
      ['0 findOne', '1,200', '150', '150', '300', '450', '600', '750'],
      ['1 update', '3,000', '420', '420', '840', '1,260', '1,680', '2,100'],
      ['2 command aggregate', '1,500', '2,100', '2,100', '4,200', '6,300', '8,400', '10,500'],
    ]);
  });

  it('two ops or fewer: reads and writes tell them apart, no table by op', () => {
    const step = resultStep({
      clients: 4,
      latencyByOp: [op(0, 'findOne', 'findOne', 1200, 150), op(1, 'update', 'update', 300, 420)],
    });
    expect(formatStepTable(step)).not.toContain('latency by op');
  });
});
