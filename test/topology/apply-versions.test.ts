/**
 * applyPlan where server versions and elections differ: the enableSharding check before 6.0
 * (partitioned), isMaster where hello is unknown (4.4.0/4.4.1), and a new primary in drain mode
 * (primary, but not isWritablePrimary yet). Stub runners answer as the server would.
 */
import { applyPlan, CommandRunner, PlanProcess, planFromOptions } from '../../lib/topology';

type Doc = Record<string, unknown>;
type Sent = { address: string; command: Doc };

function runner(
  address: string,
  replies: Record<string, (cmd: Doc) => Doc>,
  sent: Sent[],
): CommandRunner {
  return {
    async command(_db, command) {
      sent.push({ address, command });
      const name = Object.keys(command)[0];
      const reply = replies[name]?.(command) ?? { ok: 1 };
      if (reply.ok === 0)
        throw Object.assign(new Error(String(reply.errmsg)), { code: reply.code });
      return reply;
    },
  };
}

const firstBatch = (docs: Doc[]) => ({ cursor: { id: 0, firstBatch: docs }, ok: 1 });
const names = (sent: Sent[]) => sent.map((s) => Object.keys(s.command)[0]);

describe('applyPlan across server versions', () => {
  const distribution = (version: string) => {
    const plan = planFromOptions({ topology: 'sharded', hashed: true, serverVersion: version });
    return { ...plan, steps: plan.steps.filter((s) => 'enableSharding' in s.command) };
  };

  it('before 6.0 a database listed with partitioned: false still gets enableSharding', async () => {
    for (const [version, doc, expectSent] of [
      ['5.0', { _id: 'mongo_bench', primary: 'shard0', partitioned: false }, true],
      ['4.4', { _id: 'mongo_bench', primary: 'shard0', partitioned: false }, true],
      ['5.0', { _id: 'mongo_bench', primary: 'shard0', partitioned: true }, false],
      // 6.0+ has no partitioned field: the database being there is enough.
      ['6.0', { _id: 'mongo_bench', primary: 'shard0' }, false],
    ] as const) {
      const sent: Sent[] = [];
      const connect = async (t: PlanProcess) =>
        runner(t.address, { find: () => firstBatch([doc]) }, sent);
      const [outcome] = await applyPlan(distribution(version), connect);
      expect([version, outcome.status]).toEqual([version, expectSent ? 'applied' : 'skipped']);
      expect(names(sent).includes('enableSharding')).toBe(expectSent);
    }
  });
});

describe('applyPlan waits for a writable PRIMARY', () => {
  const plan = planFromOptions({ topology: 'replset', replicas: 3, serverVersion: '4.4' });

  it('asks isMaster where hello is unknown (4.4.0 and 4.4.1)', async () => {
    const sent: Sent[] = [];
    const connect = async (t: PlanProcess) =>
      runner(
        t.address,
        {
          find: () => firstBatch([]),
          hello: () => ({
            ok: 0,
            code: 59,
            codeName: 'CommandNotFound',
            errmsg: "no such command: 'hello'",
          }),
          isMaster: () => ({ ismaster: true, setName: 'rs0', ok: 1 }),
        },
        sent,
      );
    const outcomes = await applyPlan(plan, connect, { pollIntervalMs: 1, primaryTimeoutMs: 1000 });
    expect(outcomes.map((o) => o.status)).toEqual(['applied']);
    expect(names(sent)).toEqual(['find', 'replSetInitiate', 'hello', 'isMaster']);
  });

  it('a member that names a PRIMARY still draining is not enough: it polls the PRIMARY until isWritablePrimary', async () => {
    const sent: Sent[] = [];
    let primaryPolls = 0;
    const connect = async (t: PlanProcess) =>
      t.address === '127.0.0.1:27018'
        ? runner(
            t.address,
            {
              // The new primary: primary already, writable after its drain (third poll).
              hello: () =>
                ++primaryPolls < 3
                  ? { isWritablePrimary: false, secondary: false, primary: t.address, ok: 1 }
                  : { isWritablePrimary: true, primary: t.address, ok: 1 },
            },
            sent,
          )
        : runner(
            t.address,
            {
              find: () => firstBatch([]),
              hello: () => ({
                isWritablePrimary: false,
                secondary: true,
                primary: '127.0.0.1:27018',
                ok: 1,
              }),
            },
            sent,
          );
    await applyPlan(plan, connect, { pollIntervalMs: 1, primaryTimeoutMs: 5000 });
    expect(primaryPolls).toBe(3);
    expect(sent.filter((s) => s.address === '127.0.0.1:27018').map((s) => s.command)).toEqual([
      { hello: 1 },
      { hello: 1 },
      { hello: 1 },
    ]);
  });

  it('gives up after the timeout when the PRIMARY never leaves drain mode', async () => {
    const connect = async (t: PlanProcess) =>
      runner(
        t.address,
        {
          find: () => firstBatch([]),
          hello: () => ({ isWritablePrimary: false, primary: '127.0.0.1:27017', ok: 1 }),
        },
        [],
      );
    await expect(
      applyPlan(plan, connect, { pollIntervalMs: 5, primaryTimeoutMs: 50 }),
    ).rejects.toThrow(/no PRIMARY in replica set rs0 after 0.05 s/);
  });
});
