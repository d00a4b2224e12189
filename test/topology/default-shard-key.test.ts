/**
 * The monotonic _id warning (issue 25, point 6) says when _id is the default nobody chose, and
 * what to pass instead; a user who chose `--shard-key _id` is told about that option.
 */
import { resolveTopologyOptions } from '../../lib/topology/options';

describe('the ranged _id shard key warning', () => {
  it('says _id is the default when no shard key was given, and what to pass instead', () => {
    const { warnings } = resolveTopologyOptions({ topology: 'sharded' });
    const warning = warnings.find((w) => w.includes('monotonically'));
    expect(warning).toMatch(/^the default shard key _id \(ranged; no --shard-key given\): /);
    expect(warning).toContain(
      'pass --hashed to hash _id, or --shard-key with a numeric field and --presplit min:max',
    );
    expect(warning).not.toContain('option --shard-key');
  });

  it('names the option when _id was chosen', () => {
    const { warnings } = resolveTopologyOptions({ topology: 'sharded', shardKey: '_id' });
    expect(warnings.find((w) => w.includes('monotonically'))).toMatch(
      /^option --shard-key _id \(ranged\): /,
    );
  });

  it('speaks config-file keys in a config file', () => {
    const { warnings } = resolveTopologyOptions({ topology: 'sharded' }, 'config');
    expect(warnings.find((w) => w.includes('monotonically'))).toMatch(
      /^the default shard key _id \(ranged; no shardKey given\): .*pass hashed: true/,
    );
  });

  it('is not given for a hashed or pre-split key', () => {
    expect(
      resolveTopologyOptions({ topology: 'sharded', hashed: true }).warnings.join('\n'),
    ).not.toContain('monotonically');
    expect(
      resolveTopologyOptions({
        topology: 'sharded',
        shardKey: 'g',
        presplit: '0:64',
      }).warnings.join('\n'),
    ).not.toContain('monotonically');
  });
});
