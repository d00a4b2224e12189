/**
 * At most 7 members of a replica set vote (ReplSetConfig::validate, src/mongo/db/repl/repl_set_config.cpp,
 * kMaxVotingMembers): the plan gives the members past the limit votes: 0, priority: 0, says so in
 * its notes, and its replSetInitiate document passes the stand-in's model of validate (which refuses
 * the all-voting config the plan used to make).
 */
import {
  buildSetupPlan,
  buildTopology,
  resolveTopologyOptions,
  TopologyInput,
} from '../../lib/topology';
import { usageMessage } from '../support/cli';
import { AccessControl } from '../support/fake-bin/auth';
import { storeOptions } from '../support/fake-bin/options';
import { ReplicaSetNode } from '../support/fake-bin/replication';
import { parseServerVersion as parseFakeVersion } from '../support/fake-bin/version';

const planOf = (input: TopologyInput) =>
  buildSetupPlan(buildTopology(resolveTopologyOptions(input).options));

/** replSetInitiate on an in-process model of the set's first member: validation runs before the quorum check. */
async function initiateOnModel(config: {
  _id: string;
  configsvr?: boolean;
  members: { host: string }[];
}): Promise<Record<string, unknown>> {
  const [host, port] = config.members[0].host.split(':');
  const argv = [
    '--port',
    port,
    '--bind_ip',
    host,
    '--replSet',
    config._id,
    ...(config.configsvr ? ['--configsvr'] : []),
  ];
  const options = storeOptions('mongod', parseFakeVersion('7.0.14'), argv);
  const node = new ReplicaSetNode(options, () => undefined, new AccessControl(false));
  return node.initiate({ replSetInitiate: config });
}

describe('replica sets of more than 7 members', () => {
  it('--replicas 9: members 7 and 8 vote 0 with priority 0, and the plan says why', () => {
    const plan = planOf({ topology: 'replset', replicas: 9 });
    const members = plan.topology.replicaSets[0].config.members;
    expect(
      members.slice(0, 7).every((m) => m.votes === undefined && m.priority === undefined),
    ).toBe(true);
    expect(members.slice(7)).toEqual([
      expect.objectContaining({ _id: 7, votes: 0, priority: 0 }),
      expect.objectContaining({ _id: 8, votes: 0, priority: 0 }),
    ]);
    expect(plan.notes.join('\n')).toMatch(
      /at most 7 voting members .* 127\.0\.0\.1:27024, 127\.0\.0\.1:27025 are planned with votes: 0, priority: 0/,
    );
  });

  it('--replicas 7 --arbiter: the arbiter keeps its vote, the 7th data member gives its own up', () => {
    const members = planOf({ topology: 'replset', replicas: 7, arbiter: true }).topology
      .replicaSets[0].config.members;
    expect(members.filter((m) => m.votes !== 0)).toHaveLength(7);
    expect(members[6]).toMatchObject({ votes: 0, priority: 0 });
    expect(members[7]).toEqual({ _id: 7, host: '127.0.0.1:27024', arbiterOnly: true });
  });

  it('--config-servers 8 and --replicas 8 in a sharded cluster: every set has 7 voters', () => {
    const plan = planOf({
      topology: 'sharded',
      configServers: 8,
      replicas: 8,
      shards: 1,
      hashed: true,
    });
    for (const rs of plan.topology.replicaSets)
      expect(rs.config.members.filter((m) => m.votes !== 0)).toHaveLength(7);
  });

  it('the planned configs pass the model of ReplSetConfig::validate; all-voting ones do not', async () => {
    for (const input of [
      { topology: 'replset', replicas: 9 },
      { topology: 'replset', replicas: 7, arbiter: true },
      { topology: 'sharded', configServers: 8, replicas: 1, shards: 1, hashed: true },
    ] as TopologyInput[]) {
      const config = planOf(input).topology.replicaSets[0].config;
      // 74: past validation, the quorum check finds the other members not running (nothing listens here).
      expect(await initiateOnModel(config)).toMatchObject({ ok: 0, code: 74 });
      const allVoting = {
        ...config,
        members: config.members.map(({ votes: _votes, priority: _priority, ...m }) => m),
      };
      expect(await initiateOnModel(allVoting)).toMatchObject({
        ok: 0,
        code: 93,
        errmsg: expect.stringMatching(/voting members, but must be at least 1 and no more than 7/),
      });
    }
  }, 30_000);

  it('refuses a priority for a member that cannot vote, and more than 50 members, naming the option', () => {
    expect(
      usageMessage(() =>
        planOf({ topology: 'replset', replicas: 8, priorities: [1, 1, 1, 1, 1, 1, 1, 1] }),
      ),
    ).toMatch(
      /^option --priorities: member 7 of rs0 is past the 7 voting members MongoDB allows, so it votes 0 and its priority must be 0/,
    );
    expect(
      usageMessage(() =>
        resolveTopologyOptions({ topology: 'replset', replicas: 50, arbiter: true }),
      ),
    ).toMatch(/^option --replicas: .* at most 50 members/);
  });

  it('counts only the voters in the even-number warning', () => {
    // 8 members, 7 of them voting: no split-vote warning.
    expect(
      resolveTopologyOptions({ topology: 'replset', replicas: 8 }).warnings.join('\n'),
    ).not.toMatch(/even number/);
  });
});
