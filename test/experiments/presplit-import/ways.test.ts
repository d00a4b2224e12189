/**
 * One source of truth: each way's setup is exactly what `mongo-bench scripts` plans for the same
 * options (its cluster steps after addShard), captured from the real scripts command.
 */
import { Command } from 'commander';
import { CliContext } from '../../../lib/cli/context';
import { registerScripts } from '../../../lib/cli/scripts';
import { UsageError } from '../../../lib/config/errors';
import { parseServerVersion, SetupPlan } from '../../../lib/topology';
import {
  resolvePresplitImportOptions,
  WAYS,
  waySetupSteps,
  wayScriptsArgs,
} from '../../../lib/experiments/presplit-import';

const quiet: CliContext = { out: () => undefined, err: () => undefined, exitCode: 0 };

/** Runs `mongo-bench scripts <args> --dry-run` and returns the plan it built. */
async function scriptsPlan(args: string[]): Promise<SetupPlan> {
  let captured: SetupPlan | undefined;
  const program = new Command('mongo-bench').exitOverride();
  registerScripts(program, quiet, {
    renderWorkload: (_name, plan) => {
      captured = plan;
      return [];
    },
  });
  await program.parseAsync([
    'node',
    'mongo-bench',
    'scripts',
    ...args,
    '--workload',
    'capture',
    '--dry-run',
  ]);
  if (!captured) throw new Error('the scripts command built no plan');
  return captured;
}

const settings = resolvePresplitImportOptions({
  uri: 'mongodb://127.0.0.1:27017',
  db: 'seeds',
  collection: 'import',
  chunkSize: 1024,
});

describe("the ways' setup plans", () => {
  it.each([
    ['7.0', 3],
    ['4.4', 5],
  ])(
    "equal the scripts plan's data-distribution steps for the same options (server %s, %i shards)",
    async (version, shards) => {
      const serverVersion = parseServerVersion(version);
      for (const way of WAYS) {
        const args = wayScriptsArgs(way, settings, shards, serverVersion);
        const plan = await scriptsPlan(args);
        const shardIds = plan.topology.shards.map((s) => s.id);
        const fromScripts = plan.steps.filter(
          (s) => s.phase === 'cluster' && !('addShard' in s.command),
        );
        const ours = waySetupSteps(way, settings, { shardIds, serverVersion });
        expect(ours.steps).toEqual(fromScripts);
      }
    },
  );

  it('sets each way up as the issue says', () => {
    const serverVersion = parseServerVersion('7.0');
    const commands = (way: (typeof WAYS)[number]) =>
      waySetupSteps(way, settings, { shardIds: ['sA', 'sB', 'sC'], serverVersion }).steps.map(
        (s) => s.command,
      );

    // (a) ranged key, no pre-split, the balancer left on.
    expect(commands('ranged')).toEqual([
      { enableSharding: 'seeds', primaryShard: 'sA' },
      { shardCollection: 'seeds.import', key: { g: 1 } },
    ]);
    // (b) one chunk per shard over [0, 64), moved to its shard, 1 GB chunks (the collection's own on 6.0+),
    // the balancer stopped before the first split (a running one would race the moves) and left off.
    const presplit = commands('presplit');
    expect(presplit).toContainEqual({
      configureCollectionBalancing: 'seeds.import',
      chunkSize: 1024,
    });
    expect(presplit.findIndex((c) => 'balancerStop' in c)).toBeLessThan(
      presplit.findIndex((c) => 'split' in c),
    );
    expect(presplit.filter((c) => 'balancerStop' in c || 'balancerStart' in c)).toEqual([
      { balancerStop: 1 },
    ]);
    expect(presplit.filter((c) => 'split' in c)).toEqual([
      { split: 'seeds.import', middle: { g: 21.3333333333333 } },
      { split: 'seeds.import', middle: { g: 42.6666666666667 } },
    ]);
    expect(presplit.filter((c) => 'moveChunk' in c).map((c) => c.to)).toEqual(['sA', 'sB', 'sC']);
    // (c) a hashed key (on _id by default).
    expect(commands('hashed')).toEqual([
      { enableSharding: 'seeds', primaryShard: 'sA' },
      { shardCollection: 'seeds.import', key: { _id: 'hashed' } },
    ]);
  });

  it('prints the scripts command line that reproduces a way', () => {
    expect(wayScriptsArgs('presplit', settings, 5, parseServerVersion('7.0')).join(' ')).toBe(
      '--topology sharded --shards 5 --db seeds --collection import --shard-key g --presplit 0:64 --chunk-size 1024 --stop-balancer --server-version 7.0',
    );
  });
});

describe('experiment options', () => {
  const bad = (input: Record<string, unknown>) => () =>
    resolvePresplitImportOptions({ uri: 'mongodb://h:1', ...input });
  it.each([
    [
      { ways: ['ranged', 'prespilt'] },
      /option --ways: unknown way "prespilt"; the ways are ranged, presplit, hashed/,
    ],
    [{ shardKey: '_id' }, /option --shard-key: must not be _id/],
    [{ hashedKey: 'k' }, /option --hashed-key: must be _id or the ranged key field "g"/],
    [{ range: '64:0' }, /option --range: MIN must be less than MAX/],
    [{ docs: 0 }, /option --docs: must be from 1/],
    [{ sampleIntervalMs: 10 }, /option --sample-interval-ms: must be from 100/],
    [{ uri: 'http://x' }, /option --uri: must be a mongodb:\/\//],
  ])('refuses %j naming the option', (input, message) => {
    expect(bad(input)).toThrow(UsageError);
    expect(bad(input)).toThrow(message);
  });

  it("fills in the seeds' defaults", () => {
    const s = resolvePresplitImportOptions({ uri: 'mongodb://h:1' });
    expect(s).toMatchObject({
      ways: ['ranged', 'presplit', 'hashed'],
      shardKey: 'g',
      range: { min: 0, max: 64 },
      chunkSizeMb: 1024,
      hashedKey: '_id',
      ns: 'mongo_bench.presplit_import',
    });
  });
});
