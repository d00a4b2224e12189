/**
 * Loading mongo-perf test files unchanged (issue 18), with a small hand-written file in mongo-perf's
 * format (test/fixtures/mongo-perf): the harness's ns/#B_ expansion and crud options, pre() recorded
 * as the set-up (per client count when it reads env.threads), a pre() that reads reported as
 * unsupported, and a unique #SEQ_INT insert test swept over 1, 2, 4 clients on the CRUD test server
 * with no duplicate key.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { crudUri, describeNeeding } from '../support/servers';
import { runCli } from '../support/cli';
import {
  loadMongoPerfFile,
  mongoPerfOps,
  mongoPerfSetup,
} from '../../lib/workload/language/mongo-perf/load-suite';
import { prepareMongoPerfTest, runMongoPerfSuite, SuiteOptions } from '../../lib/run/perf-suite';
import { ResultDocument } from '../../lib/result';
import { DRIVERS } from '../../lib/workload/engine/op-client';

const FILE = join(__dirname, '..', 'fixtures', 'mongo-perf', 'testcases', 'sample.js');

const base: Omit<SuiteOptions, 'uri' | 'outDir'> = {
  files: [FILE],
  clients: [1, 2, 4],
  seconds: 1,
  warmupSeconds: 0,
  trials: 1,
  reset: 'each-step',
  randomSeed: 1,
  serverSelectionTimeoutMS: 5000,
  workers: 1,
};

describe('mongo-perf test files', () => {
  const file = loadMongoPerfFile(FILE);
  const byName = (name: string) => file.tests.find((t) => t.name === name)!;

  it('loads the tests with their tags, after the harness helpers in util/', () => {
    expect(file.tests.map((t) => [t.name, t.tags])).toEqual([
      ['Sample.UniqueSeqInsert', ['insert', 'core']],
      ['Sample.LetFind', ['query', 'core']],
      ['Sample.ReadsInPre', ['query']],
    ]);
  });

  it('hands the ops over as the harness does: ns on every op (let and nop too), #B_ expanded, crud options', () => {
    const ops = mongoPerfOps(byName('Sample.LetFind')) as Record<string, unknown>[];
    expect(ops.map((op) => op.ns)).toEqual([
      'test0.Sample_LetFind0',
      'test0.Sample_LetFind0',
      'test0',
      'test0.Sample_LetFind0',
    ]);
    expect(ops[2].command).toEqual({ count: 'Sample_LetFind0', query: {} });
    for (const op of ops)
      expect(op).toMatchObject({ writeConcern: {}, writeCmd: true, readCmd: false });
    const prepared = prepareMongoPerfTest(file, byName('Sample.LetFind'), {
      ...base,
      uri: 'mongodb://127.0.0.1:1',
      outDir: '/tmp/unused',
    });
    expect('unsupported' in prepared).toBe(false);
  });

  it('records pre() as set-up steps, once per client count when it reads env.threads', () => {
    const unique = mongoPerfSetup(file, byName('Sample.UniqueSeqInsert'), [1, 2]);
    expect(unique.byClients).toBeUndefined();
    expect(unique.steps).toEqual([
      { kind: 'command', db: 'test0', command: { drop: 'Sample_UniqueSeqInsert0' } },
      { kind: 'command', db: 'test0', command: { drop: 'Sample_UniqueSeqInsert0' } },
      {
        kind: 'command',
        db: 'test0',
        command: {
          createIndexes: 'Sample_UniqueSeqInsert0',
          indexes: [{ key: { u: 1 }, name: 'u_1', unique: true }],
        },
      },
      { kind: 'command', db: 'test0', command: { create: 'Sample_UniqueSeqInsert0' } },
    ]);
    const perThreads = mongoPerfSetup(file, byName('Sample.LetFind'), [1, 2]);
    const docs = (clients: string) =>
      perThreads.byClients![clients].flatMap((s) => (s.kind === 'documents' ? s.documents : []));
    expect(docs('1')).toHaveLength(10);
    expect(docs('2')).toHaveLength(20);
    // Random.setRandomSeed(258) in pre(): the same data each time it is recorded.
    expect(docs('2').slice(0, 10)).toEqual(docs('1'));
  });

  it('reports a pre() that needs an answer from the server as unsupported, naming the call', () => {
    const prepared = prepareMongoPerfTest(file, byName('Sample.ReadsInPre'), {
      ...base,
      uri: 'mongodb://127.0.0.1:1',
      outDir: '/tmp/unused',
    });
    expect(prepared).toEqual({ unsupported: expect.stringContaining('collection.count()') });
  });
});

describeNeeding('crud', 'mongo-perf test files against the CRUD test server', () => {
  let outDir: string;
  beforeAll(() => (outDir = mkdtempSync(join(tmpdir(), 'mb-perf-'))));
  afterAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    const client = new MongoClient(crudUri());
    await client
      .db('test0')
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  });

  it.each(DRIVERS)(
    'sweeps a unique #SEQ_INT insert test over 1, 2, 4 clients with its pre() before every step: no duplicate key (--driver %s)',
    async (driver) => {
      const report = await runMongoPerfSuite({
        ...base,
        uri: crudUri(),
        outDir: join(outDir, driver),
        tests: /UniqueSeqInsert|ReadsInPre/,
        driver,
      });
      expect(report.outcomes.map((o) => [o.test, o.status])).toEqual([
        ['Sample.UniqueSeqInsert', 'ran'],
        ['Sample.ReadsInPre', 'unsupported'],
      ]);
      const [ran] = report.outcomes;
      expect(ran.steps!.map((s) => [s.clients, s.errCount])).toEqual([
        [1, 0],
        [2, 0],
        [4, 0],
      ]);
      const result = JSON.parse(readFileSync(ran.results!, 'utf8')) as ResultDocument;
      expect(result.workload.tags).toEqual(['insert', 'core']);
      expect(result.config.reset).toBe('each-step');
      expect(result.config.driver).toBe(driver);
      for (const step of result.steps) expect(step.ops).toMatchObject({ errors: 0 });
      expect(
        JSON.parse(readFileSync(join(outDir, driver, 'suite.json'), 'utf8')).outcomes,
      ).toHaveLength(2);
    },
    30_000,
  );

  it('perf-suite (the command): a line per finished step, one per test, the counts, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-perf-cli-'));
    try {
      const r = await runCli(
        [
          'perf-suite',
          '--uri',
          crudUri(),
          '--tests',
          'UniqueSeqInsert',
          '--clients',
          '1,2',
          '--seconds',
          '1',
          '--workers',
          '1',
          '--out',
          dir,
          FILE,
        ],
        { newline: 'terminal' },
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        / {2}Sample\.UniqueSeqInsert: 1 client done, \d+ ops\/s\n {2}Sample\.UniqueSeqInsert: 2 clients done, \d+ ops\/s\n/,
      );
      expect(r.stderr).toMatch(/^ran +Sample\.UniqueSeqInsert {2}1:\d+ 2:\d+$/m);
      expect(r.stderr).toContain(
        `1 test: 1 ran, 0 ran with errors, 0 unsupported, 0 failed; ${join(dir, 'suite.json')}`,
      );
      expect(r.stderr).toContain('the target is a test double: these are not MongoDB numbers');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('keeps the password out of suite.json and the outcome, even when the server cannot be reached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-perf-secret-'));
    try {
      const report = await runMongoPerfSuite({
        ...base,
        uri: 'mongodb://bench:s3cret-pw@127.0.0.1:1/?directConnection=true',
        serverSelectionTimeoutMS: 300,
        outDir: dir,
        tests: /UniqueSeqInsert/,
      });
      expect(report.outcomes.map((o) => o.status)).toEqual(['failed']);
      const written = readFileSync(join(dir, 'suite.json'), 'utf8');
      expect(written).toContain('127.0.0.1:1');
      expect(written).not.toContain('s3cret-pw');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
