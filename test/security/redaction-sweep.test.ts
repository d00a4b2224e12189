/**
 * Every generator of the security/topology/launcher area, run with a password (and a keyfile):
 * each output file and everything captured from stdout/stderr is searched for the password in
 * each of its forms (raw, percent-encoded, JSON-escaped; see secretForms) and for the keyfile's
 * content. None may hold it. The lead extends this to `run`'s outputs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { registerScripts } from '../../lib/cli/scripts';
import { CliContext } from '../../lib/cli/context';
import { resolveBinaries } from '../../lib/launcher/binaries';
import { formatCommandLine } from '../../lib/launcher/command-line';
import { launchProcesses } from '../../lib/launcher/launch';
import {
  addConnectionOptions,
  connectionSecrets,
  ConnectionFlags,
  describeConnection,
  resolveConnectionOptions,
  toMongoClientOptions,
} from '../../lib/security/connection';
import { redactCommand, redactText } from '../../lib/security/redact';
import {
  applyPlan,
  CommandLogEntry,
  driverConnector,
  formatCommandLogEntry,
  planFromOptions,
  renderPlanTable,
} from '../../lib/topology';
import { FAKE_BIN, freePorts, tempDir } from '../support/processes';
import { startMembers } from '../topology/auth-members';
import { captureContext } from '../support/cli';
import { secretSweep } from '../support/secret-sweep';

const PASSWORD = 'Sw33p@:/?#[]% "pw"';
const USER = 'sweeper';

/** What was searched, for the count the lead reports. */
const { expectClean, searched } = secretSweep([PASSWORD]);

/** `mongo-bench scripts ...` through its own command (not main(), so `run`'s wiring stays out of this test). */
async function scripts(args: string[], ctx: CliContext): Promise<number> {
  const program = new Command().exitOverride();
  registerScripts(program, ctx);
  await program.parseAsync(['node', 'mongo-bench', 'scripts', ...args]);
  return 0;
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile());
}

describe('redaction sweep: no output of the topology, launcher and connection code holds the password', () => {
  let dir: string;
  const saved = { user: process.env.MONGO_BENCH_USER, password: process.env.MONGO_BENCH_PASSWORD };
  beforeAll(() => {
    dir = tempDir('redaction-sweep');
    process.env.MONGO_BENCH_USER = USER;
    process.env.MONGO_BENCH_PASSWORD = PASSWORD;
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    for (const [key, value] of [
      ['MONGO_BENCH_USER', saved.user],
      ['MONGO_BENCH_PASSWORD', saved.password],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    process.stdout.write(`redaction sweep: ${searched.length} outputs searched\n`);
  });

  it.each([
    ['standalone', ['--topology', 'standalone']],
    ['replset', ['--topology', 'replset', '--replicas', '3', '--arbiter']],
    [
      'sharded',
      [
        '--topology',
        'sharded',
        '--shards',
        '2',
        '--replicas',
        '3',
        '--presplit',
        '0:100',
        '--shard-key',
        'g',
        '--stop-balancer',
      ],
    ],
  ])(
    'scripts --auth (%s): every file written and all it printed, and --dry-run',
    async (name, args) => {
      const out = path.join(dir, `scripts-${name}`);
      const ctx = captureContext();
      expect(await scripts([...args, '--auth', '--auth-user', USER, '--out', out], ctx)).toBe(0);
      const files = filesUnder(out);
      expect(files.length).toBeGreaterThanOrEqual(3);
      for (const file of files) expectClean(file, fs.readFileSync(file, 'utf8'));
      expectClean(`scripts ${name} stdout+stderr`, ctx.stdout + ctx.stderr);
      // The auth plan does create a user: the scripts hold the stand-in, not the value.
      const js = files
        .filter((f) => f.endsWith('.js'))
        .map((f) => fs.readFileSync(f, 'utf8'))
        .join('\n');
      expect(js).toContain('pwd: "<MONGO_BENCH_PASSWORD>"');

      const dry = captureContext();
      expect(await scripts([...args, '--auth', '--dry-run'], dry)).toBe(0);
      expect(dry.stdout).toContain('<MONGO_BENCH_PASSWORD>');
      expectClean(`scripts ${name} --dry-run`, dry.stdout + dry.stderr);
      expectClean(
        `plan table ${name}`,
        renderPlanTable(planFromOptions({ topology: name, auth: true })),
      );
    },
  );

  it('connection options: warnings, descriptions and errors never show the password', () => {
    const flags: ConnectionFlags[] = [];
    const program = new Command().exitOverride();
    addConnectionOptions(program.command('probe')).action(
      (f: ConnectionFlags) => void flags.push(f),
    );
    program.parse([
      'node',
      'mongo-bench',
      'probe',
      '--username',
      USER,
      '--password',
      PASSWORD,
      '--tls-allow-invalid-certificates',
    ]);
    const { options, warnings } = resolveConnectionOptions(flags[0], {});
    expect(toMongoClientOptions(options).auth?.password).toBe(PASSWORD); // it does reach the driver
    expectClean('connection warnings', warnings.join('\n'));
    expectClean('connection description', describeConnection(options));
    const errors: string[] = [];
    for (const bad of [
      { password: PASSWORD },
      { username: USER, password: PASSWORD, authMechanism: 'MONGODB-X509' },
      { username: USER, password: PASSWORD, tlsCaFile: `/nope/${PASSWORD}` },
    ]) {
      try {
        resolveConnectionOptions(bad, {});
      } catch (err) {
        errors.push(redactText((err as Error).message, connectionSecrets({ password: PASSWORD })));
      }
    }
    expect(errors).toHaveLength(3);
    expectClean('connection errors', errors.join('\n'));
  });

  it('command lines and command documents: formatCommandLine, redactCommand, URIs in messages', () => {
    const line = formatCommandLine('/usr/bin/mongod', [
      '--port',
      '27017',
      '--setParameter',
      `ldapQueryPassword=${PASSWORD}`,
      `--tlsCertificateKeyFilePassword=${PASSWORD}`,
      '--configdb',
      `mongodb://${USER}:${encodeURIComponent(PASSWORD)}@h1:27019/?tlsCertificateKeyFilePassword=${encodeURIComponent(PASSWORD)}`,
      `--note=mongodb://${USER}:${PASSWORD}@h2:27019/`,
      '--clusterAuthMode',
      'keyFile',
    ]);
    expect(line).toContain('--port 27017');
    expectClean('formatCommandLine', line);
    const doc = redactCommand(
      {
        createUser: USER,
        pwd: PASSWORD,
        roles: ['root'],
        comment: `set by mongodb://${USER}:${encodeURIComponent(PASSWORD)}@h/`,
      },
      [PASSWORD],
    );
    expectClean('redactCommand', JSON.stringify(doc));
    const message = `MongoServerSelectionError: connect ECONNREFUSED for mongodb://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:1/?authSource=admin (password ${PASSWORD})`;
    expectClean('redactText(error)', redactText(message, [PASSWORD]));
  });

  it('launcher: the command lines (onCommandLine) never hold the keyfile content', async () => {
    const [a, b] = await freePorts(2);
    const data = path.join(dir, 'launch');
    const keyFile = path.join(data, 'keyfile');
    const lines: string[] = [];
    const group = await launchProcesses(
      [
        {
          name: 'rs0-0',
          kind: 'mongod',
          args: ['--replSet', 'rs0'],
          host: '127.0.0.1',
          port: a,
          dbPath: path.join(data, 'rs0-0'),
        },
        {
          name: 'rs0-1',
          kind: 'mongod',
          args: ['--replSet', 'rs0'],
          host: '127.0.0.1',
          port: b,
          dbPath: path.join(data, 'rs0-1'),
          logPath: path.join(data, 'rs0-1.log'),
        },
      ],
      {
        binaries: resolveBinaries({ binDir: FAKE_BIN, env: {} }),
        readyTimeoutMs: 15_000,
        keyFile,
        onCommandLine: (l) => lines.push(l),
      },
    );
    try {
      const key = fs.readFileSync(keyFile, 'utf8');
      expect(lines).toHaveLength(2);
      expectClean(
        'launcher command lines',
        lines.join('\n') + group.processes.map((p) => p.commandLine).join('\n'),
        [key],
      );
      expectClean('launcher log file', fs.readFileSync(path.join(data, 'rs0-1.log'), 'utf8'), [
        key,
        PASSWORD,
      ]);
    } finally {
      await group.stop();
    }
  });

  it('applyPlan with credentials (driver, real SCRAM against the recorders): the command log and messages hold no password', async () => {
    const { plan, members } = await startMembers({
      topology: 'replset',
      replicas: 3,
      auth: true,
      authUser: USER,
    });
    const log: CommandLogEntry[] = [];
    const steps: string[] = [];
    try {
      for (const round of ['first', 'second'] as const) {
        const connector = driverConnector({ credentials: { username: USER, password: PASSWORD } });
        try {
          const outcomes = await applyPlan(plan, connector.connect, {
            credentials: { username: USER, password: PASSWORD },
            onCommand: (e) => log.push(e),
            onStep: (e) => steps.push(`${e.step}/${e.steps} ${e.description} ${e.status}`),
          });
          expect(outcomes.map((o) => o.status)).toEqual(
            round === 'first' ? ['applied', 'applied'] : ['skipped', 'skipped'],
          );
        } finally {
          await connector.close();
        }
      }
      const member = members.get('rs0-0')!;
      // The user was created with the real password, and the second round logged in with it.
      expect(member.auth.users.get(USER)?.pwd).toBe(PASSWORD);
      expect(member.auth.logins).toContain(USER);
      const created = log.find((e) => e.purpose === 'apply' && e.command.createUser !== undefined)!;
      expect(created.command).toEqual({
        createUser: '<MONGO_BENCH_USER>',
        pwd: '<MONGO_BENCH_PASSWORD>',
        roles: [{ role: 'root', db: 'admin' }],
      });
      expectClean('command log', log.map(formatCommandLogEntry).join('\n'));
      expectClean('step events', steps.join('\n'));
    } finally {
      await Promise.all([...members.values()].map((m) => m.server.stop()));
    }
  });

  it('applyPlan refuses to create the user without credentials (it would send the stand-in as the password)', async () => {
    const { plan, members } = await startMembers({ topology: 'replset', replicas: 1, auth: true });
    const connector = driverConnector();
    try {
      await expect(applyPlan(plan, connector.connect)).rejects.toThrow(
        /setup step 2\/2 "Create the first admin user.*no credentials were given/,
      );
      expect(members.get('rs0-0')!.auth.users.size).toBe(0);
    } finally {
      await connector.close();
      await Promise.all([...members.values()].map((m) => m.server.stop()));
    }
  });
});
