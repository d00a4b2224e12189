/**
 * A stand-in for a standalone `mongod --auth` (test/reliability/support/auth-bin/mongod): the
 * recording server with real SCRAM-SHA-256 and createUser (test/topology/fake-auth.ts), on --port,
 * loopback only. Like mongod it starts with no user: the first createUser comes through the
 * localhost exception. It writes <dbpath>/argv.json (what it was started with) and
 * <dbpath>/auth.json on exit (users created, logins, failed logins) for the test to read.
 * It is NOT MongoDB: it stores no data and does not refuse unauthenticated commands.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRecordingServer } from '../../support/recording-server';
import { emptyAuthState, fakeAuthHandlers } from '../../topology/fake-auth';

export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  if (argv.includes('--version')) {
    process.stdout.write('db version v7.0.0\n');
    return;
  }
  const dbPath = value('--dbpath') ?? '/data/db';
  if (!fs.existsSync(dbPath)) {
    process.stderr.write(`Data directory ${dbPath} not found\n`);
    process.exit(100);
  }
  fs.writeFileSync(path.join(dbPath, 'argv.json'), JSON.stringify(argv));
  const state = emptyAuthState();
  const server = await startRecordingServer({
    port: Number(value('--port') ?? 27017),
    host: '127.0.0.1',
    handlers: fakeAuthHandlers(state),
  });
  const exit = async () => {
    fs.writeFileSync(
      path.join(dbPath, 'auth.json'),
      JSON.stringify({
        users: [...state.users.keys()],
        logins: state.logins,
        failures: state.failures,
      }),
    );
    await server.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void exit());
  process.on('SIGINT', () => void exit());
  process.stdout.write(
    `${JSON.stringify({ s: 'I', c: 'NETWORK', id: 23016, msg: 'Waiting for connections', attr: { port: server.port } })}\n`,
  );
}
