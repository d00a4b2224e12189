/**
 * `mongo-bench run` before anything starts: where options come from (preset < config file < flags),
 * config file errors with their line, the choice of target, the dry run, and --help. Nothing here
 * connects or launches (the URIs point at nothing).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRunPlan, mergeSources } from '../../lib/run/options/run-plan';
import { ProgressTracker } from '../../lib/run/progress';
import { formatDuration } from '../../lib/run/options/sweep-time';
import { runCli, usageMessage } from '../support/cli';

const FAKE_BIN = join(__dirname, '..', 'support', 'fake-bin');
const NO_ENV = {};

async function cli(...args: string[]) {
  return runCli(['run', ...args]);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-run-options-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('options: preset < config file < flags', () => {
  it('a YAML config file sets options; flags override it; a preset fills what neither gives', () => {
    const config = file(
      'run.yaml',
      'uri: mongodb://127.0.0.1:1\nmax-clients: 8\nseconds: 3\nload: false\nwriteConcern: {w: 1, j: true}\n',
    );
    const plan = resolveRunPlan({ config, seconds: 7, preset: 'smoke' }, { env: NO_ENV });
    expect(plan.benchmark.seconds).toBe(7); // flag over file
    expect(plan.benchmark.clients).toEqual([1, 2, 4, 8]); // file's maxClients replaces the preset's clients list
    expect(plan.benchmark.docs).toBe(1000); // preset
    expect(plan.benchmark.load).toBe(false); // file (commander's --no-load default does not reach here)
    expect(plan.benchmark.writeConcern).toEqual({ w: 1, j: true });
    expect(plan.sources).toEqual(['preset smoke', `config ${config}`, 'flags']);
    expect(plan.target).toEqual({ kind: 'uri', uri: 'mongodb://127.0.0.1:1' });
  });

  it('JSON works the same; a flag of an exclusive pair replaces the other one from the file', () => {
    const config = file(
      'run.json',
      JSON.stringify({ uri: 'mongodb://127.0.0.1:1', clients: [1, 3], workload: 'read-only' }),
    );
    const plan = resolveRunPlan({ config, maxClients: 4 }, { env: NO_ENV });
    expect(plan.benchmark.clients).toEqual([1, 2, 4]);
    expect(plan.benchmark.workload.name).toBe('read-only');
    expect(mergeSources({ ns: 'a.b' }, { db: 'x' })).toEqual({ db: 'x' });
  });

  it('an unknown key is named with its line and a suggestion', () => {
    const config = file('typo.yaml', 'uri: mongodb://127.0.0.1:1\n\nmax-client: 8\nsecnds: 3\n');
    const message = usageMessage(() => resolveRunPlan({ config }, { env: NO_ENV }));
    expect(message).toContain(
      `config file ${config}:3: unknown key "max-client" (did you mean "max-clients"?)`,
    );
    expect(message).toContain(
      `config file ${config}:4: unknown key "secnds" (did you mean "seconds"?)`,
    );
  });

  it('a bad value is named with its path and line', () => {
    const config = file('bad.yaml', 'uri: mongodb://127.0.0.1:1\nclients:\n  - 1\n  - 0\n');
    expect(usageMessage(() => resolveRunPlan({ config }, { env: NO_ENV }))).toBe(
      `config file ${config}:4: clients[1]: each client count must be at least 1`,
    );
  });

  it('malformed YAML and JSON give the line and column', () => {
    const yaml = file('broken.yaml', 'uri: mongodb://127.0.0.1:1\nclients: [1, 2\nseconds: 3\n');
    expect(usageMessage(() => resolveRunPlan({ config: yaml }, { env: NO_ENV }))).toMatch(
      new RegExp(`^config file ${yaml.replace(/[.]/g, '\\.')}:\\d+:\\d+: not valid YAML: `),
    );
    const json = file('broken.json', '{\n  "uri": "mongodb://127.0.0.1:1",\n  "seconds": 3,,\n}\n');
    expect(usageMessage(() => resolveRunPlan({ config: json }, { env: NO_ENV }))).toMatch(
      new RegExp(`^config file ${json.replace(/[.]/g, '\\.')}:3:\\d+: not valid JSON: `),
    );
  });

  it('a missing config file, a config key that belongs on the command line, an unknown preset', () => {
    expect(
      usageMessage(() => resolveRunPlan({ config: join(dir, 'nope.yaml') }, { env: NO_ENV })),
    ).toContain('option --config: cannot read');
    const nested = file('nested.yaml', 'config: other.yaml\n');
    expect(usageMessage(() => resolveRunPlan({ config: nested }, { env: NO_ENV }))).toContain(
      `config file ${nested}:1: "config" cannot be set in a config file`,
    );
    expect(usageMessage(() => resolveRunPlan({ preset: 'quik' }, { env: NO_ENV }))).toContain(
      'option --preset: unknown preset "quik" (did you mean "quick"?)',
    );
  });
});

describe('the target', () => {
  it('no --uri: the embedded default (standalone, or a replica set)', () => {
    expect(resolveRunPlan({}, { env: NO_ENV }).target).toMatchObject({
      kind: 'embedded',
      topology: 'standalone',
    });
    expect(
      resolveRunPlan({ topology: 'replset', replicas: 3 }, { env: NO_ENV }).target,
    ).toMatchObject({ kind: 'embedded', topology: 'replset', replicas: 3 });
  });

  it('--bin-dir or sharded: launched from the plan, the benchmark collection sharded and pre-split over the loaded _id range', () => {
    const replset = resolveRunPlan({ topology: 'replset', binDir: FAKE_BIN }, { env: NO_ENV });
    expect(replset.target.kind).toBe('launched');
    const sharded = resolveRunPlan(
      { topology: 'sharded', shards: 2, binDir: FAKE_BIN, docs: 1000, collection: 'c' },
      { env: NO_ENV },
    );
    if (sharded.target.kind !== 'launched') throw new Error('expected launched');
    expect(sharded.target.plan.topology.sharding).toMatchObject({
      ns: 'mongo_bench.c',
      key: { _id: 1 },
      presplit: { min: 0, max: 1000 },
    });
    expect(sharded.benchmark.ns).toBe('mongo_bench.c');
    expect(sharded.target.removeDataDir).toBe(true);
  });

  it('refuses options that do not fit the target, naming them', () => {
    expect(
      usageMessage(() => resolveRunPlan({ uri: 'mongodb://h', shards: 2 }, { env: NO_ENV })),
    ).toContain('option --shards: does not apply with --uri');
    expect(
      usageMessage(() =>
        resolveRunPlan({ uri: 'mongodb://h', stopBalancer: true }, { env: NO_ENV }),
      ),
    ).toContain('option --stop-balancer: only applies with --setup');
    expect(usageMessage(() => resolveRunPlan({ setup: true }, { env: NO_ENV }))).toContain(
      'option --setup: only applies with --uri',
    );
    expect(usageMessage(() => resolveRunPlan({ basePort: 30000 }, { env: NO_ENV }))).toContain(
      'option --base-port: only applies to a launched cluster',
    );
    expect(usageMessage(() => resolveRunPlan({ topology: 'sharded' }, { env: NO_ENV }))).toContain(
      'a sharded cluster needs mongod and mongos binaries',
    );
    expect(usageMessage(() => resolveRunPlan({ ns: 'a.b', db: 'c' }, { env: NO_ENV }))).toContain(
      'option --ns cannot be combined with --db/--collection',
    );
    expect(usageMessage(() => resolveRunPlan({ topology: 'ring' }, { env: NO_ENV }))).toContain(
      'option --topology',
    );
  });

  it('--uri --setup plans only the data-distribution steps for the benchmark collection', () => {
    const plan = resolveRunPlan(
      { uri: 'mongodb://h', setup: true, shardKey: 'k', presplit: '0:100', stopBalancer: true },
      { env: NO_ENV },
    );
    if (plan.target.kind !== 'uri' || !plan.target.setup)
      throw new Error('expected --uri with a setup plan');
    expect(plan.target.setup.topology.sharding).toMatchObject({
      ns: 'mongo_bench.docs',
      key: { k: 1 },
      presplit: { min: 0, max: 100 },
      stopBalancer: true,
    });
  });
});

describe('mongo-bench run --dry-run and --help', () => {
  it('--dry-run prints the plan, the processes, the sweep and the expected duration, and exits 0 without connecting', async () => {
    const started = Date.now();
    const r = await cli(
      '--dry-run',
      '--topology',
      'sharded',
      '--shards',
      '2',
      '--bin-dir',
      FAKE_BIN,
      '--base-port',
      '30100',
      '--clients',
      '1,2,4',
      '--seconds',
      '5',
      '--warmup',
      '1',
      '--trials',
      '2',
      '--stop-balancer',
    );
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.stdout).toContain('mongos-0  127.0.0.1:30100');
    expect(r.stdout).toMatch(/shard1-0 +127\.0\.0\.1:30103/);
    expect(r.stdout).toContain('{"balancerStop":1}');
    expect(r.stdout).toContain(
      'sweep: clients 1, 2, 4; 5 s measured after 1 s warm-up, 2 trials each',
    );
    expect(r.stdout).toContain('expected duration: 36s of sweep (3 client counts x 2 x 6 s)');
    expect(r.stdout).toContain('Nothing was started or connected (--dry-run).');
  });

  it('--dry-run with --warmup auto says how long a warm-up may last (--warmup-max), not 0 s', async () => {
    const r = await cli(
      '--dry-run',
      '--uri',
      'mongodb://127.0.0.1:1',
      '--clients',
      '1,2',
      '--seconds',
      '5',
      '--warmup',
      'auto',
      '--warmup-max',
      '20',
      '--trials',
      '1',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'sweep: clients 1, 2; 5 s measured after up to 20 s warm-up (until steady), 1 trial each',
    );
    expect(r.stdout).toContain(
      'expected duration: at most 50s of sweep (2 client counts x 1 x 25 s)',
    );
  });

  it('--dry-run against a --uri that does not exist still exits 0 (it never connects)', async () => {
    const r = await cli(
      '--dry-run',
      '--uri',
      'mongodb://127.0.0.1:1',
      '--drop',
      '--preset',
      'quick',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the existing deployment at mongodb://127.0.0.1:1');
    expect(r.stdout).toContain('drop mongo_bench.docs first (--drop)');
    expect(r.stdout).toContain('recreate mongo_bench.docs (the built-in loader');
  });

  it("--dry-run shows a workload file's own set-up and when it runs (--reset)", async () => {
    const workload = file(
      'wl.json',
      JSON.stringify({
        name: 'seq',
        ops: [
          {
            op: 'insert',
            ns: 'perf.seq',
            doc: { _id: { '#SEQ_INT': { seq_id: 0, start: 0, step: 1, unique: true } } },
          },
        ],
        setup: [
          { command: { drop: 'seq' }, db: 'perf' },
          { documents: { count: 500, doc: { x: 1 } }, ns: 'perf.seq' },
        ],
      }),
    );
    const r = await cli(
      '--dry-run',
      '--uri',
      'mongodb://127.0.0.1:1',
      '--workload-file',
      workload,
      '--reset',
      'each-step',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "set-up (the workload file's `setup`, instead of the loader), before every step (--reset each-step):",
    );
    expect(r.stdout).toContain('command on perf: {"drop":"seq"}');
    expect(r.stdout).toContain('insert 500 generated documents into perf.seq (batches of 1000)');
  });

  it('--agents and its options come from a config file too (flags win), and --dry-run says how the agents are used', async () => {
    const config = file(
      'agents.yaml',
      'uri: mongodb://127.0.0.1:1\nagents: 3\ncontrolUri: mongodb://ctl:secret@127.0.0.1:2\nagentWait: 30\n',
    );
    const r = await cli('--dry-run', '--config', config, '--agent-wait', '45');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "every step's clients run on 3 agents (mongo-bench agent on each load machine), coordinated through mongodb://ctl:****@127.0.0.1:2, database mongo_bench_control",
    );
    expect(r.stdout).toContain('waits up to 45 s for them to join');
    expect(r.stdout).not.toContain('secret');
    const stray = await cli(
      '--dry-run',
      '--config',
      file('stray.yaml', 'uri: mongodb://127.0.0.1:1\ncontrolDb: ctl\n'),
    );
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('option --control-db: only with --agents N');
  });

  it('--help lists the targets, the presets and the exit codes', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    for (const text of [
      '--config <file>',
      '--preset <name>',
      '--dry-run',
      '--bin-dir <dir>',
      '--setup',
      '--drop',
      '--quiet',
      'smoke',
      'Exit codes:',
      '130  interrupted by Ctrl-C',
    ])
      expect(r.stdout).toContain(text);
  });

  it('bad flags exit 2 before anything starts', async () => {
    const r = await cli('--uri', 'mongodb://127.0.0.1:1', '--clients', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --clients: each client count must be at least 1');
  });
});

describe('progress tracker', () => {
  it('counts steps, live ops/s and the sweep time left', () => {
    let now = 0;
    const tracker = new ProgressTracker(
      { clients: [1, 2], trials: 1, seconds: 3, warmupSeconds: 1 },
      () => now,
    );
    expect(tracker.state.remainingSeconds).toBe(8);
    tracker.handle({
      type: 'step-start',
      clients: 1,
      trial: 1,
      trials: 1,
      seconds: 3,
      warmupSeconds: 1,
    });
    now = 1000;
    const s = tracker.handle({
      type: 'tick',
      clients: 1,
      trial: 1,
      tick: {
        phase: 'warmup',
        second: 0,
        reads: 60,
        writes: 10,
        errors: 0,
        measured: { reads: 0, writes: 0, errors: 0 },
      },
    });
    expect(s).toMatchObject({
      phase: 'sweep',
      step: 1,
      steps: 2,
      clients: 1,
      liveOpsPerSec: 70,
      remainingSeconds: 7,
      elapsedSeconds: 1,
    });
    tracker.handle({
      type: 'step-start',
      clients: 2,
      trial: 1,
      trials: 1,
      seconds: 3,
      warmupSeconds: 1,
    });
    expect(tracker.state).toMatchObject({ step: 2, remainingSeconds: 4 });
    expect(formatDuration(75)).toBe('1m15s');
  });
});
