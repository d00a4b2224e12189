/**
 * Every drop and every emptying of a collection in lib/ goes through the data guard
 * (lib/server/data-guard.ts), which refuses to destroy what mongo-bench did not load. This reads every
 * lib file with TypeScript's own parser and fails on a call of `.drop()`, `.dropDatabase()`,
 * `.dropCollection()`, `.deleteMany({})` or a `{ drop: ... }` / `{ dropDatabase: ... }` command document
 * anywhere else, naming the file and line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { isBooleanish, libSourceFiles, REPO_ROOT } from './lib-sources';

const root = REPO_ROOT;
const GUARD = 'lib/server/data-guard.ts';
/** Files that may name these commands, and why: none of them destroys anything of its own accord. */
const EXEMPT: Record<string, string> = {
  // The mongo-perf shell emulation records the commands a user's test script asks for (its own dropDatabase() etc.).
  'lib/workload/language/mongo-perf/shell-recorder.ts':
    "records a user's mongo-perf script, runs nothing",
  // mongo-perf's set-up recorded as steps; lib/prepare/setup.ts runs a drop step through the guard.
  'lib/workload/language/mongo-perf/load-suite.ts': 'records set-up steps, runs nothing',
  // YCSB's load as set-up steps (the ycsb-* presets); lib/prepare/setup.ts runs the drop step through the guard.
  'lib/workload/language/ycsb-workloads.ts': 'writes set-up steps, runs nothing',
  // The index-cost preset's set-up as steps; lib/prepare/setup.ts runs the drop step through the guard.
  'lib/experiments/index-cost/index.ts': 'writes set-up steps, runs nothing',
};

const DROPPING_CALLS = new Set(['drop', 'dropDatabase', 'dropCollection']);
const COMMAND_KEYS = new Set(['drop', 'dropDatabase']);

/** "file:line: what" for each drop or emptying found in one source file. */
export function findDrops(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = node.expression.name.text;
      if (DROPPING_CALLS.has(name)) found.push(`${at(node)}: .${name}()`);
      const first = node.arguments[0];
      if (
        name === 'deleteMany' &&
        (first === undefined ||
          (ts.isObjectLiteralExpression(first) && first.properties.length === 0))
      )
        found.push(`${at(node)}: .deleteMany({})`);
    }
    // A command document names its command first: { drop: 'coll' }, { dropDatabase: 1 }.
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 0) {
      const key = node.properties[0];
      if (
        ts.isPropertyAssignment(key) &&
        (ts.isIdentifier(key.name) || ts.isStringLiteral(key.name)) &&
        COMMAND_KEYS.has(key.name.text) &&
        !isBooleanish(key.initializer)
      ) {
        found.push(`${at(node)}: { ${key.name.text}: ... } command`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('drops and emptyings in lib/ go through the data guard', () => {
  const files = libSourceFiles();

  it('finds each form it looks for (the checker itself)', () => {
    const sample = [
      'await coll.drop();',
      'await db.dropDatabase();',
      "await db.dropCollection('x');",
      'await coll.deleteMany({});',
      'await coll.deleteMany();',
      'await db.command({ drop: name });',
      'await db.command({ dropDatabase: 1 });',
      // Not drops: a filtered delete, an option named drop.
      'await coll.deleteMany({ a: 1 });',
      'const o = { drop: flags.drop === true, x: 1 };',
    ].join('\n');
    expect(findDrops('sample.ts', sample)).toEqual([
      'sample.ts:1: .drop()',
      'sample.ts:2: .dropDatabase()',
      'sample.ts:3: .dropCollection()',
      'sample.ts:4: .deleteMany({})',
      'sample.ts:5: .deleteMany({})',
      'sample.ts:6: { drop: ... } command',
      'sample.ts:7: { dropDatabase: ... } command',
    ]);
  });

  it('the guard module is where they are', () => {
    expect(findDrops(GUARD, readFileSync(join(root, GUARD), 'utf8')).length).toBeGreaterThan(0);
  });

  it('has none outside lib/server/data-guard.ts', () => {
    const outside = files
      .filter((f) => f !== GUARD && !(f in EXEMPT))
      .flatMap((f) => findDrops(f, readFileSync(join(root, f), 'utf8')));
    expect(outside).toEqual([]);
  });
});
