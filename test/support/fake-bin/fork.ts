/**
 * --fork as the real servers do it (src/mongo/db/initialize_server_global_state.cpp, forkServer):
 * the parent prints "about to fork child process, waiting until server is ready for connections.",
 * "forked process: <pid>", then waits on a pipe until the child signals success (mongod: once it
 * listens; mongos: once sharding is initialized, i.e. the config servers answered, then it listens).
 * The parent waits with no time limit. If the child exits first, the parent prints
 * "ERROR: child process failed, exited with <N>" and the hint line, and exits with N.
 * The child runs from "/" (forkServer: chdir("/")), in its own session, stdio detached.
 *
 * Here the "pipe" is Node's IPC channel: the child is this same script without --fork, with
 * MONGO_BENCH_FAKE_FORKED_FROM=<parent cwd> so it resolves --dbpath/--logpath/--keyFile as the
 * parent did (made absolute before the fork) while a relative --pidfilepath lands under "/".
 */
import { spawn } from 'node:child_process';

export const FORKED_FROM_ENV = 'MONGO_BENCH_FAKE_FORKED_FROM';

export function isForkedChild(): boolean {
  return process.env[FORKED_FROM_ENV] !== undefined && typeof process.send === 'function';
}

/** The parent side: never returns (exits with the child's verdict). */
export async function forkAndWait(scriptPath: string, argv: string[]): Promise<never> {
  process.stdout.write(
    'about to fork child process, waiting until server is ready for connections.\n',
  );
  const childArgs = argv.filter((a) => a !== '--fork');
  const child = spawn(process.execPath, [scriptPath, ...childArgs], {
    cwd: '/',
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: { ...process.env, [FORKED_FROM_ENV]: process.cwd() },
  });
  process.stdout.write(`forked process: ${child.pid}\n`);
  const verdict = await new Promise<{ ok: true } | { ok: false; code: number }>((resolve) => {
    child.on('message', (m: unknown) => {
      if (m && typeof m === 'object' && (m as { ready?: boolean }).ready) resolve({ ok: true });
    });
    child.on('exit', (code, signal) => resolve({ ok: false, code: code ?? (signal ? 128 : 1) }));
    child.on('error', () => resolve({ ok: false, code: 1 }));
  });
  if (verdict.ok) {
    child.disconnect();
    child.unref();
    process.stdout.write('child process started successfully, parent exiting\n');
    process.exit(0);
  }
  process.stdout.write(`ERROR: child process failed, exited with ${verdict.code}\n`);
  process.stdout.write(
    'To see additional information in this output, start without the "--fork" option.\n',
  );
  process.exit(verdict.code);
}

/** The child side: tell the waiting parent we are ready, then drop the channel (signalForkSuccess). */
export function signalForkSuccess(): void {
  if (!isForkedChild()) return;
  process.send?.({ ready: true }, () => process.disconnect());
}
