/** `mongo-bench calibrate` runs with no server at all (it starts its own null server) and prints its table. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { CalibrateResult } from '../../lib/calibrate/calibrate';

describe('mongo-bench calibrate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mongo-bench-calibrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('with the smallest sizes, prints one row per worker count, both clients and the plain loop beside them, and writes --json', async () => {
    const file = join(dir, 'ceiling.json');
    const out = await runCli(
      [
        'calibrate',
        '--workers-max',
        '1',
        '--clients',
        '1',
        '--seconds',
        '1',
        '--warmup',
        '0',
        '--json',
        file,
      ],
      { newline: 'terminal' },
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /workers\s+clients\s+ops\/s\s+cpu µs\/op\s+ops\/cpu-s\s+scaling\s+wire ops\/s\s+wire cpu µs\/op\s+wire ops\/cpu-s\s+wire scaling\s+plain ops\/s\s+plain cpu µs\/op\s+plain ops\/cpu-s\s+engine\/plain per core\s+wire\/plain per core\s+wire\/engine per core/,
    );
    expect(out.stdout).toMatch(
      /^\s+1\s+1\s+\d+\s+[\d.]+\s+\d+\s+1\.00x\s+\d+\s+[\d.]+\s+\d+\s+1\.00x\s+\d+\s+[\d.]+\s+\d+\s+[\d.]+x\s+[\d.]+x\s+[\d.]+x/m,
    );
    expect(out.stdout).toContain('never a MongoDB server');
    expect(out.stderr).toMatch(/null server on mongodb:\/\/127\.0\.0\.1:\d+/);
    expect(out.stderr).toContain('plain driver loop, 1 client');
    expect(out.stderr).toContain('engine (--driver wire), 1 worker(s), 1 client');
    const result = JSON.parse(readFileSync(file, 'utf8')) as CalibrateResult;
    expect(result.schema).toBe('mongo-bench/calibrate@1');
    expect(result.rows).toHaveLength(1);
    const [row] = result.rows;
    expect(row).toMatchObject({ workers: 1, clients: 1, scaling: 1 });
    // It ran: ops were counted on both sides (no speed is asserted).
    expect(row.engine.opsPerSec).toBeGreaterThan(0);
    expect(row.plain?.opsPerSec).toBeGreaterThan(0);
    expect(row.engine.cpuMicrosPerOp).toBeGreaterThan(0);
    expect(row.wire?.opsPerSec).toBeGreaterThan(0);
    expect(row.wire?.cpuMicrosPerOp).toBeGreaterThan(0);
    expect(row.wire!.opsPerCpuSecond).toBeCloseTo(1e6 / row.wire!.cpuMicrosPerOp, 6);
    expect(row.wireOverEngine).toBeCloseTo(row.engine.cpuMicrosPerOp / row.wire!.cpuMicrosPerOp, 6);
  });

  it('rejects a bad option by name, exit 2', async () => {
    const out = await runCli(['calibrate', '--clients', '0']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--clients');
  });
});
