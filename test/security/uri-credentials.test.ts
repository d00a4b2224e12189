/**
 * Credentials inside a URI: its user counts as given (--auth-mechanism PLAIN needs no --username), a
 * password there is warned about as --password is (it shows in `ps`), naming the environment variable
 * that keeps it out, and `run` reads its target from env MONGO_BENCH_URI. Nothing connects (--dry-run).
 */
import { runCli } from '../support/cli';
import { uriCredentials } from '../../lib/security/uri-credentials';

const PS_WARNING = 'a password in the URI is visible to every user of this machine (ps)';

describe('credentials inside a URI', () => {
  it('reads the user and whether a password is there, percent-decoded', () => {
    expect(uriCredentials('mongodb://al%40ce:pw@h1,h2/db')).toEqual({
      username: 'al@ce',
      password: true,
    });
    expect(uriCredentials('mongodb+srv://bob@cluster.example/')).toEqual({
      username: 'bob',
      password: false,
    });
    expect(uriCredentials('mongodb://h/?authSource=a@b')).toEqual({ password: false });
  });

  it("accepts --auth-mechanism PLAIN with the URI's user, and warns of the URI's password", async () => {
    const out = await runCli([
      'run',
      '--uri',
      'mongodb://user:s3cret@127.0.0.1:1/',
      '--auth-mechanism',
      'PLAIN',
      '--dry-run',
    ]);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`option --uri: ${PS_WARNING}; set env MONGO_BENCH_URI`);
    expect(out.stderr + out.stdout).not.toContain('s3cret');
  });

  it('warns of a password in --store, naming MONGO_BENCH_STORE', async () => {
    const out = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1/',
      '--store',
      'mongodb://u:s3cret@127.0.0.1:1/results',
      '--dry-run',
    ]);
    expect(out.stderr).toContain(`option --store: ${PS_WARNING}; set env MONGO_BENCH_STORE`);
    expect(out.stderr).not.toContain('s3cret');
  });

  it("takes run's target from env MONGO_BENCH_URI when no --uri is given", async () => {
    process.env.MONGO_BENCH_URI = 'mongodb://127.0.0.1:1/';
    try {
      const out = await runCli(['run', '--dry-run']);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain('the existing deployment at mongodb://127.0.0.1:1/');
      expect(out.stderr).not.toContain(PS_WARNING);
    } finally {
      delete process.env.MONGO_BENCH_URI;
    }
  });
});
