/**
 * `compare --run A.yaml B.yaml`: two configurations measured in randomized interleaved trials on the
 * null server (its numbers are the load generator's, never MongoDB's), through the CLI as a user runs
 * it. A against a proxy that holds every find 20 ms is a regression (exit 1); one configuration against
 * itself is none (exit 0); each round ran A once and B once in the drawn order, which the trials'
 * start times show, and the seed reproduces the order. Different seconds are refused (exit 2).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NullServer, NULL_SERVER_NS, startNullServer } from '../../lib/calibrate/null-server';
import { Comparison } from '../../lib/compare';
import { ResultDocument } from '../../lib/result';
import { drawDesign } from '../../lib/run/interleave';
import { runCli } from '../support/cli';
import { benchmark } from '../../lib/api';
import { startStallProxy, StallProxy } from '../reliability/support/stall-proxy';

// 6 rounds: a loaded machine can make 5 per-round ratios fall in a row (a trend: "not compared") 1 time in 60; 6, 1 in 360.
const TRIALS = 6;

function config(
  dir: string,
  name: string,
  uri: string,
  extra: Record<string, unknown> = {},
): string {
  const file = join(dir, name);
  const values = {
    uri,
    workload: '6to1',
    clients: [1],
    seconds: 1,
    warmup: 0,
    trials: TRIALS,
    load: false,
    serverStats: false,
    testDouble: true,
    ns: NULL_SERVER_NS,
    workers: 1,
    ...extra,
  };
  writeFileSync(
    file,
    Object.entries(values)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join('\n'),
  );
  return file;
}

/** Each round's order as the trials' start times show it: "AB" when A's trial r started first. */
function observedOrder(a: ResultDocument, b: ResultDocument): string[] {
  const ta = a.steps[0].trialStats?.startedAt ?? [];
  const tb = b.steps[0].trialStats?.startedAt ?? [];
  return ta.map((t, r) => (Date.parse(t) <= Date.parse(tb[r]) ? 'AB' : 'BA'));
}

describe('compare --run: randomized interleaved trials', () => {
  let dir: string;
  let server: NullServer;
  let proxy: StallProxy;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-compare-run-'));
    server = await startNullServer();
    proxy = await startStallProxy(
      { host: '127.0.0.1', port: server.port },
      // 20 ms, not 2: four jest workers on 2 cores once slowed the null server to a 4 ms median
      // round trip, and a 2 ms hold was then lost in the noise ("no difference beyond noise").
      { command: 'find', delayMs: 20 },
    );
    // Two seconds of the same workload first, unmeasured: cold, this process's engine and the null server
    // speed up over the first rounds (1,417 to 2,933 ops/s in one run), a trend of the per-round ratio
    // that is rightly "not compared".
    await benchmark({
      uri: server.uri,
      workload: '6to1',
      clients: [1],
      seconds: 2,
      warmup: 0,
      load: false,
      serverStats: false,
      testDouble: true,
      ns: NULL_SERVER_NS,
      workers: 1,
    });
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the null server against one that holds finds 20 ms: a regression, exit 1; the trials interleave in the drawn order', async () => {
    const out = join(dir, 'slow');
    const cli = await runCli([
      'compare',
      '--run',
      config(dir, 'a.yaml', server.uri),
      config(dir, 'b.yaml', proxy.uri),
      '--out',
      out,
      '--seed',
      '7',
    ]);
    const comparison = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as Comparison;
    const [a, b] = ['A', 'B'].map(
      (side) => JSON.parse(readFileSync(join(out, side, 'results.json'), 'utf8')) as ResultDocument,
    );
    const step = comparison.steps[0];
    // The whole step in the message when it fails: its note says why a verdict was withheld.
    expect({
      clients: step.clients,
      samples: step.samples,
      verdict: step.verdict,
      regression: step.regression,
      note: step.note,
      replicates: step.replicates,
    }).toMatchObject({
      clients: 1,
      samples: { a: TRIALS, b: TRIALS },
      verdict: 'slower',
      regression: true,
    });
    expect(cli.code).toBe(1);
    // The order drawn from the seed, recorded, and the order the trials actually ran in.
    const drawn = drawDesign(2, [1], TRIALS, 7).order[0].rounds.map((perm) =>
      perm.map((i) => 'AB'[i]).join(''),
    );
    expect(comparison.design).toMatchObject({
      kind: 'randomized complete blocks',
      seed: 7,
      rounds: TRIALS,
      order: [{ clients: 1, rounds: drawn }],
    });
    expect(observedOrder(a, b)).toEqual(drawn);
    // Interleaved: every trial of round r started before any of round r + 1.
    const starts = (r: number) =>
      [a, b].map((x) => Date.parse(x.steps[0].trialStats!.startedAt![r]));
    for (let r = 0; r + 1 < TRIALS; r++)
      expect(Math.max(...starts(r))).toBeLessThanOrEqual(Math.min(...starts(r + 1)));
  });

  it('one configuration against itself: no regression, exit 0 (--threshold 25: the null server shares this loaded machine)', async () => {
    const file = config(dir, 'same.yaml', server.uri);
    const cli = await runCli([
      'compare',
      '--run',
      file,
      file,
      '--out',
      join(dir, 'same'),
      '--json',
      '--threshold',
      '25',
    ]);
    const comparison = JSON.parse(cli.stdout) as Comparison;
    expect(comparison.steps[0].samples).toEqual({ a: TRIALS, b: TRIALS });
    expect(comparison.steps[0].minDetectablePercent).not.toBeUndefined();
    // Never a regression. A machine whose load changes during the rounds (other processes starting or ending)
    // can make the rounds' ratio trend: compare then says "not steady" and exits 3, not compared, by design.
    expect(comparison.outcome).not.toBe('regression');
    if (comparison.outcome === 'not compared') {
      expect(comparison.steps.every((s) => /^not steady: /.test(s.note ?? ''))).toBe(true);
      expect(cli.code).toBe(3);
    } else expect(cli.code).toBe(0);
  });

  it('the seed reproduces the order; another seed draws another', () => {
    expect(drawDesign(2, [1, 4], 6, 3)).toEqual(drawDesign(2, [1, 4], 6, 3));
    expect(drawDesign(2, [1, 4], 6, 3).order).not.toEqual(drawDesign(2, [1, 4], 6, 4).order);
  });

  it('different seconds are refused, naming the key (exit 2); different clients too, unless --clients is given', async () => {
    const a = config(dir, 'x.yaml', server.uri);
    const seconds = await runCli([
      'compare',
      '--run',
      a,
      config(dir, 'y.yaml', server.uri, { seconds: 2 }),
      '--out',
      join(dir, 'refused'),
    ]);
    expect(seconds.code).toBe(2);
    expect(seconds.stderr).toContain('seconds differs: A has 1, B has 2');
    const clients = await runCli([
      'compare',
      '--run',
      a,
      config(dir, 'z.yaml', server.uri, { clients: [2] }),
      '--out',
      join(dir, 'refused2'),
    ]);
    expect(clients.code).toBe(2);
    expect(clients.stderr).toContain('clients differs');
  });

  it('Ctrl-C stops A and B: what they measured is compared and written, exit 130', async () => {
    // The signal comes when the first trial's first find reaches the server: the proxy sees it.
    let signalled = false;
    const trigger = await startStallProxy(
      { host: '127.0.0.1', port: server.port },
      {
        command: 'find',
        delayMs: 0,
        when: () => {
          if (!signalled) {
            signalled = true;
            setImmediate(() => process.emit('SIGINT'));
          }
          return false;
        },
      },
    );
    try {
      const out = join(dir, 'interrupted');
      const cli = await runCli([
        'compare',
        '--run',
        config(dir, 'i.yaml', trigger.uri),
        config(dir, 'j.yaml', server.uri),
        '--out',
        out,
      ]);
      expect(cli.stderr).toContain('SIGINT: stopping A and B');
      expect(cli.stderr).toContain('mongo-bench compare: interrupted (SIGINT)');
      expect(cli.code).toBe(130);
      const comparison = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as Comparison;
      // Both sides were cut short, and the comparison says so.
      expect([comparison.a.complete, comparison.b.complete]).toEqual([false, false]);
      expect(comparison.notes.some((n) => n.startsWith('A is incomplete'))).toBe(true);
      const a = JSON.parse(readFileSync(join(out, 'A', 'results.json'), 'utf8')) as ResultDocument;
      expect(a.complete).toBe(false);
    } finally {
      await trigger.stop();
    }
  });
});
