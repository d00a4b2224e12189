/**
 * The redaction sweep for `mongo-bench run` (issue 9): runs that authenticate with a password
 * (real SCRAM-SHA-256 against the recording server, test/topology/fake-auth.ts), given by the
 * environment, by --password, inside the --uri, and a wrong one; then every file the run wrote
 * (results.json, summary.md, results.csv, index.html, setup.js, command-log.txt; the PNGs hold no
 * text to search) and everything printed on stdout and stderr is searched for the password in each
 * of its forms (as is, percent-encoded upper and lower case, JSON-escaped: secretForms).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { main } from '../../lib/cli/main';
import { containsSecret } from '../../lib/security/redact';
import { startRecordingServer, RecordingServer } from '../support/recording-server';
import { emptyAuthState, fakeAuthHandlers, FakeAuthState } from '../topology/fake-auth';
import { freePortRange, pidsWithCommandLine, tempDir } from '../support/processes';
import { captureContext } from '../support/cli';
import { secretSweep } from '../support/secret-sweep';

// ASCII only (the fake server's SASLprep is the identity), with every character a URI or JSON escapes.
const PASSWORD = 'Sw33p@:/?#[]% "pw"\\x';
const USER = 'sweeper';
const TEXT_FILES = [
  'results.json',
  'summary.md',
  'results.csv',
  'index.html',
  'setup.js',
  'command-log.txt',
];
const RUN = ['--clients', '1', '--seconds', '1', '--warmup', '0', '--docs', '20', '--test-double'];

const { expectClean, searched } = secretSweep([PASSWORD]);

describe('redaction sweep: no output of mongo-bench run holds the password', () => {
  let dir: string;
  let server: RecordingServer;
  let auth: FakeAuthState;
  const saved = { user: process.env.MONGO_BENCH_USER, password: process.env.MONGO_BENCH_PASSWORD };

  beforeAll(async () => {
    dir = tempDir('run-redaction');
    auth = emptyAuthState();
    auth.users.set(USER, { user: USER, pwd: PASSWORD, roles: [{ role: 'root', db: 'admin' }] });
    server = await startRecordingServer({ handlers: fakeAuthHandlers(auth) });
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    for (const [key, value] of [
      ['MONGO_BENCH_USER', saved.user],
      ['MONGO_BENCH_PASSWORD', saved.password],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    process.stdout.write(`run redaction sweep: ${searched.length} outputs searched\n`);
  });
  afterEach(() => {
    delete process.env.MONGO_BENCH_USER;
    delete process.env.MONGO_BENCH_PASSWORD;
  });

  async function run(name: string, args: string[], expectedCode: number) {
    const out = path.join(dir, name);
    const ctx = captureContext();
    const logins = auth.logins.length;
    const code = await main(['node', 'mongo-bench', 'run', '--out', out, ...RUN, ...args], ctx);
    expect({ code, stderr: ctx.stderr }).toMatchObject({ code: expectedCode });
    for (const file of TEXT_FILES) {
      const full = path.join(out, file);
      if (expectedCode === 0) expect(fs.existsSync(full)).toBe(true);
      if (fs.existsSync(full)) expectClean(`${name}/${file}`, fs.readFileSync(full, 'utf8'));
    }
    expectClean(`${name}: stdout`, ctx.stdout);
    expectClean(`${name}: stderr`, ctx.stderr);
    return { ctx, out, logins: auth.logins.length - logins };
  }

  it('password from MONGO_BENCH_PASSWORD, user from --username: logs in (SCRAM), every output clean', async () => {
    process.env.MONGO_BENCH_PASSWORD = PASSWORD;
    const r = await run('env', ['--uri', server.uri, '--username', USER, '--drop'], 0);
    expect(r.logins).toBeGreaterThan(0); // the credentials reached the driver
    expect(fs.readFileSync(path.join(r.out, 'command-log.txt'), 'utf8')).toContain(
      `connection: user ${USER}`,
    );
  });

  it('--password on the command line (warned about) with --json: every output clean, stdout included', async () => {
    const r = await run(
      'flag',
      ['--uri', server.uri, '--username', USER, '--password', PASSWORD, '--json'],
      0,
    );
    expect(r.logins).toBeGreaterThan(0);
    expect(r.ctx.stderr).toContain('option --password: a password on the command line is visible');
    expect(JSON.parse(r.ctx.stdout)).toMatchObject({ complete: true });
    // command-log.txt records the command line, with the password removed.
    expect(fs.readFileSync(path.join(r.out, 'command-log.txt'), 'utf8')).toMatch(
      /# command: mongo-bench run .*--password \*\*\*\*/,
    );
  });

  it('the password inside --uri (percent-encoded): every output clean, the stored URI shows ****', async () => {
    const uri = `mongodb://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}/?authSource=admin`;
    const r = await run('uri', ['--uri', uri], 0);
    expect(r.logins).toBeGreaterThan(0);
    const result = JSON.parse(fs.readFileSync(path.join(r.out, 'results.json'), 'utf8')) as {
      target: { uri: string };
    };
    expect(result.target.uri).toBe(
      `mongodb://${USER}:****@127.0.0.1:${server.port}/?authSource=admin`,
    );
  });

  it('run --auth, launched standalone (stand-in mongod with SCRAM): started with --auth, first user created through the localhost exception, the run logs in as it; every output clean', async () => {
    process.env.MONGO_BENCH_PASSWORD = PASSWORD;
    const dataDir = path.join(dir, 'auth-data');
    const basePort = await freePortRange(1);
    const r = await run(
      'auth',
      [
        '--bin-dir',
        path.join(__dirname, 'support', 'auth-bin'),
        '--base-port',
        String(basePort),
        '--data-dir',
        dataDir,
        '--auth',
        '--username',
        USER,
      ],
      0,
    );
    const mongodDir = path.join(
      dataDir,
      fs.readdirSync(dataDir).find((d) => fs.existsSync(path.join(dataDir, d, 'argv.json')))!,
    );
    expect(JSON.parse(fs.readFileSync(path.join(mongodDir, 'argv.json'), 'utf8'))).toContain(
      '--auth',
    );
    const seen = JSON.parse(fs.readFileSync(path.join(mongodDir, 'auth.json'), 'utf8')) as {
      users: string[];
      logins: string[];
    };
    expect(seen.users).toEqual([USER]);
    expect(seen.logins.filter((u) => u === USER).length).toBeGreaterThan(0); // the benchmark logged in as the new user
    const log = fs.readFileSync(path.join(r.out, 'command-log.txt'), 'utf8');
    expect(log).toMatch(
      /apply mongod .*"createUser":"<MONGO_BENCH_USER>","pwd":"\*\*\*\*".* -> ok/,
    ); // the plan holds stand-ins, filled in on the wire
    expect(fs.readFileSync(path.join(r.out, 'setup.js'), 'utf8')).toContain('createUser');
    expect(pidsWithCommandLine(dataDir)).toEqual([]); // the stand-in was stopped
  }, 30_000);

  it('a wrong password: exit 1 naming the host, and the (wrong) password is nowhere either', async () => {
    process.env.MONGO_BENCH_PASSWORD = `${PASSWORD}-wrong`;
    const r = await run(
      'wrong',
      ['--uri', server.uri, '--username', USER, '--server-selection-timeout', '1000'],
      1,
    );
    expect(r.ctx.stderr).toMatch(
      new RegExp(`cannot connect to 127\\.0\\.0\\.1:${server.port} .*Authentication failed`),
    );
    expect(containsSecret(r.ctx.stderr, [`${PASSWORD}-wrong`])).toBeUndefined();
  });
});
