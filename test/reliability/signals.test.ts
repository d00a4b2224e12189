/**
 * SIGINT and SIGTERM at each phase of `mongo-bench run` (issue 9), the CLI as a child process with
 * the stand-in binaries of test/support/fake-bin: what was measured is written, every process the
 * run started is stopped, the exit code is 130 / 143. Launch (SIGTERM) and sweep (SIGINT) are in
 * test/run/run-launched.test.ts; setup, load and report are here.
 *
 * The stand-ins answer setup commands in microseconds and the report takes a moment, so those two
 * phases are held open with MONGO_BENCH_HOLD_PHASE (lib/common/phase-hold.ts: a pause at the start of
 * the phase that an interrupt ends). The load phase needs no help: 300,000 documents take seconds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ResultDocument } from '../../lib/result';
import { runCli } from '../support/cli-child';
import { FAKE_BIN, freePortRange, leftovers, tempDir } from '../support/processes';

const TINY = [
  '--clients',
  '1',
  '--seconds',
  '1',
  '--warmup',
  '0',
  '--docs',
  '100',
  '--test-double',
];

/** Sends `signal` `delayMs` after stderr first shows `line`; resolves what the run left. */
async function signalIn(
  name: string,
  args: string[],
  line: string,
  signal: NodeJS.Signals,
  options: { delayMs?: number; hold?: string } = {},
) {
  const work = tempDir(`signal-${name}`);
  const basePort = await freePortRange(2);
  const dataDir = path.join(work, 'data');
  const out = path.join(work, 'out');
  let sent = false;
  const r = await runCli(
    [
      'run',
      '--bin-dir',
      FAKE_BIN,
      '--base-port',
      String(basePort),
      '--data-dir',
      dataDir,
      '--out',
      out,
      ...args,
    ],
    {
      env: options.hold ? { MONGO_BENCH_HOLD_PHASE: options.hold } : {},
      onStderr: (stderr, child) => {
        if (!sent && stderr.includes(line)) {
          sent = true;
          setTimeout(() => child.kill(signal), options.delayMs ?? 200);
        }
      },
    },
  );
  const resultFile = path.join(out, 'results.json');
  const result = fs.existsSync(resultFile)
    ? (JSON.parse(fs.readFileSync(resultFile, 'utf8')) as ResultDocument)
    : undefined;
  const left = leftovers(dataDir);
  const files = fs.existsSync(out) ? fs.readdirSync(out) : [];
  const commandLog = files.includes('command-log.txt')
    ? fs.readFileSync(path.join(out, 'command-log.txt'), 'utf8')
    : '';
  fs.rmSync(work, { recursive: true, force: true });
  return { ...r, sent, result, left, files, commandLog };
}

describe('interrupted at each phase (child process, stand-in binaries)', () => {
  it('setup (SIGTERM while the replica set is being initiated): nothing measured, the mongod stopped, exit 143', async () => {
    const r = await signalIn(
      'setup',
      ['--topology', 'replset', '--replicas', '1', ...TINY],
      '[setup] applying',
      'SIGTERM',
      { hold: 'setup:20000' },
    );
    expect(r.sent).toBe(true);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 143 });
    expect(r.stderr).toContain('SIGTERM: stopping the clients');
    expect(r.stderr).toContain('before the benchmark started; nothing was measured');
    expect(r.result).toBeUndefined();
    expect(r.commandLog).toMatch(
      /stopped rs0-0 \(pid \d+\): signal SIGTERM|stopped rs0-0 \(pid \d+\): exit code 0/,
    );
    expect(r.left).toEqual([]);
  }, 90_000);

  it('load (SIGINT while 300,000 documents go in): results.json says interrupted while loading, the mongod stopped, exit 130', async () => {
    const r = await signalIn(
      'load',
      ['--clients', '1', '--seconds', '1', '--warmup', '0', '--docs', '300000', '--test-double'],
      '[load]',
      'SIGINT',
      { delayMs: 300 },
    );
    expect(r.sent).toBe(true);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 130 });
    expect(r.result).toMatchObject({ complete: false, steps: [] });
    expect(r.result?.incompleteReason).toMatch(
      /interrupted while loading \(\d+ of 300000 documents\)/,
    );
    expect(r.commandLog).toMatch(/stopped mongod \(pid \d+\)/);
    expect(r.left).toEqual([]);
  }, 90_000);

  it('report (SIGTERM while the report is written): the complete results and the report are kept, the mongod stopped, exit 143', async () => {
    const r = await signalIn('report', TINY, '[report]', 'SIGTERM', { hold: 'report:20000' });
    expect(r.sent).toBe(true);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 143 });
    expect(r.stderr).toContain('while writing the report');
    expect(r.result).toMatchObject({ complete: true });
    expect(r.result?.steps).toHaveLength(1);
    for (const f of ['index.html', 'summary.md', 'results.csv', 'timeline.png'])
      expect(r.files).toContain(f);
    expect(r.commandLog).toMatch(/stopped mongod \(pid \d+\)/);
    expect(r.left).toEqual([]);
  }, 90_000);
});
