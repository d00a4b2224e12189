/**
 * How far the Node engine is from fio on this machine: the same diskperf sweep run by both engines,
 * side by side. Usage: npm run bench:diskperf -- [dir] [fileSizeMB] [maxThreads] [seconds]
 * (defaults: the OS temp dir, 256 MB, 64 threads, 3 s). Writes nothing but its own temporary file.
 */
import { tmpdir } from 'node:os';
import { DiskperfResult, resolveDiskperfSettings, runDiskperf } from '../lib/diskperf';
import { findFio } from '../lib/diskperf/fio-engine';

async function sweep(engine: 'node' | 'fio', args: string[]): Promise<DiskperfResult> {
  const [dir = tmpdir(), size = '256', maxThreads = '64', seconds = '3'] = args;
  const settings = resolveDiskperfSettings({
    dir,
    fileSizeMb: Number(size),
    maxThreads: Number(maxThreads),
    seconds: Number(seconds),
    engine,
  });
  const { result, error } = await runDiskperf(settings);
  if (error) throw error;
  return result;
}

async function run(): Promise<void> {
  const args = process.argv.slice(2);
  const node = await sweep('node', args);
  const fio = findFio() ? await sweep('fio', args) : undefined;
  console.log(
    `${node.settings.fileSizeMB} MB file in ${node.settings.dir}, ${node.settings.seconds} s per step, direct I/O: ${node.io.direct}`,
  );
  console.log(
    `${'threads'.padStart(7)}  ${'node ops/s'.padStart(11)}  ${'node busy'.padStart(9)}  ${'fio ops/s'.padStart(11)}  ${'node/fio'.padStart(8)}`,
  );
  node.steps.forEach((step, i) => {
    const other = fio?.steps[i];
    const ratio = other
      ? `${Math.round((100 * step.opsPerSec.total) / other.opsPerSec.total)}%`
      : '-';
    console.log(
      `${String(step.threads).padStart(7)}  ${Math.round(step.opsPerSec.total).toLocaleString('en-US').padStart(11)}  ` +
        `${`${Math.round((step.engineBusy ?? 0) * 100)}%`.padStart(9)}  ${(other ? Math.round(other.opsPerSec.total).toLocaleString('en-US') : 'no fio').padStart(11)}  ${ratio.padStart(8)}`,
    );
  });
}

run().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
