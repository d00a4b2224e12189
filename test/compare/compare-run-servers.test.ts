/**
 * `compare --run` and the servers it meets: both are identified at connect, so a test double against
 * MongoDB is refused there, before the first trial (exit 2, nothing measured or written); two servers
 * that are both not MongoDB (the CRUD test double and the null server) are compared, each named. The
 * order of the trials: an unmeasured first round of both sides takes the server's cold start, then the
 * rounds go in pairs of reversed order (AB then BA, or BA then AB), an odd last round drawn alone.
 * None of these numbers are MongoDB's.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NullServer, NULL_SERVER_NS, startNullServer } from '../../lib/calibrate/null-server';
import { compareRuns, readBenchmarkConfig } from '../../lib/api';
import { Comparison } from '../../lib/compare';
import { UsageError } from '../../lib/config/errors';
import { serverLabel } from '../../lib/report/describe';
import { ResultDocument } from '../../lib/result';
import { drawDesign } from '../../lib/run/interleave';
import type { BenchmarkEvent } from '../../lib/run/events';
import { runCli } from '../support/cli';
import { startRecordingServer, RecordingServer } from '../support/recording-server';
import { crudKind, crudUri, describeNeeding, uniqueDbName } from '../support/servers';

/** A run configuration as compare --run reads it: trials of 300 ops (not seconds: quick), no warm-up, no load. */
function config(dir: string, name: string, values: Record<string, unknown>): string {
  const file = join(dir, name);
  const all = {
    workload: '6to1',
    clients: [1],
    opCount: 300,
    warmup: 0,
    trials: 2,
    load: false,
    serverStats: false,
    ns: NULL_SERVER_NS,
    workers: 1,
    ...values,
  };
  writeFileSync(
    file,
    Object.entries(all)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join('\n'),
  );
  return file;
}

const letters = (perm: number[]) => perm.map((i) => 'AB'[i]).join('');

describe('compare --run: the order of the trials', () => {
  it('an unmeasured first round, then rounds in pairs of reversed order: neither side takes every first slot', () => {
    const firstOfFirstRound = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      for (const rounds of [2, 5, 6]) {
        const design = drawDesign(2, [1, 4], rounds, seed);
        expect(design.unmeasured.clients).toBe(1);
        expect(design.unmeasured.order.slice().sort()).toEqual([0, 1]);
        for (const { rounds: order } of design.order) {
          expect(order).toHaveLength(rounds);
          const drawn = order.map(letters);
          firstOfFirstRound.add(drawn[0][0]);
          // Each pair holds both orders; an odd last round stands alone.
          for (let r = 0; r + 1 < rounds; r += 2)
            expect([drawn[r], drawn[r + 1]].sort()).toEqual(['AB', 'BA']);
          // So each side goes first in half the paired rounds.
          const paired = drawn.slice(0, rounds - (rounds % 2));
          expect(paired.filter((o) => o[0] === 'A')).toHaveLength(paired.length / 2);
        }
      }
    }
    // Which side opens is drawn: over the seeds, both do.
    expect([...firstOfFirstRound].sort()).toEqual(['A', 'B']);
  });
});

describe('compare --run: a test double against MongoDB is refused at connect', () => {
  let dir: string;
  let nullServer: NullServer;
  let mongodLike: RecordingServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-compare-servers-'));
    nullServer = await startNullServer();
    // A stand-in answering buildInfo as mongod does (a commit as gitVersion): identified as MongoDB.
    mongodLike = await startRecordingServer({
      handlers: {
        buildInfo: () => ({
          version: '7.0.14',
          versionArray: [7, 0, 14, 0],
          gitVersion: 'ce59cfc6a3c5e5c067dca0d30697edd68d4f5188',
          modules: [],
          ok: 1,
        }),
      },
    });
  });
  afterAll(async () => {
    await mongodLike?.stop();
    await nullServer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('before the first trial: no data prepared, no trial run, exit 2 naming both, nothing written', async () => {
    const a = config(dir, 'double.yaml', { uri: nullServer.uri, testDouble: true });
    const b = config(dir, 'mongod.yaml', { uri: mongodLike.uri });
    const events: { side: string; event: BenchmarkEvent }[] = [];
    const refused = compareRuns(readBenchmarkConfig(a), readBenchmarkConfig(b), {
      onEvent: (side, event) => events.push({ side, event }),
    });
    await expect(refused).rejects.toThrow(UsageError);
    // Both connected (that is where the servers were identified), and nothing ran after.
    expect(events.filter((e) => e.event.type === 'connected').map((e) => e.side)).toEqual(
      expect.arrayContaining(['A', 'B']),
    );
    expect(events.map((e) => e.event.type).filter((t) => t !== 'connected')).toEqual([]);
    await expect(refused).rejects.toThrow(
      /cannot compare A with B: A connected to a test double .* and B connected to MongoDB Community 7\.0\.14;/,
    );

    const out = join(dir, 'refused');
    const cli = await runCli(['compare', '--run', a, b, '--out', out]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('cannot compare A with B');
    for (const file of ['compare.json', 'A/results.json', 'B/results.json'])
      expect(existsSync(join(out, file))).toBe(false);
  });
});

describeNeeding('crud', 'compare --run: two servers that are both not MongoDB', () => {
  let dir: string;
  let nullServer: NullServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-compare-servers-'));
    nullServer = await startNullServer();
  });
  afterAll(async () => {
    await nullServer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the CRUD test double against the null server: compared, each named; the unmeasured round first, then a reversed pair', async () => {
    const out = join(dir, 'crud-null');
    const started: { side: string; type: string; trial?: number }[] = [];
    const { comparison } = await compareRuns(
      readBenchmarkConfig(
        config(dir, 'crud.yaml', { uri: crudUri(), ns: `${uniqueDbName('cmp')}.c` }),
      ),
      readBenchmarkConfig(config(dir, 'null.yaml', { uri: nullServer.uri })),
      {
        out,
        seed: 3,
        onEvent: (side, e) => {
          if (e.type === 'unmeasured-trial' || e.type === 'step-start')
            started.push({
              side,
              type: e.type,
              ...(e.type === 'step-start' ? { trial: e.trial } : {}),
            });
        },
      },
    );
    const written = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as Comparison;
    const [a, b] = ['A', 'B'].map(
      (side) => JSON.parse(readFileSync(join(out, side, 'results.json'), 'utf8')) as ResultDocument,
    );
    // Each named as its own summary names it.
    expect([written.a.server, written.b.server]).toEqual([serverLabel(a), serverLabel(b)]);
    expect(written.b.server).toMatch(/^unidentified server/);
    if (crudKind() === 'mongo-java-server') {
      expect(written.a.server).toMatch(/^TEST DOUBLE server mongo-java-server/);
      expect(written.notes.join('\n')).toContain('neither is MongoDB');
    }
    expect(written.steps[0].samples).toEqual({ a: 2, b: 2 });
    // The order: both unmeasured trials first (in the drawn order), then the measured pair, reversed.
    const design = drawDesign(2, [1], 2, 3);
    expect(comparison.design).toMatchObject({
      unmeasured: { clients: 1, order: letters(design.unmeasured.order) },
      order: [{ clients: 1, rounds: design.order[0].rounds.map(letters) }],
    });
    const [first, second] = comparison.design!.order[0].rounds;
    expect(second).toBe([...first].reverse().join(''));
    expect(started).toEqual([
      ...[...comparison.design!.unmeasured!.order].map((side) => ({
        side,
        type: 'unmeasured-trial',
      })),
      ...[...first].map((side) => ({ side, type: 'step-start', trial: 1 })),
      ...[...second].map((side) => ({ side, type: 'step-start', trial: 2 })),
    ]);
  });
});
