/**
 * The null server in a child process of its own, so that process.cpuUsage() of the client measures
 * the client alone (worker threads share their process's CPU count; a child process does not).
 *
 * spawnNullServer() forks this very file; run as a child it starts the server and talks over IPC:
 * it sends {type: 'listening', port, uri}, answers {type: 'cpu'} with its own CPU time, and exits on
 * {type: 'stop'} or when the parent goes away (the IPC channel closes), so no server is left behind.
 */
import { ChildProcess, fork } from 'node:child_process';
import { extname, join } from 'node:path';
import { NullServerOptions, startNullServer } from './null-server';
import { messageOf } from '../common/values';

type ToChild = { type: 'cpu' } | { type: 'stop' };
type FromChild =
  | { type: 'listening'; port: number; uri: string }
  | { type: 'cpu'; user: number; system: number; answered: number }
  | { type: 'failed'; message: string };

export interface NullServerProcess {
  uri: string;
  port: number;
  pid: number;
  /** The server process's CPU time so far (µs) and the commands it answered. */
  usage(): Promise<{ cpuMicros: number; answered: number }>;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;

/**
 * From the built package the child is plain JavaScript; from the sources (tests, tsx) it is
 * TypeScript, loaded through tsx's require hook (as lib/diskperf/node-engine.ts does).
 */
function forkChild(options: NullServerOptions): ChildProcess {
  const file = join(__dirname, `null-server-process${extname(__filename)}`);
  const execArgv = file.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [];
  return fork(file, [JSON.stringify(options)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

export async function spawnNullServer(options: NullServerOptions = {}): Promise<NullServerProcess> {
  const child = forkChild(options);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await new Promise<{ port: number; uri: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the null server did not start within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    child.on('message', (m: FromChild) => {
      if (m.type === 'listening') {
        clearTimeout(timer);
        resolve(m);
      } else if (m.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`the null server could not start: ${m.message}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the null server exited before it listened (${signal ?? `code ${code}`})`));
    });
  }).catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw err;
  });

  let stopping: Promise<void> | undefined;
  return {
    ...listening,
    pid: child.pid as number,
    usage: () =>
      new Promise((resolve, reject) => {
        const onMessage = (m: FromChild) => {
          if (m.type !== 'cpu') return;
          child.off('message', onMessage);
          resolve({ cpuMicros: m.user + m.system, answered: m.answered });
        };
        child.on('message', onMessage);
        if (!child.connected) reject(new Error('the null server has exited'));
        else child.send({ type: 'cpu' } satisfies ToChild);
      }),
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          if (child.connected) child.send({ type: 'stop' } satisfies ToChild);
          const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(killer);
        }
      })();
      return stopping;
    },
  };
}

async function runAsChild(): Promise<void> {
  const send = (m: FromChild) => process.send?.(m);
  let options: NullServerOptions = {};
  try {
    options = JSON.parse(process.argv[2] ?? '{}') as NullServerOptions;
    const server = await startNullServer(options);
    const quit = () => {
      void server.stop().finally(() => process.exit(0));
    };
    process.on('message', (m: ToChild) => {
      if (m.type === 'stop') quit();
      else if (m.type === 'cpu') {
        const cpu = process.cpuUsage();
        send({ type: 'cpu', user: cpu.user, system: cpu.system, answered: server.answered });
      }
    });
    // The parent is gone (crashed, killed): do not outlive it.
    process.on('disconnect', quit);
    send({ type: 'listening', port: server.port, uri: server.uri });
  } catch (err) {
    send({ type: 'failed', message: messageOf(err) });
    process.exit(1);
  }
}

if (require.main === module && process.send) void runAsChild();
