/**
 * `run --driver wire`: on the CRUD double an insert-only workload leaves exactly the documents the
 * result counts (one loop, and worker threads that own their sockets), the result's config and report
 * name the client; what the wire client cannot do is refused before anything connects (exit 2, naming
 * --driver node); retryWrites in the URI is recorded and told as not applied.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { environmentDetails } from '../../lib/report/describe';
import { loadResult } from '../../lib/report';
import { runCli } from '../support/cli';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { UsageError } from '../../lib/config/errors';
import { runBenchmark } from '../../lib/run/benchmark';
import type { RunOptions } from '../../lib/run/options/run-options';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import { presetOps } from '../../lib/workload/language/presets';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

function usageErrorOf(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('expected a UsageError');
}

describe('--driver wire: refused before anything connects', () => {
  const plan = (flags: Record<string, unknown>) =>
    resolveRunPlan({ driver: 'wire', ...flags } as never, { env: {} });

  it.each([
    ['mongodb+srv://cluster0.example.net/', /mongodb\+srv/],
    ['mongodb://127.0.0.1:1/?authMechanism=MONGODB-X509', /authMechanism MONGODB-X509/],
    ['mongodb://u:p@127.0.0.1:1/?authMechanism=PLAIN', /authMechanism PLAIN/],
    ['mongodb://127.0.0.1:1/?compressors=zlib', /compression/],
    ['mongodb://127.0.0.1:1/?readPreference=secondary', /readPreference secondary/],
    ['mongodb://127.0.0.1:1/?loadBalanced=true', /loadBalanced/],
  ])('%s', (uri, why) => {
    const err = usageErrorOf(() => plan({ uri }));
    expect(err.message).toMatch(why);
    expect(err.message).toMatch(/^option --driver wire: .*; use --driver node$/);
  });

  it('an op with a non-primary read preference, a transaction command', () => {
    const uri = 'mongodb://127.0.0.1:1/';
    const dir = mkdtempSync(join(tmpdir(), 'mb-wire-refuse-'));
    let files = 0;
    const workload = (ops: unknown[]) => {
      const file = join(dir, `w${files++}.json`);
      writeFileSync(file, JSON.stringify({ ops }));
      return { uri, workloadFile: file };
    };
    expect(
      usageErrorOf(() =>
        plan({
          ...workload([{ op: 'findOne', query: {}, readPrefMode: 'secondary' }]),
        }),
      ).message,
    ).toMatch(/ops\[0\]\.readPreference secondary.*--driver node/);
    expect(
      usageErrorOf(() =>
        plan({ ...workload([{ op: 'command', ns: 'admin', command: { commitTransaction: 1 } }]) }),
      ).message,
    ).toMatch(/a transaction \(ops\[0\]\.command commitTransaction\)/);
    // The same workloads run with the driver.
    expect(() =>
      resolveRunPlan(
        { ...workload([{ op: 'findOne', query: {}, readPrefMode: 'secondary' }]) } as never,
        { env: {} },
      ),
    ).not.toThrow();
    rmSync(dir, { recursive: true, force: true });
  });

  it('from the command line: a bad --driver, and --auth-mechanism other than SCRAM with --driver wire, exit 2', async () => {
    const bad = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1/',
      '--driver',
      'tcp',
      '--dry-run',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--driver.*must be node or wire/);
    const mechanism = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1/',
      '--driver',
      'wire',
      '--auth-mechanism',
      'MONGODB-X509',
      '--tls-certificate-key-file',
      __filename,
      '--dry-run',
    ]);
    expect(mechanism.code).toBe(2);
    expect(mechanism.stderr).toMatch(
      /option --driver wire: --auth-mechanism MONGODB-X509 is not supported by the wire client; use --driver node/,
    );
  });

  it('retryWrites in the URI: recorded in the config, said once as not applied (either driver)', () => {
    const p = plan({ uri: 'mongodb://127.0.0.1:1/?retryWrites=false' });
    expect(p.benchmark.uriRetries).toEqual({ retryWrites: false });
    expect(p.notes.filter((n) => /retryWrites/.test(n))).toHaveLength(1);
    expect(p.notes.join('\n')).toMatch(/not applied/);
    expect(p.benchmark.driver).toBe('wire');
  });
});

describeNeeding('crud', '--driver wire against the CRUD test server', () => {
  let client: MongoClient;
  let outDir: string;
  beforeAll(async () => {
    client = await new MongoClient(crudUri(), { serverSelectionTimeoutMS: 5000 }).connect();
    outDir = mkdtempSync(join(tmpdir(), 'mb-wire-'));
  });
  afterAll(async () => {
    await client?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  const DOCS = 50;

  function options(ns: string, workers: number, dir: string): RunOptions {
    return {
      uri: crudUri(),
      ns,
      driver: 'wire',
      workload: {
        name: 'insert-only',
        ops: presetOps('insert-only', { ns, docs: DOCS, docSize: 128 }),
      },
      clients: [4],
      seconds: 1,
      warmupSeconds: 0,
      trials: 1,
      load: true,
      docs: DOCS,
      docSize: 128,
      batchSize: 100,
      label: 'wire',
      randomSeed: 3,
      serverSelectionTimeoutMS: 5000,
      workers,
      outDir: join(outDir, dir),
    };
  }

  it.each([
    ['one event loop', 1],
    ['two worker threads, each with its own sockets', 2],
  ])(
    'insert-only through %s leaves exactly the documents the result counts',
    async (_what, workers) => {
      const db = uniqueDbName(`wire_insert_${workers}`);
      const ns = `${db}.docs`;
      try {
        const result = await runBenchmark(options(ns, workers, `w${workers}`));
        expect(result.complete).toBe(true);
        const [step] = result.steps;
        expect(step.ops.errors).toBe(0);
        expect(step.ops.writes).toBeGreaterThan(20);
        expect(step.client?.workers ?? 1).toBe(workers);
        // Every insert counted once (the overrun's among the step's writes), beside the loaded documents.
        expect(await client.db(db).collection('docs').countDocuments()).toBe(
          DOCS + step.ops.writes,
        );
        expect(result.config.driver).toBe('wire');
        // The report names the client beside the driver's version.
        const machine = environmentDetails(result).find(([name]) => name === 'Load machine')![1];
        expect(machine).toMatch(
          /client wire \(ops over mongo-bench's own OP_MSG connections; driver \d/,
        );
      } finally {
        await client.db(db).dropDatabase();
      }
    },
    60_000,
  );

  it('scenarios through --driver wire: an insert scenario leaves exactly the documents it counts', async () => {
    const db = uniqueDbName('wire_scenario');
    const dir = mkdtempSync(join(tmpdir(), 'mb-wire-scenario-'));
    const config = join(dir, 'run.yaml');
    writeFileSync(
      config,
      [
        `ns: ${db}.docs`,
        'docs: 20',
        'driver: wire',
        'scenarios:',
        '  - name: writer',
        `    ops: [{ op: insert, ns: ${db}.log, doc: { k: 1 } }]`,
        '    clients: "2"',
        '    duration: 1s',
      ].join('\n'),
    );
    try {
      const out = join(dir, 'out');
      const { code, stderr } = await runCli([
        'run',
        '--config',
        config,
        '--uri',
        crudUri(),
        '--out',
        out,
        '--quiet',
      ]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) as string });
      const result = await loadResult(join(out, 'results.json'));
      expect(result.config.driver).toBe('wire');
      const writes = result.scenarios![0].steps.reduce((n, st) => n + st.ops.writes, 0);
      expect(writes).toBeGreaterThan(10);
      expect(await client.db(db).collection('log').countDocuments()).toBe(writes);
    } finally {
      await client.db(db).dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
