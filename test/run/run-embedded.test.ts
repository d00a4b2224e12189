/**
 * `npx mongo-bench run` with no --uri: the embedded default. Where no mongod can be had (this
 * machine: offline, no binary) it must fail within seconds saying how to go on, and run nothing
 * against anything else. With a real mongod the embedded run itself is exercised instead.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main';
import { availability, describeNeeding } from '../support/servers';
import { captureContext } from '../support/cli';

const realMongod = availability('mongod');
const describeOffline = realMongod.ok ? describe.skip : describe;
const offlineTitle = `mongo-bench run with no --uri and no mongod${realMongod.ok ? ' [skipped: a real mongod is available here, so the embedded default does not fail]' : ''}`;

describeOffline(offlineTitle, () => {
  it('fails within 30 s (exit 1) naming --uri, --mongod-bin and MONGOMS_SYSTEM_BINARY, and measures nothing', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mb-run-embedded-'));
    try {
      const ctx = captureContext();
      const started = Date.now();
      const code = await main(
        ['node', 'mongo-bench', 'run', '--preset', 'smoke', '--out', out],
        ctx,
      );
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(`embedded default offline: failed after ${seconds.toFixed(1)} s\n`);
      expect(code).toBe(1);
      expect(seconds).toBeLessThan(30);
      for (const text of [
        'no mongod binary for the embedded MongoDB',
        'Nothing was run',
        '--uri URI',
        '--mongod-bin PATH',
        'MONGOMS_SYSTEM_BINARY=/path/to/mongod',
      ])
        expect(ctx.stderr).toContain(text);
      // It reached no server: nothing is written (not even the log).
      expect(existsSync(join(out, 'results.json'))).toBe(false);
      expect(existsSync(join(out, 'command-log.txt'))).toBe(false);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 40_000);
});

describeNeeding('mongod', 'mongo-bench run on the embedded default with a real mongod', () => {
  it('starts mongodb-memory-server, runs a tiny sweep, stops it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mb-run-embedded-real-'));
    try {
      const ctx = captureContext();
      const code = await main(
        [
          'node',
          'mongo-bench',
          'run',
          '--clients',
          '1,2',
          '--seconds',
          '1',
          '--warmup',
          '0',
          '--docs',
          '500',
          '--out',
          out,
          '--quiet',
        ],
        ctx,
      );
      expect(code).toBe(0);
      const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
        complete: boolean;
        target: { topology: string; testDouble?: boolean };
      };
      expect(result.complete).toBe(true);
      expect(result.target.testDouble).toBeUndefined();
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
