/**
 * A launched cluster starts with options of the planned version (the quiesce parameters exist from
 * 5.0 and a server refuses an unknown --setParameter at start-up), so `run` refuses a binary of
 * another version before it starts anything: exit 2, naming --server-version and the binary's version.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli';

const FAKE_BIN = path.join(__dirname, '..', 'support', 'fake-bin');

describe('run --topology ... with a binary of another version than --server-version', () => {
  it('refuses before launching anything', async () => {
    const printed = spawnSync(path.join(FAKE_BIN, 'mongod'), ['--version'], {
      encoding: 'utf8',
    }).stdout;
    const binaryVersion = /db version v(\d+\.\d+\.\d+)/.exec(printed)![1];
    const other = binaryVersion.startsWith('5.0') ? '6.0' : '5.0';
    const r = await runCli([
      'run',
      '--topology',
      'sharded',
      '--hashed',
      '--bin-dir',
      FAKE_BIN,
      '--server-version',
      other,
      '--clients',
      '1',
      '--seconds',
      '1',
      '--docs',
      '10',
      '--test-double',
      '--out',
      path.join(__dirname, 'never-written'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `option --server-version: the plan is for MongoDB ${other}, but ${FAKE_BIN}/mongod is ${binaryVersion}`,
    );
  }, 30_000);
});

describe('run --topology sharded with a mongos of another version than mongod', () => {
  it('refuses before launching anything, naming the mongos and its version', async () => {
    // A 7.0 mongod beside a 4.4 mongos: before this check only mongod's version was read, and the
    // 4.4 mongos then refused mongosShutdownTimeoutMillisForSignaledShutdown at start-up.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mongo-bench-mixed-bin-'));
    try {
      for (const [kind, version] of [
        ['mongod', '7.0.14'],
        ['mongos', '4.4.29'],
      ]) {
        writeFileSync(
          path.join(dir, kind),
          `#!/bin/sh\nMONGO_BENCH_FAKE_VERSION=${version} exec "${path.join(FAKE_BIN, kind)}" "$@"\n`,
        );
        chmodSync(path.join(dir, kind), 0o755);
      }
      const r = await runCli([
        'run',
        '--topology',
        'sharded',
        '--hashed',
        '--bin-dir',
        dir,
        '--server-version',
        '7.0',
        '--clients',
        '1',
        '--seconds',
        '1',
        '--docs',
        '10',
        '--test-double',
        '--out',
        path.join(dir, 'never-written'),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `option --server-version: the plan is for MongoDB 7.0, but ${dir}/mongos is 4.4.29`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
