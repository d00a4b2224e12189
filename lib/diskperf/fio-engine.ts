import { spawn, spawnSync } from 'node:child_process';
import { TestFileSpec, IoEngine, StepHooks, StepRequest } from './engine';
import { IoMode, StepMeasurement } from './result';
import { RunError } from '../config/errors';
import { messageOf } from '../common/values';

/** fio's version string ("fio-3.33") when `fio` runs from PATH, else undefined. */
export function findFio(command = 'fio'): string | undefined {
  const probe = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 5000 });
  if (probe.error || probe.status !== 0) return undefined;
  return probe.stdout.trim() || 'fio';
}

const FIO_RW: Record<IoMode, string> = { read: 'randread', write: 'randwrite', mixed: 'randrw' };

/**
 * fio arguments for one step: N threads (`--thread --numjobs=N`) each doing synchronous pread/pwrite
 * (`psync`), as mongoperf's threads did, on our existing file, time-based, one JSON report.
 */
export function fioArgs(target: TestFileSpec, request: StepRequest): string[] {
  return [
    '--name=mongo-bench-diskperf',
    `--filename=${target.file}`,
    `--size=${target.fileBytes}`,
    `--bs=${target.blockSize}`,
    `--rw=${FIO_RW[request.mode]}`,
    ...(request.mode === 'mixed' ? ['--rwmixread=50'] : []),
    '--ioengine=psync',
    `--direct=${target.direct ? 1 : 0}`,
    '--thread',
    `--numjobs=${request.threads}`,
    '--group_reporting',
    '--time_based',
    `--runtime=${request.seconds}s`,
    '--norandommap',
    '--randrepeat=0',
    '--allow_file_create=0',
    '--output-format=json',
  ];
}

interface FioSide {
  total_ios: number;
  runtime: number;
  lat_ns?: { mean?: number };
}

/** Reads the figures from fio's JSON output (fio may print warnings before the JSON). */
export function parseFioOutput(stdout: string, threads: number): StepMeasurement {
  const start = stdout.indexOf('{');
  if (start < 0) throw new Error('no JSON in fio output');
  const doc = JSON.parse(stdout.slice(start)) as {
    jobs?: Array<{ read: FioSide; write: FioSide; error?: number }>;
  };
  const job = doc.jobs?.[0];
  if (!job) throw new Error('fio output has no jobs');
  if (job.error) throw new Error(`fio job error ${job.error}`);
  const { read, write } = job;
  const ms = Math.max(read.runtime, write.runtime);
  const ops = read.total_ios + write.total_ios;
  const latencySum =
    read.total_ios * (read.lat_ns?.mean ?? 0) + write.total_ios * (write.lat_ns?.mean ?? 0);
  return {
    threads,
    elapsedSeconds: ms / 1000,
    reads: read.total_ios,
    writes: write.total_ios,
    avgLatencyMicros: ops > 0 ? latencySum / ops / 1000 : undefined,
  };
}

/** fio does the I/O; the sweep, table, files and chart stay ours. */
export class FioEngine implements IoEngine {
  readonly name = 'fio' as const;

  constructor(
    private readonly target: TestFileSpec,
    readonly version: string,
    private readonly command = 'fio',
  ) {}

  runStep(request: StepRequest, hooks: StepHooks = {}): Promise<StepMeasurement | undefined> {
    if (hooks.signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, fioArgs(this.target, request), {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const onAbort = () => child.kill('SIGINT'); // fio stops its jobs and still prints what it measured
      hooks.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', (err) => reject(new RunError(`diskperf: cannot run fio: ${err.message}`)));
      child.on('close', (code) => {
        hooks.signal?.removeEventListener('abort', onAbort);
        try {
          resolve(parseFioOutput(stdout, request.threads));
        } catch (err) {
          if (hooks.signal?.aborted) return resolve(undefined);
          const detail = stderr.trim().split('\n').slice(-3).join(' / ') || messageOf(err);
          reject(new RunError(`diskperf: fio failed (exit ${code}): ${detail}`));
        }
      });
    });
  }

  async close(): Promise<void> {
    // Nothing stays running between steps.
  }
}
