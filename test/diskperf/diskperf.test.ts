import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { RunError, UsageError } from '../../lib/config/errors';
import {
  BYTES_PER_MB,
  DiskperfResult,
  runDiskperf,
  resolveDiskperfSettings,
  chooseEngine,
} from '../../lib/diskperf';
import { findFio } from '../../lib/diskperf/fio-engine';
import { CapturedContext, runCli } from '../support/cli';
import { runCli as runCliChild } from '../support/cli-child';

const root = mkdtempSync(join(tmpdir(), 'mb-diskperf-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
/** A fresh directory for the test file and one for the report. */
function dirs(): { data: string; out: string } {
  const base = join(root, String(counter++));
  const data = join(base, 'data');
  mkdirSync(data, { recursive: true });
  return { data, out: join(base, 'out') };
}

function diskperfCli(args: string[]) {
  return runCli(['diskperf', ...args], { newline: 'always' });
}

/** The checks every measured run must pass: positive figures, MB/s = ops/s x 4 KB, counts / time = rates. */
function expectConsistent(result: DiskperfResult, threads: number[], seconds: number) {
  expect(result.schema).toBe('mongo-bench/diskperf@1');
  expect(result.steps.map((s) => s.threads)).toEqual(threads);
  for (const step of result.steps) {
    expect(step.status).toBe('ok');
    expect(step.opsPerSec.total).toBeGreaterThan(0);
    expect(step.mbPerSec).toBeGreaterThan(0);
    expect(step.mbPerSec).toBeCloseTo((step.opsPerSec.total * 4096) / BYTES_PER_MB, 6);
    expect(step.opsPerSec.total).toBeCloseTo((step.reads + step.writes) / step.elapsedSeconds, 3);
    expect(step.opsPerSec.reads + step.opsPerSec.writes).toBeCloseTo(step.opsPerSec.total, 3);
    expect(step.elapsedSeconds).toBeGreaterThanOrEqual(seconds * 0.9);
    expect(step.elapsedSeconds).toBeLessThan(seconds + 2);
    expect(step.avgLatencyMicros).toBeGreaterThan(0);
  }
}

async function expectPngWithText(path: string) {
  const png = readFileSync(path);
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  const image = await loadImage(png);
  expect([image.width, image.height]).toEqual([1000, 600]);
  // The title is drawn in dark grey on white: without a working font this band stays blank.
  const canvas = createCanvas(image.width, image.height);
  const c = canvas.getContext('2d');
  c.drawImage(image, 0, 0);
  const band = c.getImageData(150, 10, 700, 30).data;
  let dark = 0;
  for (let i = 0; i < band.length; i += 4)
    if (band[i] < 100 && band[i + 1] < 100 && band[i + 2] < 100) dark++;
  expect(dark).toBeGreaterThan(500);
  expect(c.getImageData(2, 2, 1, 1).data[0]).toBe(255); // white background, not transparent
}

describe('mongo-bench diskperf (Node engine, 8 MB file, 1..4 threads, 1 s steps)', () => {
  const { data, out } = dirs();
  let run: { code: number; ctx: CapturedContext };
  let result: DiskperfResult;
  beforeAll(async () => {
    run = await diskperfCli([
      '--engine',
      'node',
      '--file-size-mb',
      '8',
      '--max-threads',
      '4',
      '--seconds',
      '1',
      '--dir',
      data,
      '--out',
      out,
    ]);
    result = JSON.parse(readFileSync(join(out, 'diskperf.json'), 'utf8')) as DiskperfResult;
  });

  it('exits 0 and prints the table as it goes', () => {
    expect(run.ctx.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.ctx.stdout).toMatch(/threads\s+ops\/s\s+reads\/s\s+writes\/s\s+MB\/s\s+avg ms/);
    for (const t of [1, 2, 4])
      expect(run.ctx.stdout).toMatch(
        new RegExp(`^\\s+${t}\\s+[\\d,]+\\s+[\\d,]+\\s+[\\d,]+\\s+[\\d.]+`, 'm'),
      );
  });

  it('measures positive, consistent figures with direct I/O and a half-read, half-write mix', () => {
    expectConsistent(result, [1, 2, 4], 1);
    expect(result.complete).toBe(true);
    expect(result.io.engine).toBe('node');
    expect(result.settings.mode).toBe('mixed');
    for (const step of result.steps)
      expect(Math.abs(step.reads - step.writes)).toBeLessThanOrEqual(step.threads);
    // ext4/xfs here take O_DIRECT; where they do not, the run must say why.
    if (!result.io.direct) expect(result.io.directUnavailableReason).toBeTruthy();
    else expect(run.ctx.stdout).toContain('direct I/O (O_DIRECT)');
  });

  it('writes CSV and summary.md that agree with the JSON, and a chart with text on white', async () => {
    const csv = readFileSync(join(out, 'diskperf.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe(
      'threads,status,elapsed_seconds,reads,writes,ops_per_sec,reads_per_sec,writes_per_sec,mb_per_sec,avg_latency_us,engine_busy',
    );
    expect(csv).toHaveLength(4);
    csv.slice(1).forEach((line, i) => {
      const cells = line.split(',');
      expect(Number(cells[0])).toBe(result.steps[i].threads);
      expect(Number(cells[3]) + Number(cells[4])).toBe(
        result.steps[i].reads + result.steps[i].writes,
      );
      expect(Number(cells[8])).toBeCloseTo(Number(cells[5]) / 256, 2);
    });
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('| threads | ops/s |');
    expect(summary).toContain('![ops/s and MB/s by threads](diskperf.png)');
    await expectPngWithText(join(out, 'diskperf.png'));
  });

  it('deletes its test file', () => {
    expect(readdirSync(data)).toEqual([]);
  });
});

const fio = findFio();
(fio ? describe : describe.skip)(
  `mongo-bench diskperf with fio (8 MB, 1..4 threads, 1 s)${fio ? '' : ' [skipped: fio is not installed (Debian package fio)]'}`,
  () => {
    it('runs fio for the I/O and keeps our figures, files and cleanup', async () => {
      const { data, out } = dirs();
      const { code, ctx } = await diskperfCli([
        '--engine',
        'fio',
        '--file-size-mb',
        '8',
        '--max-threads',
        '4',
        '--seconds',
        '1',
        '--dir',
        data,
        '--out',
        out,
      ]);
      expect(ctx.stderr).toBe('');
      expect(code).toBe(0);
      const result = JSON.parse(readFileSync(join(out, 'diskperf.json'), 'utf8')) as DiskperfResult;
      expectConsistent(result, [1, 2, 4], 1);
      expect(result.io.engine).toBe('fio');
      expect(result.io.engineVersion).toMatch(/^fio-/);
      expect(readdirSync(data)).toEqual([]);
    });

    it("an abort in the middle of a fio step keeps fio's partial figures, marked interrupted", async () => {
      const { data } = dirs();
      const controller = new AbortController();
      const settings = resolveDiskperfSettings({
        engine: 'fio',
        fileSizeMb: 8,
        maxThreads: 2,
        seconds: 5,
        dir: data,
      });
      // The abort 3 s into a 5 s step (its third second), not 1 s in: at load ~17 on 2 cores fio, sent
      // SIGINT a second after it was spawned, had not started its jobs and printed nothing to keep.
      const outcome = await runDiskperf(settings, {
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'step-second' && e.t === 2) controller.abort('SIGINT');
        },
      });
      expect(outcome.result.complete).toBe(false);
      expect(outcome.result.incompleteReason).toMatch(
        /^interrupted \(SIGINT\) after 0 of 2 steps \(the next one was cut short/,
      );
      expect(outcome.result.steps).toHaveLength(1);
      const [step] = outcome.result.steps;
      expect(step.status).toBe('interrupted');
      // Cut short of the 5 s step (by 0.5 s at least, as 2.5 s was of the 3 s step it had been).
      expect(step.elapsedSeconds).toBeLessThan(4.5);
      expect(step.opsPerSec.total).toBeGreaterThan(0);
      expect(readdirSync(data)).toEqual([]);
    });
  },
);

describe('diskperf --read / --write', () => {
  it.each([
    ['--read', 'read'],
    ['--write', 'write'],
  ])('%s does only %ss', async (flag, mode) => {
    const { data, out } = dirs();
    const { code } = await diskperfCli([
      flag,
      '--engine',
      'node',
      '--file-size-mb',
      '8',
      '--max-threads',
      '2',
      '--seconds',
      '1',
      '--dir',
      data,
      '--out',
      out,
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'diskperf.json'), 'utf8')) as DiskperfResult;
    expectConsistent(result, [1, 2], 1);
    for (const step of result.steps) {
      expect(mode === 'read' ? step.reads : step.writes).toBeGreaterThan(0);
      expect(mode === 'read' ? step.writes : step.reads).toBe(0);
    }
    expect(readdirSync(data)).toEqual([]);
  });
});

describe('diskperf bad input (exit 2, the option named, nothing left behind)', () => {
  const tiny = ['--file-size-mb', '8', '--max-threads', '1', '--seconds', '1'];

  it('--dir that does not exist', async () => {
    const { out } = dirs();
    const { code, ctx } = await diskperfCli([
      ...tiny,
      '--dir',
      join(root, 'no-such-dir'),
      '--out',
      out,
    ]);
    expect(code).toBe(2);
    expect(ctx.stderr).toMatch(/option --dir: directory ".*no-such-dir" does not exist/);
    expect(existsSync(out)).toBe(false);
  });

  it('--dir that is a file', async () => {
    const { data, out } = dirs();
    const file = join(data, 'plain.txt');
    writeFileSync(file, 'x');
    const { code, ctx } = await diskperfCli([...tiny, '--dir', file, '--out', out]);
    expect(code).toBe(2);
    expect(ctx.stderr).toMatch(/option --dir: ".*plain.txt" is not a directory/);
  });

  // Root ignores permission bits, so as root use a directory no one can create files in.
  const asRoot = process.getuid?.() === 0;
  const unwritableAvailable = !asRoot || (process.platform === 'linux' && existsSync('/proc/self'));
  (unwritableAvailable ? it : it.skip)(
    `--dir that is not writable${unwritableAvailable ? '' : ' [skipped: running as root without /proc]'}`,
    async () => {
      const { data, out } = dirs();
      let dir = data;
      if (asRoot) dir = '/proc/self';
      else chmodSync(data, 0o555);
      try {
        const { code, ctx } = await diskperfCli([...tiny, '--dir', dir, '--out', out]);
        expect(code).toBe(2);
        expect(ctx.stderr).toMatch(/option --dir: cannot create the test file in "[^"]+": E[A-Z]+/);
        expect(existsSync(out)).toBe(false);
      } finally {
        chmodSync(data, 0o755);
      }
    },
  );

  it.each([
    [['--max-threads', '0'], /option --max-threads: must be at least 1/],
    [['--max-threads', '2.5'], /option --max-threads: expected an integer, got "2.5"/],
    [['--seconds', '0'], /option --seconds: must be at least 1/],
    [['--file-size-mb', 'lots'], /option --file-size-mb: expected an integer, got "lots"/],
    [['--engine', 'dd'], /option --engine: must be one of auto, node, fio/],
  ])('%j', async (args, message) => {
    const { data, out } = dirs();
    const { code, ctx } = await diskperfCli(['--dir', data, '--out', out, ...args]);
    expect(code).toBe(2);
    expect(ctx.stderr).toMatch(message);
    expect(readdirSync(data)).toEqual([]);
  });

  it('a file larger than the free space of --dir', async () => {
    const { data, out } = dirs();
    const fs = statfsSync(data);
    const freeMB = Math.floor((fs.bavail * fs.bsize) / BYTES_PER_MB);
    const { code, ctx } = await diskperfCli([
      '--dir',
      data,
      '--out',
      out,
      '--file-size-mb',
      String(Math.min(freeMB + 1, 1024 * 1024)),
    ]);
    expect(code).toBe(2);
    expect(ctx.stderr).toMatch(/option --file-size-mb: a \d+ MB test file does not fit in --dir/);
    expect(readdirSync(data)).toEqual([]);
  });

  it('--engine fio when fio is not installed', () => {
    expect(() => chooseEngine('fio', join(root, 'no-fio-here'))).toThrow(UsageError);
    expect(() => chooseEngine('fio', join(root, 'no-fio-here'))).toThrow(
      'option --engine: fio was not found on PATH',
    );
    expect(chooseEngine('auto', join(root, 'no-fio-here')).name).toBe('node');
  });
});

describe('diskperf stops cleanly', () => {
  it('abort after the first step: what was measured is kept, marked incomplete, and the file is deleted', async () => {
    const { data } = dirs();
    const controller = new AbortController();
    const settings = resolveDiskperfSettings({
      engine: 'node',
      fileSizeMb: 8,
      maxThreads: 8,
      seconds: 1,
      dir: data,
    });
    const outcome = await runDiskperf(settings, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'step-done' && e.step.threads === 1) controller.abort('SIGINT');
      },
    });
    expect(outcome.aborted).toBe(true);
    expect(outcome.result.complete).toBe(false);
    expect(outcome.result.incompleteReason).toMatch(/^interrupted \(SIGINT\) after 1 of 4 steps/);
    expect(outcome.result.steps.map((s) => s.threads)).toEqual([1]);
    expect(readdirSync(data)).toEqual([]);
  });

  it('an I/O error mid-run (the file shrank): the run fails with the reason, and the file is deleted', async () => {
    const { data } = dirs();
    const settings = resolveDiskperfSettings({
      read: true,
      engine: 'node',
      fileSizeMb: 8,
      maxThreads: 2,
      seconds: 1,
      dir: data,
    });
    let file = '';
    const outcome = await runDiskperf(settings, {
      onEvent: (e) => {
        if (e.type === 'file-ready') file = e.file;
        if (e.type === 'step-done') truncateSync(file, 0);
      },
    });
    expect(outcome.error).toBeInstanceOf(RunError);
    expect(outcome.error?.message).toMatch(/read at offset \d+ failed: 0 of 4096 bytes/);
    expect(outcome.result.complete).toBe(false);
    expect(outcome.result.incompleteReason).toMatch(/^failed after 1 of 2 steps/);
    expect(readdirSync(data)).toEqual([]);
  });

  it('Ctrl-C (SIGINT) on the CLI: exit 130, diskperf.json marked incomplete, test file deleted', async () => {
    const { data, out } = dirs();
    const { code, stderr } = await runCliChild(
      [
        'diskperf',
        '--engine',
        'node',
        '--file-size-mb',
        '8',
        '--max-threads',
        '8',
        '--seconds',
        '1',
        '--dir',
        data,
        '--out',
        out,
      ],
      {
        onStdout: (stdout, child) => {
          // The first table row is out: interrupt during the second step.
          if (/^\s+1\s+[\d,]+/m.test(stdout) && !child.killed) child.kill('SIGINT');
        },
      },
    );
    expect(code).toBe(130);
    expect(stderr).toMatch(/incomplete: interrupted \(SIGINT\)/);
    const result = JSON.parse(readFileSync(join(out, 'diskperf.json'), 'utf8')) as DiskperfResult;
    expect(result.complete).toBe(false);
    expect(result.steps.length).toBeGreaterThanOrEqual(1);
    expect(result.steps.length).toBeLessThan(4);
    expect(existsSync(join(out, 'diskperf.png'))).toBe(true);
    expect(readdirSync(data)).toEqual([]);
  });
});
