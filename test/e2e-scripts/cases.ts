/**
 * The generated setup scripts, run end to end as a user runs them: `mongo-bench scripts` into an
 * empty folder, then each command of the README's "Run, in this order" (bash 00-start.sh with
 * MONGOD/MONGOS = the stand-ins, mongosh --nodb *.js in real mongosh, ...), then the README's stop
 * command; no process may be left. The stand-ins model the real servers (docs/testing.md), with the
 * version from MONGO_BENCH_FAKE_VERSION.
 *
 * The cases: every version for the standalone and the 2x1 sharded cluster (sharding metadata differs
 * most by version): the plain 2x1 at 5.0 and 8.0, the pre-split 2x1 at 4.4 and 6.0 (balancer race;
 * its scripts are the plain 2x1's steps, with key g instead of _id, then the splits and moves, so it
 * covers the plain plan at those versions), and the heavy 5x3 cluster (16 mongods + mongos) at 7.0;
 * replset-3 at 4.4 and 8.0. MONGO_BENCH_E2E_ALL_VERSIONS=1 runs every case at
 * every version. replset-3-auth logs in with SCRAM-SHA-256 against the stand-ins' access control
 * (fake-bin/auth.ts).
 *
 * The cases are spread over several test files (E2E_FILES), each a few cases long, so that jest's
 * workers run them side by side instead of one worker running all of them in a row.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeNeeding } from '../support/servers';
import { FAKE_BIN, freePortRange, killLeftovers, leftovers } from '../support/processes';
import { generateScripts, readmeCommands, runReadmeCommand, type StepOutcome } from './support';

export interface Case {
  name: string;
  args: string[];
  versions: string[];
  processes: number;
  /** Per README command. */
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

export const ALL = ['4.4.29', '5.0.31', '6.0.20', '7.0.14', '8.0.4'];

export const CASES: Case[] = [
  {
    name: 'standalone',
    args: ['--topology', 'standalone'],
    versions: ALL,
    processes: 1,
    timeoutMs: 30_000,
  },
  {
    name: 'replset-3',
    args: ['--topology', 'replset', '--replicas', '3'],
    versions: ['4.4.29', '8.0.4'],
    processes: 3,
    timeoutMs: 40_000,
  },
  {
    name: 'replset-3-auth',
    args: ['--topology', 'replset', '--replicas', '3', '--auth'],
    versions: ['7.0.14'],
    processes: 3,
    timeoutMs: 40_000,
    env: { MONGO_BENCH_PASSWORD: 'e2e-secret-pw' },
  },
  // 4.4 and 6.0 are covered by sharded-2x1-presplit (the same steps and more), 7.0 by the 5x3 case.
  {
    name: 'sharded-2x1',
    args: ['--topology', 'sharded', '--shards', '2', '--replicas', '1'],
    versions: ['5.0.31', '8.0.4'],
    processes: 4,
    timeoutMs: 60_000,
  },
  {
    name: 'sharded-2x1-presplit',
    args: [
      '--topology',
      'sharded',
      '--shards',
      '2',
      '--replicas',
      '1',
      '--shard-key',
      'g',
      '--presplit',
      '0:64',
    ],
    versions: ['4.4.29', '6.0.20'],
    processes: 4,
    timeoutMs: 60_000,
  },
  {
    name: 'sharded-5x3',
    args: ['--topology', 'sharded', '--shards', '5', '--replicas', '3', '--hashed'],
    versions: ['7.0.14'],
    processes: 17,
    timeoutMs: 120_000,
  },
];

/** Which cases a test file runs: case names, optionally only the versions below / from a series. */
export interface Selection {
  name: string;
  /** Only versions whose major.minor is below this one (e.g. '6.0'). */
  below?: string;
  /** Only versions whose major.minor is this one or later. */
  from?: string;
}

/** Test file (basename) -> the cases it runs. Together they run every case at every version once. */
export const E2E_FILES: Record<string, Selection[]> = {
  'scripts-e2e-standalone-replset.test.ts': [
    { name: 'standalone' },
    { name: 'replset-3' },
    { name: 'replset-3-auth' },
  ],
  'scripts-e2e-sharded-before-6.test.ts': [{ name: 'sharded-2x1', below: '6.0' }],
  'scripts-e2e-sharded-from-6.test.ts': [{ name: 'sharded-2x1', from: '6.0' }],
  'scripts-e2e-presplit.test.ts': [{ name: 'sharded-2x1-presplit' }],
  'scripts-e2e-5x3.test.ts': [{ name: 'sharded-5x3' }],
};

const series = (version: string): number => {
  const [major, minor] = version.split('.').map(Number);
  return major * 100 + minor;
};

export type VersionedCase = Case & { version: string };

/** The cases (one per version) a file runs; every version when allVersions. */
export function casesFor(selections: Selection[], allVersions: boolean): VersionedCase[] {
  return selections.flatMap((sel) => {
    const c = CASES.find((x) => x.name === sel.name);
    if (!c) throw new Error(`e2e: no case named ${sel.name}`);
    return (allVersions ? ALL : c.versions)
      .filter(
        (v) =>
          (sel.below === undefined || series(v) < series(sel.below)) &&
          (sel.from === undefined || series(v) >= series(sel.from)),
      )
      .map((version) => ({ ...c, version }));
  });
}

function describeSteps(steps: StepOutcome[]): string {
  return steps
    .map(
      (s) =>
        `$ ${s.command}  -> exit ${s.code}${s.timedOut ? ' (TIMED OUT, killed)' : ''} in ${s.ms} ms\n${s.output.trim().split('\n').slice(-25).join('\n')}`,
    )
    .join('\n\n');
}

/** The e2e tests of one test file (its basename keys E2E_FILES). */
export function describeScriptsE2E(testFile: string): void {
  const selections = E2E_FILES[path.basename(testFile)];
  if (!selections)
    throw new Error(
      `e2e: ${path.basename(testFile)} is not listed in E2E_FILES (test/e2e-scripts/cases.ts)`,
    );
  const table = casesFor(selections, process.env.MONGO_BENCH_E2E_ALL_VERSIONS === '1');

  describeNeeding('mongosh', 'generated scripts run end to end against the stand-ins', () => {
    jest.setTimeout(300_000);

    test.each(table)(
      '$name at $version: README commands in order, then stop, nothing left',
      async (c) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mongo-bench-e2e-${c.name}-`));
        const steps: StepOutcome[] = [];
        try {
          const basePort = await freePortRange(c.processes);
          const series = c.version.split('.').slice(0, 2).join('.');
          const out = path.join(dir, 'scripts');
          const generated = await generateScripts([
            ...c.args,
            '--server-version',
            series,
            '--base-port',
            String(basePort),
            '--out',
            out,
          ]);
          // Warnings (e.g. about the shard key) may go to stderr; the command must succeed.
          expect({ ok: generated.ok, stderr: generated.ok ? '' : generated.stderr }).toEqual({
            ok: true,
            stderr: '',
          });
          const { run, stop } = readmeCommands(
            fs.readFileSync(path.join(out, 'README.md'), 'utf8'),
          );
          const env: NodeJS.ProcessEnv = {
            MONGOD: path.join(FAKE_BIN, 'mongod'),
            MONGOS: path.join(FAKE_BIN, 'mongos'),
            MONGO_BENCH_FAKE_VERSION: c.version,
            // Small caches: the stand-ins store nothing, and the real option must still parse.
            MONGO_BENCH_CACHE_GB: '0.25',
            ...c.env,
          };
          for (const command of run) {
            const outcome = await runReadmeCommand(command, out, env, c.timeoutMs);
            steps.push(outcome);
            if (outcome.code !== 0) break;
          }
          const failed = steps.find((s) => s.code !== 0);
          // Stop as the README says, whatever happened (a half-started deployment must stop too).
          const stopped = await runReadmeCommand(stop, out, env, 60_000);
          steps.push(stopped);
          expect(
            failed ? `README step failed:\n${describeSteps(steps)}` : 'all README steps exited 0',
          ).toBe('all README steps exited 0');
          expect(stopped.code === 0 ? 'stopped' : describeSteps([stopped])).toBe('stopped');
          expect(leftovers(dir)).toEqual([]);
        } finally {
          killLeftovers(dir);
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}
