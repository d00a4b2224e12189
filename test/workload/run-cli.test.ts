import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRunOptions, parseWriteConcern } from '../../lib/run/options/run-options';
import { UsageError } from '../../lib/config/errors';
import { runCli } from '../support/cli';

async function run(...args: string[]) {
  return runCli(['run', ...args]);
}

// Nothing listens there: only reached by the unreachable-URI test; bad input must fail before connecting.
const DEAD_URI = 'mongodb://127.0.0.1:1';

describe('mongo-bench run: bad input is a clear error (exit 2) before any connection', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-run-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it.each([
    [['--clients', '0'], 'option --clients: each client count must be at least 1'],
    [
      ['--clients', '1,x'],
      'option --clients: expected a comma-separated list of integers, got "1,x"',
    ],
    [['--max-clients', '0'], 'option --max-clients: the maximum client count must be at least 1'],
    [['--seconds', '0'], 'option --seconds: seconds per step must be at least 1'],
    [['--rate', '-5'], 'option --rate: the target rate must be > 0 ops/s'],
    [['--workload', '6to2'], 'option --workload: unknown workload "6to2" (did you mean "6to1"?)'],
    [['--write-concern', '{w:'], 'option --write-concern: expected 1, majority, or a JSON object'],
    [['--ns', 'nodot'], 'option --ns: expected "database.collection"'],
    [
      ['--clients', '1,2', '--max-clients', '4'],
      'options --clients and --max-clients cannot be combined',
    ],
    [['--uri', 'http://nope'], 'option --uri: Invalid scheme'],
  ])('%j', async (args, message) => {
    const argv = args.includes('--uri') ? args : ['--uri', DEAD_URI, ...args];
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('an unknown op field in a workload file names the op index and field', async () => {
    const path = file('ops.json', [
      { op: 'findOne' },
      { op: 'findOne' },
      { op: 'update', query: {}, updat: { $inc: { n: 1 } } },
    ]);
    const r = await run('--uri', DEAD_URI, '--workload-file', path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `workload file ${path}: ops[2].updat: unknown field (did you mean "update"?)`,
    );
  });

  it('a malformed template in a workload file names the op and the path inside it', async () => {
    const path = file('bad-template.json', {
      ops: [{ op: 'findOne', query: { _id: { '#RAND_INT': [100] } } }],
    });
    const r = await run('--uri', DEAD_URI, '--workload-file', path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `workload file ${path}: ops[0].query._id.#RAND_INT: expected [min, max] or [min, max, multiplier], got [100]`,
    );
  });

  it('a missing workload file is named', async () => {
    const r = await run('--uri', DEAD_URI, '--workload-file', join(dir, 'nope.json'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --workload-file: cannot read');
  });
});

describe('mongo-bench run: an unreachable server', () => {
  it('a replica set fails within the server-selection timeout (exit 1) naming the host', async () => {
    const started = Date.now();
    const r = await run(
      '--uri',
      `${DEAD_URI}/?replicaSet=rs0`,
      '--clients',
      '1',
      '--server-selection-timeout',
      '700',
      '--out',
      join(tmpdir(), 'mb-never-written'),
    );
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot reach 127.0.0.1:1');
    expect(r.stderr).toContain('within the server-selection timeout of 700 ms');
    expect(took).toBeGreaterThanOrEqual(600);
    expect(took).toBeLessThan(3000);
  });

  it('a single host refusing connections fails at once, not after the server-selection timeout', async () => {
    const started = Date.now();
    const r = await run(
      '--uri',
      DEAD_URI,
      '--clients',
      '1',
      '--server-selection-timeout',
      '5000',
      '--out',
      join(tmpdir(), 'mb-never-written'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot reach 127.0.0.1:1');
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('resolveRunOptions', () => {
  it('applies the defaults: 6to1, clients 1..64, a timestamped output folder', () => {
    const o = resolveRunOptions({ uri: 'mongodb://h' }, new Date('2026-01-02T03:04:05.678Z'));
    expect(o.workload.name).toBe('6to1');
    expect(o.clients).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(o).toMatchObject({
      seconds: 10,
      warmupSeconds: 2,
      trials: 1,
      docs: 10000,
      docSize: 1024,
      batchSize: 256,
      load: true,
      serverSelectionTimeoutMS: 5000,
    });
    expect(o.outDir).toBe('reports/2026-01-02T03-04-05Z-6to1');
  });

  it('parses write concerns', () => {
    expect(parseWriteConcern('1')).toEqual({ w: 1 });
    expect(parseWriteConcern('majority')).toEqual({ w: 'majority' });
    expect(parseWriteConcern('{"w":1,"j":true}')).toEqual({ w: 1, j: true });
    expect(() => parseWriteConcern('{"x":1}')).toThrow(UsageError);
  });
});
