/**
 * `npm ci` refuses a lock that lacks another platform's optional binary (npm 11 checks every
 * optionalDependency of every locked package, whatever the OS), so the lock must list them all,
 * and .ci/run must install with `npm ci`, which never rewrites the lock.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

interface LockedPackage {
  optionalDependencies?: Record<string, string>;
}

function lockedPackages(): Record<string, LockedPackage> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockedPackage>;
  };
  return lock.packages;
}

/** Where npm resolves `name` from the package at `from`: its own node_modules, then each parent's. */
function resolves(packages: Record<string, LockedPackage>, from: string, name: string): boolean {
  let base = from;
  for (;;) {
    if (packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base) return false;
    const cut = base.lastIndexOf('node_modules/');
    base = cut <= 0 ? '' : base.slice(0, cut - 1);
  }
}

test('package-lock.json lists every optional dependency of every locked package (all platforms)', () => {
  const packages = lockedPackages();
  const missing: string[] = [];
  for (const [path, pkg] of Object.entries(packages)) {
    for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
      if (!resolves(packages, path, name)) missing.push(`${path || '(root)'} -> ${name}`);
    }
  }
  expect(missing).toEqual([]);
  // the platforms a user is most likely on, named so a partial lock is easy to read in the failure
  expect(Object.keys(packages)).toEqual(
    expect.arrayContaining([
      'node_modules/@napi-rs/canvas-darwin-arm64',
      'node_modules/@napi-rs/canvas-win32-x64-msvc',
      'node_modules/@swc/core-darwin-arm64',
    ]),
  );
});

test('.ci/run installs with npm ci (reproducible, never rewrites the lock)', () => {
  const script = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  const commands = script.split('\n').filter((line) => !line.trimStart().startsWith('#'));
  expect(commands.some((line) => /^\s*npm ci\b/.test(line))).toBe(true);
  expect(commands.some((line) => /^\s*npm install\b/.test(line))).toBe(false);
});
