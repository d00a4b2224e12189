/**
 * Every code block of README.md and docs/*.md that says it runs (```sh run, ```ts run) runs, here,
 * against the CRUD test server, from an empty folder, as a reader would paste it: the docs cannot
 * drift from the tool. The convention: docs/testing.md, "Code blocks in the docs".
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeBlocks, runBlock, runnableBlocks, tsProgram } from '../support/doc-blocks';
import { crudUri, describeNeeding } from '../support/servers';
import { buildProgram } from '../../lib/cli/main';
import { captureContext } from '../support/cli';
import * as entry from 'mongo-bench';

const BLOCKS = runnableBlocks();

describe('the doc-block convention', () => {
  it('finds fenced blocks with their language, flags and line', () => {
    const md =
      'text\n```sh run\necho hi\n```\n\n~~~ts\nconst a = 1;\n~~~\n````md\n```sh run\nnested\n```\n````\n```` ```ts run ```` is inline code\n';
    expect(codeBlocks(md, 'x.md')).toEqual([
      { file: 'x.md', line: 2, lang: 'sh', flags: ['run'], code: 'echo hi' },
      { file: 'x.md', line: 6, lang: 'ts', flags: [], code: 'const a = 1;' },
      { file: 'x.md', line: 9, lang: 'md', flags: [], code: '```sh run\nnested\n```' },
    ]);
  });

  it('runs a TypeScript fragment with its imports on top and the rest in an async function', () => {
    const program = tsProgram("import {\n  a,\n} from 'x';\nimport b from 'y'\nawait a(b);");
    expect(program.split('\n').slice(0, 6)).toEqual([
      'import {',
      '  a,',
      "} from 'x';",
      "import b from 'y'",
      '(async () => {',
      'await a(b);',
    ]);
  });

  it('the docs say what the code does, never which issue did it', () => {
    const root = join(__dirname, '..', '..');
    // Every page and example file (an example's installed node_modules and its reports are not ours).
    const walk = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory()
          ? ['node_modules', 'perf-report'].includes(e.name)
            ? []
            : walk(`${dir}/${e.name}`)
          : [`${dir}/${e.name}`],
      );
    const files = ['README.md', ...walk('docs'), ...walk('examples')].filter((f) =>
      /\.(md|ts|js|json)$/.test(f),
    );
    const mentions = files.flatMap((f) =>
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\bissues?\b(?! (twice|ops|each))/i.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(mentions).toEqual([]);
  });

  it("the README's published-package section uses what the package has: its bin, run's flags, the entry's exports", () => {
    const root = join(__dirname, '..', '..');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('### From the published package'),
      readme.indexOf('\n## ', readme.indexOf('### From the published package')),
    );
    const blocks = codeBlocks(section, 'README.md');
    const sh = blocks.find((b) => b.lang === 'sh')!.code;
    const ts = blocks.find((b) => b.lang === 'ts')!.code;
    expect(sh).toMatch(/^npm install mongo-bench$/m);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      files: string[];
    };
    expect(Object.keys(pkg.bin)).toEqual(['mongo-bench']);
    expect(pkg.files).toEqual(expect.arrayContaining(['bin', 'dist', 'examples']));
    const runFlags = buildProgram(captureContext())
      .commands.find((c) => c.name() === 'run')!
      .options.map((o) => o.long);
    for (const flag of sh.match(/ --[a-z-]+/g) ?? [])
      if (flag.trim() !== '--help') expect(runFlags).toContain(flag.trim());
    const imported = /import \{([^}]+)\} from 'mongo-bench'/
      .exec(ts)![1]
      .split(',')
      .map((n) => n.trim());
    for (const name of imported)
      expect(typeof (entry as Record<string, unknown>)[name]).toBe('function');
  });

  it('the pages mark blocks to run (the API example among them)', () => {
    expect(BLOCKS.map((b) => b.file)).toEqual(
      expect.arrayContaining(['docs/api.md', 'docs/topology.md']),
    );
    for (const b of BLOCKS) expect(['sh', 'bash', 'ts']).toContain(b.lang);
  });
});

describeNeeding('crud', 'code blocks of the docs that say they run', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'mb-doc-blocks-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test.each(BLOCKS.map((b) => [`${b.file}:${b.line} (${b.lang})`, b] as const))(
    '%s',
    async (_name, block) => {
      const cwd = mkdtempSync(join(scratch, 'block-'));
      const run = await runBlock(block, cwd, crudUri(), 110_000);
      if (run.code !== 0)
        throw new Error(
          `${block.file}:${block.line}: exit ${run.code}\n--- block ---\n${block.code}\n--- output ---\n${run.output}`,
        );
    },
    120_000,
  );
});
