/**
 * A workload's own set-up and --reset (issue 18): unique #SEQ_INT inserts into a collection with a
 * unique index run over 1, 2, 4 clients with no duplicate key when the set-up runs before every step,
 * and collide on the second step when it runs once (the data of step 1 is still there).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { resolveRunOptions } from '../../lib/run/options/run-options';
import { runBenchmark } from '../../lib/run/benchmark';
import { BenchmarkEvent } from '../../lib/run/events';

describeNeeding('crud', 'workload set-up and --reset against the CRUD test server', () => {
  let dir: string;
  let db: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-setup-'));
    db = uniqueDbName('setup');
    file = join(dir, 'unique-seq.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'unique-seq',
        ns: `${db}.t`,
        setup: [
          { command: { drop: 't' } },
          {
            command: {
              createIndexes: 't',
              indexes: [{ key: { u: 1 }, name: 'u_1', unique: true }],
            },
          },
          {
            documents: {
              count: 50,
              doc: {
                _id: { '#SEQ_INT': { seq_id: 0, start: 1_000_000, step: 1 } },
                u: { '#SEQ_INT': { seq_id: 0, start: 1_000_000, step: 1 } },
              },
            },
            batchSize: 20,
          },
        ],
        ops: [
          {
            op: 'insert',
            ns: `${db}.t`,
            doc: {
              _id: { '#SEQ_INT': { seq_id: 0, start: 0, step: 1, unique: true } },
              u: { '#SEQ_INT': { seq_id: 1, start: 0, step: 1, unique: true } },
            },
          },
        ],
      }),
    );
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    const client = new MongoClient(crudUri());
    await client
      .db(db)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  });

  // Every failure is kept as measured (--max-error-rate 100%): the second test expects the collisions.
  const run = (reset: string, clients: number[]) => {
    const options = {
      ...resolveRunOptions({
        uri: crudUri(),
        workloadFile: file,
        clients,
        seconds: 1,
        warmup: 0,
        workers: 1,
        reset,
        maxErrorRate: '100%',
      }),
      outDir: undefined,
    };
    const events: BenchmarkEvent[] = [];
    return runBenchmark(options, { onEvent: (e) => events.push(e) }).then((result) => ({
      result,
      events,
    }));
  };

  it('--reset each-step: the set-up runs before every step, and no insert collides', async () => {
    const { result, events } = await run('each-step', [1, 2, 4]);
    expect(result.complete).toBe(true);
    expect(result.config.reset).toBe('each-step');
    expect(
      events.filter((e) => e.type === 'setup-done').map((e) => (e as { clients: number }).clients),
    ).toEqual([1, 2, 4]);
    expect(events.some((e) => e.type === 'load-start')).toBe(false); // the set-up replaces the built-in loader
    for (const step of result.steps) {
      expect(step.ops.writes).toBeGreaterThan(0);
      expect(step.ops.errors).toBe(0);
      expect(step.errorSamples).toBeUndefined();
    }
  }, 30_000);

  it("--reset once (the default): the second step meets the first one's documents", async () => {
    const { result, events } = await run('once', [1, 2]);
    expect(events.filter((e) => e.type === 'setup-done')).toHaveLength(1);
    expect(result.steps[0].ops.errors).toBe(0);
    expect(result.steps[1].ops.errors).toBeGreaterThan(0);
    expect(result.steps[1].errorSamples?.[0].error).toMatch(/DuplicateKey|11000/);
  }, 30_000);
});
