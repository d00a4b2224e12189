/**
 * The stand-ins (fake-bin/mongod, fake-bin/mongos) compiled to JavaScript once per jest run, so that
 * each stand-in process starts without tsx: through tsx a start costs about 1 s of CPU (most of it
 * tsx resolving and loading the TypeScript), compiled about 0.3 s, and a suite starts hundreds (a
 * --fork start is two processes). The launchers use the compiled copy when MONGO_BENCH_FAKE_BIN_JS
 * names it (global-setup.ts sets it for the workers) and fall back to tsx otherwise, so a stand-in run
 * by hand needs no build. The code is the same: @swc/core, as jest's own transform, compiles the very
 * files the launchers would load through tsx.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { transformFileSync } from '@swc/core';

/** Set for the jest workers: the compiled fake-server.js the launchers load. */
export const FAKE_BIN_JS_ENV = 'MONGO_BENCH_FAKE_BIN_JS';

const ROOT = path.resolve(__dirname, '../..');
const ENTRY = path.join(ROOT, 'test', 'support', 'fake-bin', 'fake-server.ts');
/** Inside the repository's node_modules, so the compiled files' require('mongodb') resolves as the sources' does. */
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'mongo-bench-stand-ins');

function resolveSource(fromFile: string, specifier: string): string {
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')])
    if (fs.existsSync(candidate)) return candidate;
  throw new Error(
    `compiled stand-ins: cannot resolve ${specifier} from ${path.relative(ROOT, fromFile)}`,
  );
}

/**
 * Compiles fake-server.ts and every file it requires (relative imports, followed after compiling, so
 * type-only imports are not followed) into a folder named by the hash of the output; returns the
 * compiled fake-server.js. A folder of that hash already there is reused (another run compiled the same sources).
 */
export function compileStandIns(): string {
  const outputs = new Map<string, string>(); // source path relative to ROOT (.js) -> code
  const queue = [ENTRY];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift()!;
    const { code } = transformFileSync(file, {
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
      module: { type: 'commonjs' },
      swcrc: false,
      configFile: false,
    });
    outputs.set(path.relative(ROOT, file).replace(/\.ts$/, '.js'), code);
    // swc writes the requires of import lines with double quotes and keeps a require's own quotes.
    for (const [, , specifier] of code.matchAll(/require\((["'])(\.{1,2}\/[^"']+)\1\)/g)) {
      const dep = resolveSource(file, specifier);
      if (!seen.has(dep)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  const hash = createHash('sha256');
  for (const [name, code] of [...outputs].sort(([a], [b]) => a.localeCompare(b)))
    hash.update(`${name}\0${code}\0`);
  const dir = path.join(CACHE, hash.digest('hex').slice(0, 16));
  const entry = path.join(dir, path.relative(ROOT, ENTRY).replace(/\.ts$/, '.js'));
  if (fs.existsSync(entry)) return entry;
  // Written beside, then renamed into place: a concurrent run never loads a half-written folder.
  fs.mkdirSync(CACHE, { recursive: true });
  const staging = fs.mkdtempSync(path.join(CACHE, 'staging-'));
  for (const [name, code] of outputs) {
    fs.mkdirSync(path.dirname(path.join(staging, name)), { recursive: true });
    fs.writeFileSync(path.join(staging, name), code);
  }
  try {
    fs.renameSync(staging, dir);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    if (!fs.existsSync(entry)) throw err;
  }
  return entry;
}
