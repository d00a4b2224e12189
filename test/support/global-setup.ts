/**
 * Runs once per jest run, in jest's parent process, before any worker starts: picks and starts the
 * shared CRUD server and tells the workers (which inherit process.env) what this machine offers.
 */
import { readFileSync } from 'fs';
import path from 'path';
import { CLI_JS_ENV, compileCli, TEST_DIST } from './compiled-cli';
import { WORKER_JS_ENV } from '../../lib/workload/engine/worker-thread';
import { compileStandIns, FAKE_BIN_JS_ENV } from './compiled-stand-ins';
import { CrudServer, startCrudServer } from './crud-server';
import { findGoTool } from './go-servers';
import { findMongosBinary } from './mongod';
import { ENV, mongoshScript } from './servers';

/** Where global-teardown.ts finds the server; both hooks run in the same (parent) process. */
export const RUNNING_CRUD_SERVER = '__MONGO_BENCH_CRUD_SERVER__';
type WithCrudServer = typeof globalThis & { [RUNNING_CRUD_SERVER]?: CrudServer };

function mongoshVersion(): string | undefined {
  const script = mongoshScript();
  if (!script) return undefined;
  try {
    return (
      JSON.parse(readFileSync(path.join(path.dirname(script), '..', 'package.json'), 'utf8')) as {
        version?: string;
      }
    ).version;
  } catch {
    return undefined;
  }
}

export default async function globalSetup(): Promise<void> {
  const env = process.env;
  // Whatever a parent shell exported must not pass for this run's servers.
  for (const name of Object.values(ENV)) delete env[name];
  // The stand-ins start from JavaScript compiled now rather than through tsx (compiled-stand-ins.ts),
  // and so do the CLI children (cli-child.ts, compiled-cli.ts); MONGO_BENCH_TEST_TSX=1 keeps tsx for both.
  delete env[FAKE_BIN_JS_ENV];
  delete env[CLI_JS_ENV];
  delete env[WORKER_JS_ENV];
  if (env.MONGO_BENCH_TEST_TSX !== '1') {
    env[FAKE_BIN_JS_ENV] = compileStandIns();
    env[CLI_JS_ENV] = compileCli();
    // The worker threads that tests start in-process load the copy compileCli just wrote.
    env[WORKER_JS_ENV] = path.join(TEST_DIST, 'workload', 'engine', 'worker-main.js');
  }

  const { server, mongod } = await startCrudServer({
    echoStderr: env.MONGO_BENCH_DEBUG_SERVERS === '1',
  });
  const parts: string[] = [];

  if (server.ok) {
    (globalThis as WithCrudServer)[RUNNING_CRUD_SERVER] = server.value;
    env[ENV.crudUri] = server.value.uri;
    env[ENV.crudKind] = server.value.kind;
    parts.push(`crud=${server.value.description}`);
  } else {
    env[ENV.crudUnavailable] = server.reason;
    parts.push(`crud=skipped (${server.reason})`);
  }
  parts.push('recording=in-process');
  const mongosh = mongoshVersion();
  parts.push(mongosh ? `mongosh=${mongosh}` : 'mongosh=skipped (not installed)');

  if (mongod.ok) {
    env[ENV.mongodBin] = mongod.value.path;
    const mongos = findMongosBinary(mongod.value);
    if (mongos.ok) {
      env[ENV.mongosBin] = mongos.value;
      parts.push(`mongod/replset/sharded=available (${mongod.value.path})`);
    } else {
      env[ENV.mongosUnavailable] = mongos.reason;
      parts.push(
        `mongod/replset=available (${mongod.value.path}); sharded=skipped (${mongos.reason})`,
      );
    }
  } else {
    env[ENV.mongodUnavailable] = mongod.reason;
    env[ENV.mongosUnavailable] = mongod.reason;
    parts.push(`mongod/replset/sharded=skipped (${mongod.reason})`);
  }
  for (const tool of ['toxiproxy', 'ferretdb'] as const) {
    const found = findGoTool(tool);
    parts.push(found.ok ? `${tool}=${found.version}` : `${tool}=skipped (${found.reason})`);
  }
  env[ENV.summary] = parts.join('; ');
}
