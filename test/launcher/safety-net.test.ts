import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePorts, tempDir } from '../support/processes';

const ROOT = path.resolve(__dirname, '../..');

/** Gone, or a zombie waiting for a reaper: either way no longer running. */
function stillRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
  try {
    // Orphans are re-parented; if nobody reaps them they linger as zombies (state Z).
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('process exit safety net', () => {
  it('kills launched processes when Node dies of an uncaught exception without stop()', async () => {
    const dir = tempDir('safety');
    const [port] = await freePorts(1);
    const child = spawn(
      process.execPath,
      [
        '--require',
        'tsx/cjs',
        path.join(__dirname, 'fixtures', 'crash-after-launch.ts'),
        String(port),
        path.join(dir, 'db'),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      expect(stderr).toMatch(/uncaught after launch/);
      expect(code).toBe(1);
      const { pids } = JSON.parse(stdout.trim()) as { pids: number[] };
      expect(pids).toHaveLength(1);
      const deadline = Date.now() + 10_000;
      while (stillRunning(pids[0]) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(stillRunning(pids[0])).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
