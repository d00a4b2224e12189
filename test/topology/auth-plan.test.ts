/** Access control in the options, the model, the plan and applyPlan (with hand-written runners). */
import { UsageError } from '../../lib/config/errors';
import {
  applyPlan,
  buildTopology,
  CommandRunner,
  CREDENTIAL_PLACEHOLDERS,
  planFromOptions,
  PlanProcess,
  renderMongosh,
  resolveTopologyOptions,
  scriptsCommandLine,
  withCredentials,
} from '../../lib/topology';

type Doc = Record<string, unknown>;

describe('topology options and model with --auth', () => {
  it('replica sets and clusters: every process gets --keyFile <data-dir>/keyfile, mongos and arbiter included', () => {
    for (const input of [
      { topology: 'replset', replicas: 2, arbiter: true, auth: true },
      {
        topology: 'sharded',
        shards: 2,
        replicas: 1,
        mongos: 2,
        hashed: true,
        auth: true,
        dataDir: 'd',
      },
    ]) {
      const t = buildTopology(resolveTopologyOptions(input).options);
      const keyFile = `${input.dataDir ?? 'mongo-bench-data'}/keyfile`;
      expect(t.auth).toEqual({ user: 'admin', keyFile });
      for (const p of t.processes) expect(p.args[p.args.indexOf('--keyFile') + 1]).toBe(keyFile);
      expect(t.name).toMatch(/-auth$/);
      expect(t.uri).not.toContain('@');
    }
  });

  it('a standalone runs with --auth (no members, no keyfile)', () => {
    const t = buildTopology(
      resolveTopologyOptions({ topology: 'standalone', auth: true, authUser: 'root2' }).options,
    );
    expect(t.auth).toEqual({ user: 'root2' });
    expect(t.processes[0].args).toContain('--auth');
    expect(t.processes[0].args).not.toContain('--keyFile');
  });

  it('without --auth nothing changes', () => {
    const t = buildTopology(resolveTopologyOptions({ topology: 'replset' }).options);
    expect(t.auth).toBeUndefined();
    expect(t.processes.some((p) => p.args.includes('--keyFile') || p.args.includes('--auth'))).toBe(
      false,
    );
    expect(t.name).toBe('replset-3');
  });

  it('errors and warnings name the option', () => {
    expect(() => resolveTopologyOptions({ topology: 'replset', authUser: 'x' })).toThrow(
      new UsageError('option --auth-user: only means something with --auth'),
    );
    expect(() =>
      resolveTopologyOptions({ topology: 'replset', auth: true, authUser: 'a:b' }),
    ).toThrow(/^option --auth-user: must be a user name/);
    expect(() => resolveTopologyOptions({ authUser: 'x' }, 'config')).toThrow(
      'config authUser: only means something with auth: true',
    );
    const { warnings } = resolveTopologyOptions({
      topology: 'replset',
      auth: true,
      host: '10.0.0.5',
      bindIp: '127.0.0.1,10.0.0.5',
    });
    expect(warnings.join('\n')).toContain(
      'option --auth: the first admin user is created through the localhost exception',
    );
  });

  it('the generating command line reproduces --auth and --auth-user', () => {
    const { options } = resolveTopologyOptions({
      topology: 'replset',
      auth: true,
      authUser: 'ops',
    });
    expect(scriptsCommandLine(options)).toBe(
      'mongo-bench scripts --topology replset --replicas 3 --auth --auth-user ops',
    );
  });
});

describe('setup plan with --auth', () => {
  it('creates the first user on each replica set right after its initiation, on the PRIMARY, with stand-ins for the credentials', () => {
    const plan = planFromOptions({
      topology: 'sharded',
      shards: 2,
      replicas: 3,
      hashed: true,
      auth: true,
    });
    const names = plan.steps.map((s) => Object.keys(s.command)[0]);
    expect(names.slice(0, 6)).toEqual([
      'replSetInitiate',
      'createUser',
      'replSetInitiate',
      'createUser',
      'replSetInitiate',
      'createUser',
    ]);
    const users = plan.steps.filter((s) => s.command.createUser !== undefined);
    expect(users.map((s) => s.target)).toEqual(['cfg-0', 'shard0-0', 'shard1-0']);
    for (const s of users) {
      expect(s.command).toEqual({
        createUser: CREDENTIAL_PLACEHOLDERS.user,
        pwd: CREDENTIAL_PLACEHOLDERS.password,
        roles: [{ role: 'root', db: 'admin' }],
      });
      expect(s).toMatchObject({
        phase: 'replsets',
        onPrimary: true,
        check: { kind: 'userAuthenticated' },
      });
    }
    expect(renderMongosh(plan).map((s) => s.file)).toEqual(['10-replsets.js', '20-cluster.js']);
  });

  it('a standalone gets one step, in 10-users.js', () => {
    const plan = planFromOptions({ topology: 'standalone', auth: true });
    expect(plan.steps.map((s) => [s.target, Object.keys(s.command)[0]])).toEqual([
      ['mongod', 'createUser'],
    ]);
    expect(renderMongosh(plan).map((s) => s.file)).toEqual(['10-users.js']);
  });

  it('withCredentials fills the stand-ins only', () => {
    const cmd = {
      createUser: CREDENTIAL_PLACEHOLDERS.user,
      pwd: CREDENTIAL_PLACEHOLDERS.password,
      roles: [{ role: 'root', db: 'admin' }],
      note: ['<MONGO_BENCH_PASSWORD>'],
    };
    expect(withCredentials(cmd, { username: 'u', password: 'p' })).toEqual({
      createUser: 'u',
      pwd: 'p',
      roles: [{ role: 'root', db: 'admin' }],
      note: ['p'],
    });
    expect(cmd.pwd).toBe(CREDENTIAL_PLACEHOLDERS.password);
  });
});

/** A member as applyPlan sees it: replies by command name, and whether the connection logged in. */
function member(
  address: string,
  authenticated: boolean,
  replies: Record<string, (cmd: Doc) => Doc>,
  sent: { address: string; command: Doc }[],
): CommandRunner {
  return {
    authenticated,
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

describe('applyPlan with --auth', () => {
  const plan = planFromOptions({ topology: 'replset', replicas: 3, auth: true });
  const credentials = { username: 'admin', password: 'hunter2' };

  it('first run: checks with replSetGetStatus under the localhost exception, creates the user on the PRIMARY another member names, then reconnects', async () => {
    const sent: { address: string; command: Doc }[] = [];
    const connects: string[] = [];
    let initiated = false;
    let userExists = false;
    const connect = async (target: PlanProcess) => {
      connects.push(target.address);
      const loggedIn = userExists;
      if (target.address === '127.0.0.1:27018')
        return member(
          target.address,
          loggedIn,
          {
            hello: () => ({ isWritablePrimary: true, ok: 1 }),
            createUser: () => ((userExists = true), { ok: 1 }),
          },
          sent,
        );
      return member(
        target.address,
        loggedIn,
        {
          replSetGetStatus: () =>
            initiated
              ? { set: 'rs0', ok: 1 }
              : { ok: 0, code: 94, errmsg: 'no replset config has been received' },
          replSetInitiate: () => ((initiated = true), { ok: 1 }),
          hello: () => ({ isWritablePrimary: false, primary: '127.0.0.1:27018', ok: 1 }),
        },
        sent,
      );
    };
    const log: string[] = [];
    const outcomes = await applyPlan(plan, connect, {
      credentials,
      pollIntervalMs: 1,
      onCommand: (e) => log.push(`${e.address} ${JSON.stringify(e.command)}`),
    });
    expect(outcomes.map((o) => o.status)).toEqual(['applied', 'applied']);
    expect(sent.map((s) => `${s.address} ${Object.keys(s.command)[0]}`)).toEqual([
      '127.0.0.1:27017 replSetGetStatus',
      '127.0.0.1:27017 replSetInitiate',
      '127.0.0.1:27017 hello',
      // The wait asks the PRIMARY the member names whether it takes writes yet (drain mode).
      '127.0.0.1:27018 hello',
      '127.0.0.1:27017 hello',
      '127.0.0.1:27018 createUser',
    ]);
    expect(sent[5].command).toEqual({
      createUser: 'admin',
      pwd: 'hunter2',
      roles: [{ role: 'root', db: 'admin' }],
    });
    expect(log.join('\n')).not.toContain('hunter2');
    expect(log.join('\n')).toContain(
      '127.0.0.1:27018 {"createUser":"<MONGO_BENCH_USER>","pwd":"<MONGO_BENCH_PASSWORD>"',
    );
    expect(connects).toEqual(['127.0.0.1:27017', '127.0.0.1:27018']);
  });

  it('second run: logged in, so both steps are found done without changing anything', async () => {
    const sent: { address: string; command: Doc }[] = [];
    const connect = async (target: PlanProcess) =>
      member(
        target.address,
        true,
        {
          find: () => ({ cursor: { id: 0, firstBatch: [{ _id: 'rs0' }] }, ok: 1 }),
          hello: () => ({ isWritablePrimary: true, ok: 1 }),
        },
        sent,
      );
    const outcomes = await applyPlan(plan, connect, { credentials });
    expect(outcomes.map((o) => o.status)).toEqual(['skipped', 'skipped']);
    expect(sent.map((s) => Object.keys(s.command)[0])).toEqual(['find', 'hello', 'hello']);
  });

  it('a user exists but logging in failed: the check says so', async () => {
    const connect = async (target: PlanProcess) =>
      member(
        target.address,
        false,
        {
          replSetGetStatus: () => ({
            ok: 0,
            code: 13,
            errmsg: 'command replSetGetStatus requires authentication',
          }),
        },
        [],
      );
    await expect(applyPlan(plan, connect, { credentials })).rejects.toThrow(
      /setup step 1\/2 "Initiate replica set rs0.*failed: not authorized: a user exists, but logging in failed; check the user name and password/,
    );
  });
});
