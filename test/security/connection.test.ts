import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { MongoClient } from 'mongodb';
import {
  addConnectionOptions,
  ConnectionFlags,
  describeConnection,
  resolveConnectionOptions,
  toMongoClientOptions,
} from '../../lib/security/connection';
import { usageMessage } from '../support/cli';

/** Parses argv through a command with the shared options, as a real command would. */
function parse(argv: string[]): ConnectionFlags {
  let seen: ConnectionFlags = {};
  const program = new Command().exitOverride();
  addConnectionOptions(program.command('probe')).action((flags: ConnectionFlags) => {
    seen = flags;
  });
  program.parse(['node', 'mongo-bench', 'probe', ...argv]);
  return seen;
}

describe('connection options', () => {
  let dir: string;
  let ca: string;
  let cert: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mongo-bench-connection-'));
    ca = path.join(dir, 'ca.pem');
    cert = path.join(dir, 'client.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns the flags into driver options, with the password in auth and nowhere else', () => {
    const flags = parse([
      '--username',
      'alice',
      '--password',
      'p@ss:w/rd',
      '--auth-source',
      'users',
      '--auth-mechanism',
      'SCRAM-SHA-256',
      '--tls-ca-file',
      ca,
    ]);
    const { options, warnings } = resolveConnectionOptions(flags, {});
    expect(toMongoClientOptions(options)).toEqual({
      auth: { username: 'alice', password: 'p@ss:w/rd' },
      authSource: 'users',
      authMechanism: 'SCRAM-SHA-256',
      tls: true,
      tlsCAFile: ca,
    });
    expect(options.passwordFrom).toBe('flag');
    expect(warnings.join('\n')).toMatch(
      /option --password: .*visible .*\(ps\); set MONGO_BENCH_PASSWORD instead/,
    );
    expect(describeConnection(options)).toBe('user alice (authSource users, SCRAM-SHA-256), TLS');
    expect(describeConnection(options)).not.toContain('p@ss');
  });

  it('takes the password (and user) from the environment without a warning', () => {
    const { options, warnings } = resolveConnectionOptions(parse([]), {
      MONGO_BENCH_USER: 'bob',
      MONGO_BENCH_PASSWORD: 'from-env',
    });
    expect(toMongoClientOptions(options)).toEqual({
      auth: { username: 'bob', password: 'from-env' },
    });
    expect(options.passwordFrom).toBe('env');
    expect(warnings).toEqual([]);
  });

  it('the flag wins over the environment', () => {
    const { options } = resolveConnectionOptions(parse(['--username', 'a', '--password', 'flag']), {
      MONGO_BENCH_PASSWORD: 'env',
    });
    expect(options.password).toBe('flag');
  });

  it('asks for nothing without credentials; a user name exported for the scripts alone is ignored', () => {
    expect(toMongoClientOptions(resolveConnectionOptions(parse([]), {}).options)).toEqual({});
    expect(
      toMongoClientOptions(
        resolveConnectionOptions(parse([]), { MONGO_BENCH_USER: 'admin' }).options,
      ),
    ).toEqual({});
  });

  it('TLS: the files imply --tls; invalid certificates warn', () => {
    const { options, warnings } = resolveConnectionOptions(
      parse(['--tls-certificate-key-file', cert, '--tls-allow-invalid-certificates']),
      {},
    );
    expect(toMongoClientOptions(options)).toEqual({
      tls: true,
      tlsCertificateKeyFile: cert,
      tlsAllowInvalidCertificates: true,
    });
    expect(warnings.join('\n')).toContain('option --tls-allow-invalid-certificates: ');
    expect(toMongoClientOptions(resolveConnectionOptions(parse(['--tls']), {}).options)).toEqual({
      tls: true,
    });
  });

  it('X.509 needs the certificate and takes no password', () => {
    const { options } = resolveConnectionOptions(
      parse(['--auth-mechanism', 'MONGODB-X509', '--tls-certificate-key-file', cert]),
      { MONGO_BENCH_PASSWORD: 'stray' },
    );
    expect(toMongoClientOptions(options)).toEqual({
      authMechanism: 'MONGODB-X509',
      tls: true,
      tlsCertificateKeyFile: cert,
    });
    expect(
      usageMessage(() => resolveConnectionOptions(parse(['--auth-mechanism', 'MONGODB-X509']), {})),
    ).toBe('option --auth-mechanism: MONGODB-X509 needs --tls-certificate-key-file');
  });

  it.each([
    [['--password', 'pw'], {}, 'option --password: needs --username (or env MONGO_BENCH_USER)'],
    [
      ['--username', 'alice'],
      {},
      'option --username: no password: set env MONGO_BENCH_PASSWORD (or, visible in ps, --password)',
    ],
    [['--username', 'a', '--password', ''], {}, 'option --password: must not be empty'],
    [
      ['--auth-mechanism', 'SCRAM-SHA-512'],
      {},
      'option --auth-mechanism: must be one of SCRAM-SHA-256, SCRAM-SHA-1',
    ],
    [
      ['--auth-mechanism', 'SCRAM-SHA-1'],
      {},
      'option --auth-mechanism: SCRAM-SHA-1 needs --username',
    ],
    [['--auth-source', ''], {}, 'option --auth-source: must not be empty'],
    [['--auth-source', 'admin'], {}, 'option --auth-source: needs --username'],
    [
      ['--tls-ca-file', '/nonexistent/ca.pem'],
      {},
      'option --tls-ca-file: cannot read /nonexistent/ca.pem (no such file)',
    ],
    [['--tls-certificate-key-file', '/'], {}, 'option --tls-certificate-key-file: / is not a file'],
  ] as const)('%j is refused with a message naming the flag', (argv, env, message) => {
    const text = usageMessage(() => resolveConnectionOptions(parse([...argv]), env));
    expect(text.startsWith(message)).toBe(true);
  });

  it('an error about the password never shows it', () => {
    const text = usageMessage(() =>
      resolveConnectionOptions(parse(['--password', 'TopSecret123']), {}),
    );
    expect(text).not.toContain('TopSecret123');
  });

  it('config-file style names the config path and refuses unknown keys', () => {
    expect(
      usageMessage(() => resolveConnectionOptions({ authMechanism: 'nope' }, {}, 'config')),
    ).toContain('config authMechanism: must be one of');
    expect(
      usageMessage(() =>
        resolveConnectionOptions({ passwrd: 'x' } as ConnectionFlags, {}, 'config'),
      ),
    ).toContain('unknown key "passwrd"');
    // a password in a config file gives no ps warning (but it is still a file to protect)
    expect(
      resolveConnectionOptions({ username: 'a', password: 'b' }, {}, 'config').warnings,
    ).toEqual([]);
  });

  it('the driver accepts the produced options, and the URI keeps no password', () => {
    const { options } = resolveConnectionOptions(
      parse(['--username', 'alice', '--password', 'pw', '--auth-source', 'admin']),
      {},
    );
    const uri = 'mongodb://127.0.0.1:1/';
    const client = new MongoClient(uri, toMongoClientOptions(options));
    expect(client.options.credentials?.username).toBe('alice');
    expect(client.options.credentials?.password).toBe('pw');
    expect(client.options.credentials?.source).toBe('admin');
    expect(uri).not.toContain('pw');
  });
});
