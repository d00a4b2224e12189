/**
 * The op registry's rules (docs/architecture.md, "Op kinds"): one module per op kind in
 * lib/workload/language/ops/, each registered by one line in OP_KINDS, each with its row in
 * docs/workload.md's op table and a test that names it; the modules import only the workload
 * language, config and common (the driver handle is handed to `bind`), which the import graph checks.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OP_KINDS } from '../../lib/workload/language/ops';
import type { OpKind } from '../../lib/workload/language/ops/op-kind';
import { readImportGraph } from './import-graph';

const root = join(__dirname, '..', '..');
const folder = 'lib/workload/language/ops';
/** The registry and the shape of a kind: every other file of the folder is one op kind. */
const NOT_KINDS = ['index.ts', 'op-kind.ts'];

const kebab = (type: string) => type.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function isKind(value: unknown): value is OpKind {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as OpKind).type === 'string' &&
    typeof (value as OpKind).parse === 'function'
  );
}

describe('the op kinds (lib/workload/language/ops)', () => {
  const files = readdirSync(join(root, folder)).filter(
    (f) => f.endsWith('.ts') && !NOT_KINDS.includes(f),
  );
  const registered = Object.entries(OP_KINDS) as [string, OpKind][];

  it('has one module per kind, named after its type, each registered in OP_KINDS under its type', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
    const strays: string[] = [];
    for (const file of files) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const exported = require(join(root, folder, file)) as Record<string, unknown>;
      const kinds = Object.values(exported).filter(isKind);
      if (kinds.length !== 1)
        strays.push(`${file}: exports ${kinds.length} op kinds (one per module)`);
      for (const kind of kinds) {
        if (OP_KINDS[kind.type as keyof typeof OP_KINDS] !== kind)
          strays.push(`${file}: ${kind.type} is not registered in OP_KINDS (${folder}/index.ts)`);
        if (file !== `${kebab(kind.type)}.ts`)
          strays.push(`${file}: holds ${kind.type}, expected in ${kebab(kind.type)}.ts`);
      }
    }
    expect(strays).toEqual([]);
    expect(registered.map(([key]) => `${kebab(key)}.ts`).sort()).toEqual([...files].sort());
  });

  it('gives every registered type a module of its own and a key equal to its type', () => {
    for (const [key, kind] of registered) expect(kind.type).toBe(key);
    expect(new Set(registered.map(([, kind]) => kind)).size).toBe(registered.length);
  });

  it('has every op name once (types and benchRun aliases)', () => {
    const names = registered.flatMap(([, kind]) => [kind.type, ...(kind.aliases ?? [])]);
    expect(names.length).toBe(new Set(names).size);
  });

  it("has a row for every op in docs/workload.md's op table and a test that names it", () => {
    const doc = readFileSync(join(root, 'docs', 'workload.md'), 'utf8');
    const tests = readdirSync(join(root, 'test', 'workload'))
      .filter((f) => f.startsWith('op-') && f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(root, 'test', 'workload', f), 'utf8'))
      .join('\n');
    const missing: string[] = [];
    for (const [type] of registered) {
      if (!new RegExp(`^\\| \`${type}\``, 'm').test(doc))
        missing.push(`${type}: no row in docs/workload.md's op table`);
      if (!tests.includes(`op: '${type}'`))
        missing.push(`${type}: no test/workload/op-*.test.ts runs {op: '${type}'}`);
    }
    expect(missing).toEqual([]);
  });

  it('keeps the modules in the workload language: they import only it, config and common (the driver is handed in)', () => {
    const libFiles = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard', 'lib'],
      { cwd: root, encoding: 'utf8' },
    )
      .split('\n')
      .filter((file) => file.endsWith('.ts'));
    const graph = readImportGraph(root, libFiles);
    const allowed = ['lib/workload/language/', 'lib/config/', 'lib/common/'];
    const strays = [...graph]
      .filter(([file]) => file.startsWith(`${folder}/`))
      .flatMap(([file, targets]) =>
        targets.filter((t) => !allowed.some((a) => t.startsWith(a))).map((t) => `${file} -> ${t}`),
      );
    expect(strays).toEqual([]);
  });
});
