/**
 * The machine that generated the load: CPU model and cores, memory, OS, the Node, driver and
 * mongo-bench versions, and the git commit when mongo-bench runs from a checkout (read from .git
 * directly: no git binary needed, nothing run).
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { LoadMachine } from '../result';
import { toolInfo } from '../common/version';

function driverVersion(): string {
  try {
    // The driver's package.json, beside its lib/ (its main is lib/index.js).
    const pkg = join(dirname(require.resolve('mongodb')), '..', 'package.json');
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The commit HEAD names in the checkout at `root`, or undefined (no .git, a detached worktree file, unreadable). */
export function gitCommit(root: string): string | undefined {
  if (!existsSync(join(root, '.git'))) return undefined;
  // A worktree's .git is a file: "gitdir: /path/to/repo/.git/worktrees/name".
  const gitDir = (() => {
    const dotGit = join(root, '.git');
    try {
      const text = readFileSync(dotGit, 'utf8');
      return text.startsWith('gitdir:')
        ? resolve(root, text.slice('gitdir:'.length).trim())
        : dotGit;
    } catch {
      return dotGit;
    }
  })();
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = head.startsWith('ref:') ? head.slice(4).trim() : undefined;
    if (!ref) return undefined;
    // A worktree keeps refs in the common directory.
    const common = existsSync(join(gitDir, 'commondir'))
      ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim())
      : gitDir;
    for (const dir of [gitDir, common]) {
      const file = join(dir, ref);
      if (existsSync(file)) return readFileSync(file, 'utf8').trim();
    }
    const packed = join(common, 'packed-refs');
    if (existsSync(packed)) {
      const line = readFileSync(packed, 'utf8')
        .split('\n')
        .find((l) => l.endsWith(` ${ref}`));
      if (line) return line.split(' ')[0];
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export function describeLoadMachine(): LoadMachine {
  const cpus = os.cpus();
  // lib/server -> the package root (dist/server in the built package: two levels up either way).
  const commit = gitCommit(resolve(__dirname, '..', '..'));
  return {
    cpuModel: cpus[0]?.model.trim() || 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    driver: driverVersion(),
    mongoBench: toolInfo().version,
    ...(commit ? { gitCommit: commit } : {}),
  };
}
