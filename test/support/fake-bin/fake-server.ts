/**
 * Stand-ins for mongod and mongos (test/support/fake-bin/mongod, .../mongos): a behavioural model of
 * the parts of the real servers that mongo-bench relies on, each rule following the server's source
 * (repository mongodb/mongo) or documentation; the table is in docs/testing.md. They store no data.
 *
 *   options.ts      command line: real option sets, refusals and exit codes
 *   fork.ts         --fork: detached child from /, parent waits for readiness
 *   serve.ts        the server itself: log, pid file, listener, shutdown
 *   replication.ts  replSetInitiate validation, election, drain mode, secondaries
 *   sharding.ts     mongos catalog: shards, databases, collections, chunks, balancer
 *   strict.ts       IDL parsing per version (strict commands refuse unknown fields, 40415)
 *   shutdown.ts     step-down and quiesce on a signalled shutdown
 *   auth.ts         localhost exception, SCRAM-SHA-256 users, Unauthorized
 *   commands.ts     the handlers wiring it together
 *   version.ts      MONGO_BENCH_FAKE_VERSION and what depends on it
 *
 * Environment:
 *   MONGO_BENCH_FAKE_VERSION      server version to pose as (4.4.x, 5.0.x, 6.0.x, 7.0.x, 8.0.x; default 7.0.14)
 *   MONGO_BENCH_FAKE_ELECTION_MS  replSetInitiate to PRIMARY (drain mode); default 400
 *   MONGO_BENCH_FAKE_DRAIN_MS     drain mode to writable PRIMARY; default 200
 *   MONGO_BENCH_FAKE_RECORD_DIR   write <dir>/<kind>-<port>.jsonl: one line per command received, plus
 *                                 {"event":"SIGTERM"|"SIGINT"|"shutdown","at":ms} when asked to stop;
 *                                 and <dir>/<kind>-<port>.process.json: {pid, argv}.
 */
import { FORKED_FROM_ENV, forkAndWait, isForkedChild } from './fork';
import { StartupError, storeOptions, type FakeOptions, type Kind } from './options';
import { fakeVersionFromEnv, type ServerVersion } from './version';

export { storeOptions } from './options';

function die(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function parse(kind: Kind): { version: ServerVersion; options: FakeOptions } {
  let version: ServerVersion;
  try {
    version = fakeVersionFromEnv();
  } catch (e) {
    die(`fake ${kind}: ${(e as Error).message}`, 2);
  }
  try {
    // A forked child resolves paths against the parent's folder (made absolute before the fork).
    const options = storeOptions(
      kind,
      version,
      process.argv.slice(2),
      process.env[FORKED_FROM_ENV] ?? process.cwd(),
    );
    return { version, options };
  } catch (e) {
    if (!(e instanceof StartupError)) throw e;
    // options_parser_init.cpp: the reason, then "try '<argv[0]> --help' for more information".
    die(`${e.message}\ntry '${kind} --help' for more information`, e.exitCode);
  }
}

export async function main(kind: Kind): Promise<void> {
  const { version, options } = parse(kind);
  if (options.showVersion) {
    // mongodb-memory-server and the launcher run `mongod --version` and parse this line.
    process.stdout.write(`${kind === 'mongod' ? 'db' : 'mongos'} version v${version.text}\n`);
    return;
  }
  if (options.fork && !isForkedChild()) await forkAndWait(process.argv[1], options.argv);
  // The server, and the driver it takes BSON from, load only now: a --fork parent and --version never
  // need them, and loading them is most of a stand-in's start-up CPU (a --fork start is two processes).
  // A require, not import(): tsx (a stand-in run by hand) compiles what is required, not what is imported.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { serve } = require('./serve') as typeof import('./serve');
  await serve(kind, options);
}
