/**
 * npm run bench:capture -- [--lines 200000]
 *
 * How fast does `capture` read a log? Writes a skewed log of N real-format Slow query lines
 * (test/capture/synthetic-log.ts: finds, updates, removes built from the fixture lines) to a temp
 * file, plain and gzip, captures each, and prints lines/s and the heap in use after each capture.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { captureFromLogs } from '../lib/capture';
import { intArg } from '../lib/config/validate';
import { syntheticLog } from '../test/capture/synthetic-log';

async function main(): Promise<void> {
  const at = process.argv.indexOf('--lines');
  const lines = at > 0 ? intArg('--lines')(process.argv[at + 1]) : 200_000;
  const dir = mkdtempSync(join(tmpdir(), 'mb-bench-capture-'));
  try {
    const log = syntheticLog(lines, 600);
    const plain = join(dir, 'mongod.log');
    const gz = join(dir, 'mongod.log.gz');
    writeFileSync(plain, log.text);
    writeFileSync(gz, gzipSync(log.text));
    console.log(
      `capture of ${lines.toLocaleString('en-US')} Slow query lines (${(statSync(plain).size / 1e6).toFixed(1)} MB plain, ${(statSync(gz).size / 1e6).toFixed(1)} MB gzip), node ${process.version}`,
    );
    for (const file of [plain, gz]) {
      const t0 = performance.now();
      const outcome = await captureFromLogs([file]);
      const seconds = (performance.now() - t0) / 1000;
      const heap = process.memoryUsage().heapUsed / 1e6;
      console.log(
        `${file.endsWith('.gz') ? 'gzip ' : 'plain'}  ${seconds.toFixed(2)} s  ${Math.round(lines / seconds).toLocaleString('en-US')} lines/s  ` +
          `${outcome.summary.shapes.length} shapes  heap ${heap.toFixed(0)} MB`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
