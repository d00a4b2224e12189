/**
 * The access-controlled setup scripts, run with the real mongosh against one recording server per
 * target process (on the plan's own ports, so each replica set has its own users, as in a real
 * deployment). The recorders check passwords with real SCRAM-SHA-256 (fake-auth.ts): the first run
 * must go in through the localhost exception and create the user with the password from the
 * environment; the second must log in with it and change nothing. The password must appear in no
 * generated file and in nothing mongosh prints.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describeNeeding } from '../support/servers';
import { runMongosh } from '../support/mongosh';
import { renderScriptFiles } from '../../lib/topology';
import { containsSecret } from '../../lib/security/redact';
import { isChangingCommand } from './fake-cluster';
import { startMembers } from './auth-members';

const PASSWORD = 'Pa55@:/%w0rd! "q"';
const USER = 'benchadmin';

describeNeeding(
  ['recording', 'mongosh'],
  'access-controlled setup scripts against password-checking recorders',
  () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'mongo-bench-auth-scripts-'));
      process.env.MONGO_BENCH_USER = USER;
      process.env.MONGO_BENCH_PASSWORD = PASSWORD;
      delete process.env.MONGO_BENCH_CONNECT_ALL;
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
      delete process.env.MONGO_BENCH_USER;
      delete process.env.MONGO_BENCH_PASSWORD;
    });

    it.each([
      ['standalone-auth', { topology: 'standalone', auth: true }],
      ['replset-3-auth', { topology: 'replset', replicas: 3, auth: true }],
      [
        'sharded-2x1-auth',
        { topology: 'sharded', shards: 2, replicas: 1, hashed: true, auth: true },
      ],
    ] as const)(
      '%s: creates the user through the localhost exception, then logs in; no password in any file or output',
      async (_name, input) => {
        const { plan, members } = await startMembers(input);
        try {
          const files = renderScriptFiles(plan);
          for (const file of files)
            expect({ file: file.file, found: containsSecret(file.text, [PASSWORD]) }).toEqual({
              file: file.file,
              found: undefined,
            });
          const scripts = files.filter((f) => f.file.endsWith('.js'));
          const userTargets = plan.steps
            .filter((st) => st.command.createUser !== undefined)
            .map((st) => st.target);

          for (const round of ['first', 'second'] as const) {
            for (const m of members.values()) m.server.clear();
            for (const file of scripts) {
              const scriptPath = path.join(dir, `${plan.topology.name}-${file.file}`);
              writeFileSync(scriptPath, file.text);
              // mongosh itself talks to the first target (no credentials); the script opens its own connections.
              const first = members.values().next().value!;
              const result = await runMongosh(first.server.uri, { file: scriptPath });
              const context = `${round} run of ${file.file}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
              expect({ context, code: result.code }).toEqual({ context, code: 0 });
              expect(containsSecret(result.stdout + result.stderr, [PASSWORD])).toBeUndefined();
            }
            const changing = [...members.values()].flatMap((m) =>
              m.server
                .userCommands()
                .filter((c) => isChangingCommand(c) || c.name === 'createUser'),
            );
            if (round === 'first') {
              // One user per replica set (or the standalone), created on the step's target (the PRIMARY here), with the password from the environment.
              for (const target of userTargets) {
                const member = members.get(target)!;
                const created = member.server.userCommands().filter((c) => c.name === 'createUser');
                expect(created.map((c) => ({ db: c.db, body: c.body }))).toEqual([
                  {
                    db: 'admin',
                    body: {
                      createUser: USER,
                      pwd: PASSWORD,
                      roles: [{ role: 'root', db: 'admin' }],
                    },
                  },
                ]);
                // It tried to log in first, found no user, and went on without credentials.
                expect(member.auth.failures).toContain(USER);
              }
              expect(changing.filter((c) => c.name === 'createUser')).toHaveLength(
                Math.max(1, plan.topology.replicaSets.length),
              );
            } else {
              expect(changing.map((c) => c.name)).toEqual([]);
              for (const target of userTargets)
                expect(members.get(target)!.auth.logins).toContain(USER);
            }
          }
          if (plan.topology.kind === 'sharded') {
            // 20-cluster.js logged in on the mongos (with the user created on the config servers) before adding shards.
            const mongos = members.get(plan.topology.routers[0])!;
            expect(mongos.auth.logins).toContain(USER);
            expect(mongos.cluster.shards.map((s) => s._id)).toEqual(
              plan.topology.shards.map((s) => s.id),
            );
          }
        } finally {
          await Promise.all([...members.values()].map((m) => m.server.stop()));
        }
      },
      // A hang guard, not a measure: the sharded case runs mongosh over nine recorders (about 25 s on an
      // idle machine of 2 cores; past 60 s at a load average of 16).
      150_000,
    );

    it('fails with a message about the credentials, and without the password, when it has no user and cannot create one', async () => {
      const { plan, members } = await startMembers({
        topology: 'replset',
        replicas: 1,
        auth: true,
      });
      try {
        const member = members.get('rs0-0')!;
        // Someone else already created a user with another password: the localhost exception is closed.
        member.auth.users.set(USER, { user: USER, pwd: 'another password', roles: [] });
        member.server.clear();
        const file = renderScriptFiles(plan).find((f) => f.file === '10-replsets.js')!;
        const scriptPath = path.join(dir, 'wrong-password-10-replsets.js');
        writeFileSync(scriptPath, file.text);
        const result = await runMongosh(member.server.uri, { file: scriptPath });
        expect(result.code).toBe(1);
        expect(result.stdout).toContain('FAILED: step 2/2 "Create the first admin user');
        expect(result.stdout).toContain('already exists');
        expect(containsSecret(result.stdout + result.stderr, [PASSWORD])).toBeUndefined();
        expect(member.auth.failures).toContain(USER);
      } finally {
        await Promise.all([...members.values()].map((m) => m.server.stop()));
      }
    });
  },
);
