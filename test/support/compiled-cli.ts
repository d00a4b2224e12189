/**
 * The CLI that test/support/cli-child.ts runs as a child process, compiled to JavaScript once per jest
 * run instead of loaded through tsx at every start: a CLI child through tsx costs about 2 s of CPU
 * before it does anything (3 s with tsx's cache cold, as on a fresh clone), compiled about 0.9 s, as
 * the build (bin/mongo-bench.js) does. lib/ is compiled by @swc/core with jest's own options into
 * .test-dist/ at the repository root, in the same layout as dist/ (lib/cli/main.ts ->
 * .test-dist/cli/main.js), so paths the code finds from its own folder (package.json, docs/, the
 * worker threads' files) resolve as in the build. Unlike dist/, it is rewritten from the sources at
 * every jest run, so it is never stale. global-setup.ts names the entry in MONGO_BENCH_CLI_JS; without
 * it (a test file run some other way) the child goes through tsx as before.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { transformFileSync } from '@swc/core';

export const CLI_JS_ENV = 'MONGO_BENCH_CLI_JS';

const ROOT = path.resolve(__dirname, '../..');
const LIB = path.join(ROOT, 'lib');
export const TEST_DIST = path.join(ROOT, '.test-dist');

/** The options of jest.config.js's transform, compiling to CommonJS as jest does. */
export function compileTs(file: string): string {
  return transformFileSync(file, {
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
    swcrc: false,
    configFile: false,
  }).code;
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Writes `code` to `file` unless it already holds it; via a temporary file and a rename, so a reader never sees half a file. */
function writeIfChanged(file: string, code: string): void {
  try {
    if (fs.readFileSync(file, 'utf8') === code) return;
  } catch {
    // Not there yet.
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, code);
  fs.renameSync(temporary, file);
}

/** Compiles lib/ and the child's entry into .test-dist/; returns the entry's path. */
export function compileCli(): string {
  for (const file of sources(LIB))
    writeIfChanged(
      path.join(TEST_DIST, path.relative(LIB, file)).replace(/\.ts$/, '.js'),
      compileTs(file),
    );
  // test/support/cli-entry.ts, with its one import of lib pointed at the compiled copy beside it.
  const entrySource = compileTs(path.join(__dirname, 'cli-entry.ts'));
  const entry = entrySource.replace('require("../../lib/cli/main")', 'require("./cli/main")');
  if (entry === entrySource)
    throw new Error(
      'compiled CLI: test/support/cli-entry.ts no longer imports ../../lib/cli/main; update compiled-cli.ts',
    );
  const entryFile = path.join(TEST_DIST, 'cli-entry.js');
  writeIfChanged(entryFile, entry);
  return entryFile;
}
