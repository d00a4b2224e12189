/** One password-checking recorder per target process of a plan, on the plan's own ports (see auth-scripts.test.ts). */
import { RecordingServer, startRecordingServer } from '../support/recording-server';
import { planFromOptions, SetupPlan, TopologyInput } from '../../lib/topology';
import { emptyClusterState, fakeClusterHandlers, FakeClusterState } from './fake-cluster';
import { emptyAuthState, fakeAuthHandlers, FakeAuthState, FakeUser } from './fake-auth';

export interface Member {
  process: string;
  server: RecordingServer;
  cluster: FakeClusterState;
  auth: FakeAuthState;
}

/** replSetGetStatus as a member answers it: NotYetInitialized until replSetInitiate. */
export function withReplSetStatus(cluster: FakeClusterState) {
  return {
    replSetGetStatus: () => {
      const [name] = [...cluster.initiatedSets.keys()];
      return name === undefined
        ? {
            ok: 0,
            code: 94,
            codeName: 'NotYetInitialized',
            errmsg: 'no replset config has been received',
          }
        : { set: name, myState: 1, ok: 1 };
    },
  };
}

/** A recorder on each target's port; the config servers and the mongos share their users. */
export async function startMembers(
  input: TopologyInput,
): Promise<{ plan: SetupPlan; members: Map<string, Member> }> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const basePort = 20_000 + Math.floor(Math.random() * 40_000);
    const plan = planFromOptions({ ...input, basePort });
    const members = new Map<string, Member>();
    const clusterUsers = new Map<string, FakeUser>();
    try {
      for (const name of Object.keys(plan.targets)) {
        const target = plan.targets[name];
        const cluster = emptyClusterState();
        const shared = target.kind === 'mongos' || target.replSet === 'cfg';
        const auth = emptyAuthState(shared ? clusterUsers : new Map());
        const server = await startRecordingServer({
          port: Number(target.address.split(':')[1]),
          handlers: fakeAuthHandlers(auth, {
            ...fakeClusterHandlers(cluster),
            ...withReplSetStatus(cluster),
          }),
        });
        members.set(name, { process: name, server, cluster, auth });
      }
      return { plan, members };
    } catch {
      await Promise.all([...members.values()].map((m) => m.server.stop()));
    }
  }
  throw new Error('no free block of ports for the recorders');
}
