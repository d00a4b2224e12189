import { ChildProcess, fork } from 'node:child_process';
import { extname, join } from 'node:path';
import { TestFileSpec, IoEngine, StepHooks, StepRequest } from './engine';
import type { FromWorker, ToWorker } from './node-worker';
import { StepMeasurement } from './result';
import { RunError } from '../config/errors';

/** Our own engine: always available, needs nothing but Node. */
export class NodeEngine implements IoEngine {
  readonly name = 'node' as const;
  readonly version = `node ${process.version}`;
  private exited?: string;
  private listener?: (message: FromWorker) => void;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: FromWorker) => this.listener?.(message));
    child.on('exit', (code, signal) => {
      this.exited = `the I/O worker exited (${signal ?? `code ${code}`})`;
      this.listener?.({ type: 'error', message: this.exited });
    });
  }

  static async open(target: TestFileSpec): Promise<NodeEngine> {
    const child = forkWorker(Math.max(4, target.maxThreads));
    const engine = new NodeEngine(child);
    await engine.exchange({ type: 'init', target }, (m) => (m.type === 'ready' ? true : undefined));
    return engine;
  }

  async runStep(request: StepRequest, hooks: StepHooks = {}): Promise<StepMeasurement | undefined> {
    if (hooks.signal?.aborted) return undefined;
    const perSecond: Array<{ t: number; reads: number; writes: number }> = [];
    const onAbort = () => this.post({ type: 'stop' });
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const done = await this.exchange(
        { type: 'step', threads: request.threads, seconds: request.seconds, mode: request.mode },
        (m) => {
          if (m.type === 'second') {
            perSecond.push({ t: m.t, reads: m.reads, writes: m.writes });
            hooks.onSecond?.(m);
            return undefined;
          }
          return m.type === 'done' ? m : undefined;
        },
      );
      const ops = done.reads + done.writes;
      return {
        threads: request.threads,
        elapsedSeconds: done.elapsedSeconds,
        reads: done.reads,
        writes: done.writes,
        avgLatencyMicros: ops > 0 ? done.latencySumMicros / ops : undefined,
        engineBusy: done.busy,
        perSecond,
      };
    } finally {
      hooks.signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    await exited;
  }

  private post(message: ToWorker): void {
    if (!this.exited) this.child.send(message);
  }

  /** Sends one message and resolves with the first reply `pick` accepts; an error reply rejects. */
  private exchange<T>(message: ToWorker, pick: (m: FromWorker) => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.exited) return reject(new RunError(`diskperf: ${this.exited}`));
      this.listener = (m) => {
        if (m.type === 'error') {
          this.listener = undefined;
          return reject(new RunError(`diskperf: ${m.message}`));
        }
        const value = pick(m);
        if (value !== undefined) {
          this.listener = undefined;
          resolve(value);
        }
      };
      this.post(message);
    });
  }
}

/**
 * Starts node-worker in a fresh Node process whose thread pool has `poolSize` threads. From the
 * built package the worker is plain JavaScript; from the sources (tests, tsx) it is TypeScript, which
 * the child loads through tsx's require hook.
 */
function forkWorker(poolSize: number): ChildProcess {
  const workerFile = join(__dirname, `node-worker${extname(__filename)}`);
  const execArgv = workerFile.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [];
  return fork(workerFile, [], {
    execArgv,
    env: { ...process.env, UV_THREADPOOL_SIZE: String(poolSize) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
