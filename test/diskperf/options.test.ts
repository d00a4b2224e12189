import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { doublingThreads, resolveDiskperfSettings } from '../../lib/diskperf/options';
import { fioArgs, parseFioOutput } from '../../lib/diskperf/fio-engine';
import { BLOCK_SIZE, BYTES_PER_MB, toStep } from '../../lib/diskperf/result';
import { UsageError } from '../../lib/config/errors';

describe('diskperf settings', () => {
  it('doubles threads up to the maximum, ending on the maximum itself', () => {
    expect(doublingThreads(1)).toEqual([1]);
    expect(doublingThreads(4)).toEqual([1, 2, 4]);
    expect(doublingThreads(1024)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    expect(doublingThreads(100)).toEqual([1, 2, 4, 8, 16, 32, 64, 100]);
  });

  it('defaults to a 50/50 read+write mix on a 1024 MB file in the temp dir, 1..1024 threads, 5 s, direct I/O', () => {
    const s = resolveDiskperfSettings({});
    expect(s).toMatchObject({
      mode: 'mixed',
      fileSizeMB: 1024,
      dir: tmpdir(),
      seconds: 5,
      directRequested: true,
      engine: 'auto',
      blockSize: 4096,
    });
    expect(s.threads.at(-1)).toBe(1024);
  });

  it('maps --read and --write to the mode', () => {
    expect(resolveDiskperfSettings({ read: true }).mode).toBe('read');
    expect(resolveDiskperfSettings({ write: true }).mode).toBe('write');
    expect(resolveDiskperfSettings({ read: true, write: true }).mode).toBe('mixed');
  });

  it.each([
    [{ maxThreads: 0 }, /option --max-threads: must be at least 1/],
    [{ maxThreads: 2048 }, /option --max-threads: must be at most 1024/],
    [{ seconds: 0 }, /option --seconds: must be at least 1/],
    [{ fileSizeMb: 0 }, /option --file-size-mb: must be at least 1/],
    [{ engine: 'dd' }, /option --engine: must be one of auto, node, fio/],
  ])('rejects %j naming the option', (raw, message) => {
    expect(() => resolveDiskperfSettings(raw)).toThrow(UsageError);
    expect(() => resolveDiskperfSettings(raw)).toThrow(message);
  });
});

describe('diskperf figures', () => {
  it('derives ops/s and MB/s from the counts: MB/s = ops/s x 4096 / 2^20', () => {
    const step = toStep({ threads: 8, elapsedSeconds: 2, reads: 3000, writes: 1000 }, BLOCK_SIZE);
    expect(step.opsPerSec).toEqual({ total: 2000, reads: 1500, writes: 500 });
    expect(step.mbPerSec).toBeCloseTo((2000 * 4096) / BYTES_PER_MB, 9);
  });
});

describe('fio engine glue', () => {
  const target = {
    file: '/data/x.dat',
    fileBytes: 8 * BYTES_PER_MB,
    blockSize: 4096,
    direct: true,
    maxThreads: 4,
  };

  it('asks fio for N psync threads of random 4 KB I/O with O_DIRECT on our file', () => {
    const args = fioArgs(target, { threads: 16, seconds: 3, mode: 'read' });
    expect(args).toEqual(
      expect.arrayContaining([
        '--filename=/data/x.dat',
        '--size=8388608',
        '--bs=4096',
        '--rw=randread',
        '--ioengine=psync',
        '--direct=1',
        '--thread',
        '--numjobs=16',
        '--runtime=3s',
        '--time_based',
        '--allow_file_create=0',
        '--output-format=json',
      ]),
    );
    expect(
      fioArgs({ ...target, direct: false }, { threads: 1, seconds: 1, mode: 'mixed' }),
    ).toEqual(expect.arrayContaining(['--rw=randrw', '--rwmixread=50', '--direct=0']));
    expect(fioArgs(target, { threads: 1, seconds: 1, mode: 'write' })).toContain('--rw=randwrite');
  });

  it('reads the counts from real fio 3.33 JSON output, even after a warning line', () => {
    // The JSON is recorded from `fio ... --rw=randrw --numjobs=2 --runtime=1s --output-format=json` on this
    // machine; the warning line before it (the kind fio prints on some platforms) was added to check we skip it.
    const out = readFileSync(join(__dirname, 'fixtures', 'fio-3.33-randrw-2threads.txt'), 'utf8');
    const m = parseFioOutput(out, 2);
    expect(m).toMatchObject({ threads: 2, reads: 22202, writes: 22086, elapsedSeconds: 1.001 });
    expect(m.avgLatencyMicros).toBeCloseTo(
      (22202 * 44539.749392 + 22086 * 45265.658245) / 44288 / 1000,
      6,
    );
  });

  it('fails clearly on output without JSON', () => {
    expect(() => parseFioOutput('fio: engine psync not loadable\n', 1)).toThrow(
      'no JSON in fio output',
    );
  });
});
