/**
 * Defect 4 of issue 12: sharding on a field the loaded documents do not have spreads nothing (a
 * missing shard key counts as null, so every document lands in one chunk). `run` refuses it with
 * exit 2 naming --shard-key when it loads the documents itself, and warns when it does not (--no-load).
 */
import { join } from 'node:path';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import { runCli, usageMessage } from '../support/cli';

const FAKE_BIN = join(__dirname, '..', 'support', 'fake-bin');
const NO_ENV = {};

describe('run: the shard key must be a field of the documents it loads', () => {
  it('refuses --uri --setup --shard-key g (exit 2, naming the option and the fields)', async () => {
    const message = usageMessage(() =>
      resolveRunPlan(
        { uri: 'mongodb://h', setup: true, shardKey: 'g', presplit: '0:64' },
        { env: NO_ENV },
      ),
    );
    expect(message).toMatch(
      /^option --shard-key: the documents run loads have the fields _id, k, group, counter, pad, not "g"/,
    );
    expect(message).toContain('every document would land in one chunk');
    const r = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1',
      '--setup',
      '--shard-key',
      'g',
      '--presplit',
      '0:64',
      '--dry-run',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --shard-key');
  });

  it('refuses it for a launched sharded cluster too', () => {
    expect(
      usageMessage(() =>
        resolveRunPlan(
          { topology: 'sharded', binDir: FAKE_BIN, shardKey: 'g', presplit: '0:64' },
          { env: NO_ENV },
        ),
      ),
    ).toMatch(/^option --shard-key:/);
  });

  it('accepts the loaded fields, hashed or ranged', () => {
    for (const shardKey of ['_id', 'k', 'group']) {
      const plan = resolveRunPlan(
        { uri: 'mongodb://h', setup: true, shardKey, hashed: true },
        { env: NO_ENV },
      );
      expect(plan.warnings.join('\n')).not.toContain('--shard-key');
    }
  });

  it('only warns with --no-load: the documents already there may carry the key', () => {
    const plan = resolveRunPlan(
      { uri: 'mongodb://h', setup: true, shardKey: 'g', presplit: '0:64', load: false },
      { env: NO_ENV },
    );
    expect(plan.warnings.join('\n')).toMatch(
      /option --shard-key g: the documents run loads have the fields .* not "g"/,
    );
  });
});
