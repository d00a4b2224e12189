import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { registerScripts } from '../../lib/cli/scripts';
import { captureContext, runCli } from '../support/cli';

async function scripts(...args: string[]) {
  return runCli(['scripts', ...args], { newline: 'terminal' });
}

describe('mongo-bench scripts', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'mongo-bench-scripts-cli-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it.each([
    [['--topology', 'sharded', '--shards', '0'], /option --shards: must be at least 1/],
    [['--topology', 'replset', '--replicas', '0'], /option --replicas: must be at least 1/],
    [
      ['--topology', 'sharded', '--shards', 'five'],
      /option --shards: expected an integer, got "five"/,
    ],
    [
      ['--topology', 'replset', '--base-port', '65534'],
      /option --base-port: 3 processes need ports 65534-65536, past 65535/,
    ],
    [
      ['--topology', 'sharded', '--shard-key', 'name', '--presplit', 'a:m'],
      /option --presplit: expected MIN:MAX with numeric bounds/,
    ],
    [
      ['--topology', 'sharded', '--presplit', '64:0'],
      /option --presplit: MIN must be less than MAX, got 64:0/,
    ],
    [
      ['--topology', 'standalone', '--shards', '2'],
      /option --shards: only applies to --topology sharded/,
    ],
  ])('refuses %j with exit code 2 and a message naming the option', async (args, message) => {
    const r = await scripts(...args, '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('refuses --server-version below 4.4 (exit 2, naming the option and the floor)', async () => {
    for (const version of ['3.6', '4.2']) {
      const r = await scripts('--topology', 'replset', '--server-version', version, '--dry-run');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`option --server-version: ${version} is older than 4.4`);
    }
    expect(
      (await scripts('--topology', 'replset', '--server-version', '4.4', '--dry-run')).code,
    ).toBe(0);
  });

  it("README: a shard key run's documents lack is never followed by `mongo-bench run`; a loaded field is, with --setup", async () => {
    const g = path.join(tmp, 'g');
    expect(
      (await scripts('--topology', 'sharded', '--shard-key', 'g', '--presplit', '0:64', '--out', g))
        .code,
    ).toBe(0);
    const readmeG = readFileSync(path.join(g, 'README.md'), 'utf8');
    expect(readmeG).not.toContain('mongo-bench run --uri');
    expect(readmeG).toContain(
      'sharded on `g`, which the documents `mongo-bench run` loads do not have',
    );
    const k = path.join(tmp, 'k');
    expect(
      (
        await scripts(
          '--topology',
          'sharded',
          '--shard-key',
          'k',
          '--presplit',
          '0:1000',
          '--out',
          k,
        )
      ).code,
    ).toBe(0);
    expect(readFileSync(path.join(k, 'README.md'), 'utf8')).toContain(
      "`mongo-bench run --uri 'mongodb://127.0.0.1:27017/' --setup --db mongo_bench --collection docs --shard-key k --presplit 0:1000`",
    );
  });

  it('README: sharded order is 00-start.sh, 10-replsets.js, 15-start-mongos.sh, 20-cluster.js; 99-stop.sh stops it', async () => {
    const out = path.join(tmp, 'order');
    expect((await scripts('--topology', 'sharded', '--hashed', '--out', out)).code).toBe(0);
    const readme = readFileSync(path.join(out, 'README.md'), 'utf8');
    const order = [
      '`bash 00-start.sh`',
      '`mongosh --nodb 10-replsets.js`',
      '`bash 15-start-mongos.sh`',
      '`mongosh --nodb 20-cluster.js`',
    ].map((t) => readme.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(readme).toContain('`bash 99-stop.sh`');
    expect(readme).not.toMatch(/kill \$\(cat/);
  });

  it('warns about an even member count but still plans', async () => {
    const r = await scripts('--topology', 'replset', '--replicas', '2', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: option --replicas 2: an even number of voting members/m);
    expect(r.stdout).toMatch(/replSetInitiate/);
  });

  it('--dry-run prints the plan and writes nothing', async () => {
    const out = path.join(tmp, 'dry');
    const r = await scripts(
      '--topology',
      'sharded',
      '--shards',
      '5',
      '--replicas',
      '1',
      '--shard-key',
      'g',
      '--presplit',
      '0:64',
      '--stop-balancer',
      '--dry-run',
      '--out',
      out,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('{"split":"mongo_bench.docs","middle":{"g":38.4}}');
    expect(r.stdout).toContain('{"moveChunk":"mongo_bench.docs","find":{"g":6.4},"to":"shard0"}');
    expect(r.stdout).toMatch(/chunkOnShard \(expected: already in place\)/);
    expect(existsSync(out)).toBe(false);
  });

  it('writes the files to --out and lists them', async () => {
    const out = path.join(tmp, 'rs');
    const r = await scripts('--topology', 'replset', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('wrote '))).toEqual(
      ['00-start.sh', '10-replsets.js', '99-stop.sh', 'README.md'].map(
        (f) => `wrote ${path.join(out, f)}`,
      ),
    );
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).toContain(
      '`mongosh --nodb 10-replsets.js`',
    );
  });

  it("--workload writes the legacy benchRun sweep over the plan's collection", async () => {
    const out = path.join(tmp, 'workload');
    const r = await scripts(
      '--topology',
      'sharded',
      '--shards',
      '2',
      '--db',
      'perf',
      '--collection',
      'items',
      '--workload',
      '6to1',
      '--max-clients',
      '4',
      '--seconds',
      '3',
      '--docs',
      '500',
      '--out',
      out,
    );
    expect(r.code).toBe(0);
    const script = readFileSync(path.join(out, 'benchrun-6to1.js'), 'utf8');
    // The sweep 1, 2, 4 of 3 s each, over perf.items, with random _id drawn from [0, 500).
    expect(script).toMatch(/\[1, ?2, ?4\]/);
    expect(script).toContain('"perf.items"');
    expect(script).toMatch(/"#RAND_INT": ?\[0, ?500\]/);
    expect(script).toMatch(/seconds\b[^\n]*3/);
    expect(r.stdout).toContain(path.join(out, 'benchrun-6to1.js'));
  });

  it('passes --workload and its options to an injected renderer (tests capture the plan this way)', async () => {
    const ctx = captureContext({ newline: 'terminal' });
    const program = new Command('mongo-bench').exitOverride();
    const seen: string[] = [];
    registerScripts(program, ctx, {
      renderWorkload: (name, plan, options) => {
        seen.push(`${name}@${plan.topology.name}:${options.maxClients}`);
        return [];
      },
    });
    await program.parseAsync([
      'node',
      'mongo-bench',
      'scripts',
      '--topology',
      'standalone',
      '--workload',
      '6to1',
      '--max-clients',
      '8',
      '--dry-run',
    ]);
    expect(seen).toEqual(['6to1@standalone:8']);
  });

  it('refuses sweep options without --workload, and an unknown workload, naming the option', async () => {
    let r = await scripts('--topology', 'standalone', '--max-clients', '8', '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --max-clients: only applies with --workload');
    r = await scripts('--topology', 'standalone', '--workload', '6to', '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/option --workload: unknown workload "6to" \(did you mean "6to1"\?\)/);
    r = await scripts(
      '--topology',
      'standalone',
      '--workload',
      '6to1',
      '--seconds',
      '0',
      '--dry-run',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --seconds: must be at least 1');
  });
});
