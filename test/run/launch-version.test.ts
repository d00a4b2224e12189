/**
 * A launched cluster starts with options of the planned version (the quiesce parameters exist from
 * 5.0 and a server refuses an unknown --setParameter at start-up), so `run` refuses a binary of
 * another version before it starts anything: exit 2, naming --server-version and the binary's version.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { runCli } from '../support/cli';

const FAKE_BIN = path.join(__dirname, '..', 'support', 'fake-bin');

describe('run --topology ... with a binary of another version than --server-version', () => {
  it('refuses before launching anything', async () => {
    const printed = spawnSync(path.join(FAKE_BIN, 'mongod'), ['--version'], { encoding: 'utf8' }).stdout;
    const binaryVersion = /db version v(\d+\.\d+\.\d+)/.exec(printed)![1];
    const other = binaryVersion.startsWith('5.0') ? '6.0' : '5.0';
    const r = await runCli(['run', '--topology', 'sharded', '--hashed', '--bin-dir', FAKE_BIN, '--server-version', other, '--clients', '1', '--seconds', '1', '--docs', '10', '--test-double', '--out', path.join(__dirname, 'never-written')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`option --server-version: the plan is for MongoDB ${other}, but ${FAKE_BIN}/mongod is ${binaryVersion}`);
  }, 30_000);
});
