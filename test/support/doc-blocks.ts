/**
 * The code blocks of README.md and docs/*.md that say they run (```` ```sh run ````, ```` ```ts run ````),
 * and how each is run: the convention is in docs/testing.md ("Code blocks in the docs").
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { CLI_ENTRY } from './cli-child';

export const ROOT = join(__dirname, '..', '..');

export interface DocBlock {
  /** README.md or docs/x.md, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word: sh, ts, ... */
  lang: string;
  /** The words after it (`run` marks a block that runs). */
  flags: string[];
  code: string;
}

/** Fenced code blocks (``` or ~~~) of one Markdown text. */
export function codeBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    // CommonMark: a backtick fence's info string has no backtick (```` ```sh run ```` in a sentence is inline code).
    if (!open || (open[1][0] === '`' && open[2].includes('`'))) continue;
    const fence = open[1];
    let end = i + 1;
    const closes = (line: string) => {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      return close !== null && close[1][0] === fence[0] && close[1].length >= fence.length;
    };
    while (end < lines.length && !closes(lines[end])) end++;
    const [lang = '', ...flags] = open[2].trim().split(/\s+/).filter(Boolean);
    blocks.push({ file, line: i + 1, lang, flags, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** README.md and every docs/*.md page. */
export function documentationPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f));
  return ['README.md', ...docs];
}

export function runnableBlocks(): DocBlock[] {
  return documentationPages()
    .flatMap((file) => codeBlocks(readFileSync(join(ROOT, file), 'utf8'), file))
    .filter((b) => b.flags.includes('run'));
}

/** The address runnable blocks write for "a server you run"; the test swaps in its own. */
export const DOC_URI = 'mongodb://127.0.0.1:27017';

/**
 * A TypeScript fragment as a program: its imports on top, the rest in an async function (so a
 * top-level `await` works as in an ES module); a failure exits 1 with the error.
 */
export function tsProgram(code: string): string {
  const imports: string[] = [];
  const body: string[] = [];
  let inImport = false;
  for (const line of code.split('\n')) {
    if (inImport || /^import\s/.test(line)) {
      imports.push(line);
      inImport = !/;\s*$/.test(line) && !/from\s+['"][^'"]+['"]\s*$/.test(line);
    } else {
      body.push(line);
    }
  }
  return [
    ...imports,
    '(async () => {',
    ...body,
    '})().catch((err: unknown) => {',
    '  console.error(err);',
    '  process.exitCode = 1;',
    '});',
    '',
  ].join('\n');
}

export interface BlockRun {
  code: number | null;
  output: string;
}

const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cjs', 'index.cjs');
const BUILT_ENTRY = join(ROOT, 'dist', 'index.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The build (dist/) when it is newer than every source file: the CLI then starts in a third of the
 * CPU time. Otherwise the sources through tsx, so a block never runs against a stale build.
 */
export function useBuild(): boolean {
  return (
    existsSync(BUILT_ENTRY) && statSync(BUILT_ENTRY).mtimeMs >= newestSource(join(ROOT, 'lib'))
  );
}

/**
 * Runs one block in `cwd` (an empty folder) against `uri`: sh with bash (`set -e`), `mongo-bench`
 * and `npx mongo-bench` being this checkout's CLI; ts with tsx, 'mongo-bench' being this checkout's
 * package (see useBuild). Killed after `timeoutMs`.
 */
export function runBlock(
  block: DocBlock,
  cwd: string,
  uri: string,
  timeoutMs: number,
): Promise<BlockRun> {
  const code = block.code.split(DOC_URI).join(uri);
  const bin = join(cwd, '.bin');
  mkdirSync(bin, { recursive: true });
  const shim = join(bin, 'mongo-bench');
  const built = useBuild();
  const cli = built
    ? `"${join(ROOT, 'bin', 'mongo-bench.js')}"`
    : `--require "${TSX}" "${CLI_ENTRY}"`;
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" ${cli} "$@"\n`);
  chmodSync(shim, 0o755);
  // From the sources, 'mongo-bench' is tsconfig's path to lib/index.ts; from the build, the package
  // itself (a file inside it imports it by name: package.json "exports").
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    ...(built ? {} : { TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json') }),
  };
  let args: string[];
  let program: string | undefined;
  if (block.lang === 'sh' || block.lang === 'bash') {
    const script = code.replace(/\bnpx mongo-bench\b/g, 'mongo-bench');
    args = ['bash', '-euo', 'pipefail', '-c', script];
  } else if (block.lang === 'ts') {
    // Inside the checkout (.tmp/ is ignored by git) so that its imports resolve from its node_modules.
    const dir = join(ROOT, '.tmp', 'doc-blocks');
    mkdirSync(dir, { recursive: true });
    const file = (program = join(
      dir,
      `${relative(ROOT, block.file).replace(/[^A-Za-z0-9]+/g, '-')}-${block.line}-${process.pid}.ts`,
    ));
    writeFileSync(file, tsProgram(code));
    // tsx compiles the block (and, without a current build, the sources it imports).
    args = [process.execPath, '--require', TSX, file];
  } else {
    throw new Error(
      `${block.file}:${block.line}: a runnable block must be sh, bash or ts, not "${block.lang}"`,
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(args[0], args.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (exit) => {
      clearTimeout(timer);
      if (program) rmSync(program, { force: true });
      resolve({ code: exit, output });
    });
  });
}
