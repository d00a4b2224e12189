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

const BLOCKS = runnableBlocks();

describe('the doc-block convention', () => {
  it('finds fenced blocks with their language, flags and line', () => {
    const md = 'text\n```sh run\necho hi\n```\n\n~~~ts\nconst a = 1;\n~~~\n````md\n```sh run\nnested\n```\n````\n```` ```ts run ```` is inline code\n';
    expect(codeBlocks(md, 'x.md')).toEqual([
      { file: 'x.md', line: 2, lang: 'sh', flags: ['run'], code: 'echo hi' },
      { file: 'x.md', line: 6, lang: 'ts', flags: [], code: 'const a = 1;' },
      { file: 'x.md', line: 9, lang: 'md', flags: [], code: '```sh run\nnested\n```' },
    ]);
  });

  it('runs a TypeScript fragment with its imports on top and the rest in an async function', () => {
    const program = tsProgram("import {\n  a,\n} from 'x';\nimport b from 'y'\nawait a(b);");
    expect(program.split('\n').slice(0, 6)).toEqual(['import {', '  a,', "} from 'x';", "import b from 'y'", '(async () => {', 'await a(b);']);
  });

  it('the docs say what the code does, never which issue did it', () => {
    const root = join(__dirname, '..', '..');
    const files = ['README.md', ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).map((f) => `docs/${f}`), ...readdirSync(join(root, 'examples'), { recursive: true, encoding: 'utf8' }).map((f) => `examples/${f}`)]
      .filter((f) => /\.(md|ts|js|json)$/.test(f) && !f.includes('node_modules'));
    const mentions = files.flatMap((f) =>
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bissues?\b(?! (twice|ops|each))/i.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(mentions).toEqual([]);
  });

  it('the pages mark blocks to run (the API example among them)', () => {
    expect(BLOCKS.map((b) => b.file)).toEqual(expect.arrayContaining(['docs/api.md', 'docs/topology.md']));
    for (const b of BLOCKS) expect(['sh', 'bash', 'ts']).toContain(b.lang);
  });
});

describeNeeding('crud', 'code blocks of the docs that say they run', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'mb-doc-blocks-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test.each(BLOCKS.map((b) => [`${b.file}:${b.line} (${b.lang})`, b] as const))('%s', async (_name, block) => {
    const cwd = mkdtempSync(join(scratch, 'block-'));
    const run = await runBlock(block, cwd, crudUri(), 110_000);
    if (run.code !== 0) throw new Error(`${block.file}:${block.line}: exit ${run.code}\n--- block ---\n${block.code}\n--- output ---\n${run.output}`);
  }, 120_000);
});
