/**
 * Every write lib/ sends is one of a known few: the workload's, through the handle its checked write plan
 * gives each op (lib/workload/engine/write-handles.ts), or one of the files listed below, each with why it
 * may write. This reads every lib file with TypeScript's own parser and fails on a call of a driver write
 * method (insertOne ... renameCollection, every drop) or a write command document (`{ insert: ... }`: its
 * first key one of lib/server/command-writes.ts's WRITE_COMMAND_NAMES; or a `$out` / `$merge` stage)
 * anywhere else, naming the file and line. Drops and emptyings are narrower still: only the data guard
 * (./drop-guard.test.ts).
 *
 * A file listed here that writes a user's namespace without the write plan says so in its reason: the
 * list is what lib/ writes, not a judgement that each is planned.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { isBooleanish, libSourceFiles, REPO_ROOT } from './lib-sources';
import { WRITE_COMMAND_NAMES, WRITE_STAGES } from '../../lib/server/command-writes';

const root = REPO_ROOT;

/** The files that may write, and why. */
const ALLOWED: Record<string, string> = {
  // The workload's ops: each sends through the Db its bind got from write-handles.ts (the plan enforced there).
  'lib/workload/language/ops/insert.ts': 'an op kind: sends through the handle it is bound with',
  'lib/workload/language/ops/update.ts': 'an op kind: sends through the handle it is bound with',
  'lib/workload/language/ops/remove.ts': 'an op kind: sends through the handle it is bound with',
  'lib/workload/language/ops/read-modify-write.ts':
    'an op kind: sends through the handle it is bound with',
  // The plan's other entries, written after lib/run/write-check.ts passed them.
  'lib/prepare/loader.ts':
    "the loader: the namespace of the plan's loader entry, after the check (bench/engine.ts also loads --uri's without a plan)",
  'lib/prepare/setup.ts': "set-up steps' inserts: the plan's setup entries, after the check",
  'lib/server/data-guard.ts':
    "the data guard: every drop and emptying, refused unless the namespace is mongo-bench's or consented to",
  'lib/topology/plan.ts':
    "the chunk-size step (config.settings) of a topology: a cluster mongo-bench started, or --setup's plan entry",
  // mongo-bench's own bookkeeping.
  'lib/server/ownership.ts': "the owner marker (<db>.mongo_bench_owner): mongo-bench's own record",
  'lib/store/mongo-store.ts': 'the results store (--store): its own collection',
  'lib/store/check.ts': "the results store's write probe (--store), before the run",
  'lib/agents/control.ts': "agents' control database (--control-db): its indexes",
  'lib/agents/coordinator.ts': "agents' control database: runs and steps",
  'lib/agents/agent.ts': "agents' control database: agents, claimed runs",
  'lib/agents/agent-step.ts': "agents' control database: a step's progress and measurement",
  'lib/matrix/target-probe.ts':
    "the matrix's capability probes: a scratch collection of its own (probe_*_<pid>), refused where one not its own is there",
  'lib/server/cluster-state.ts':
    "sets the chunk size in config.settings back as the run found it: the plan's chunk-size entry (--setup), restored at the end",
  'lib/calibrate/plain-loop.ts':
    'the yardstick loop: on the null server calibrate spawned (bench/engine.ts also runs it on --uri, without a plan)',
  // Documents that name commands and send nothing.
  'lib/calibrate/null-server.ts':
    "the null server (a stand-in of the tool's own): its opcounters are named like a mongod's, it sends nothing",
  'lib/server/command-writes.ts': 'names commands to classify them (ALIASES), sends nothing',
  'lib/workload/language/mongo-perf/shell-recorder.ts':
    "records a user's mongo-perf script, runs nothing",
  'lib/workload/language/mongo-perf/load-suite.ts': 'records set-up steps, runs nothing',
  'lib/workload/language/ycsb-workloads.ts': 'writes set-up steps, runs nothing',
  // The index-cost preset's set-up (drop, create, createIndexes) as steps, run by lib/prepare/setup.ts.
  'lib/experiments/index-cost/index.ts': 'writes set-up steps, runs nothing',
  'lib/capture/query-stats.ts':
    "renders a captured write shape as a workload op's command, runs nothing",
  // Writes of the namespaces a plan lists, checked before the first write (lib/run/write-check.ts).
  'lib/api/workload-test.ts':
    "fills and indexes its ns: the helper's own entry of the write plan it checks before its load (helperWritePlan)",
  'lib/run/scenarios/background-events.ts':
    "builds the index a configured createIndex event names: an `index` entry of the run's plan (source event), checked before the run",
  'lib/experiments/most/run-most.ts':
    "creates and fills the experiment's collection: an entry of the matrix's write plan (lib/matrix/matrix-write-plan.ts), checked before anything is written",
  'lib/experiments/presplit-import/importer.ts':
    "fills the experiment's collection: an entry of the matrix's write plan (its collectionsOf), checked before anything is written",
  'lib/experiments/presplit-import/housekeeping.ts':
    "sets the cluster's chunk size back as it found it (config.settings): the matrix plan's --setup entry for the experiment",
  'lib/experiments/write-concern-latency/run-latency.ts':
    "inserts into the experiment's collection: an entry of the matrix's write plan (lib/matrix/matrix-write-plan.ts), checked before anything is written",
};

/** A driver Db's, Collection's or MongoClient's methods that write. */
const WRITE_METHODS = new Set([
  'insertOne',
  'insertMany',
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'bulkWrite',
  'findOneAndUpdate',
  'findOneAndReplace',
  'findOneAndDelete',
  'createIndex',
  'createIndexes',
  'dropIndex',
  'dropIndexes',
  'createCollection',
  'rename',
  'renameCollection',
  'drop',
  'dropDatabase',
  'dropCollection',
]);
const COMMAND_KEYS = new Set(WRITE_COMMAND_NAMES);
const STAGE_KEYS = new Set(WRITE_STAGES);

/** "file:line: what" for each write found in one source file. */
export function findWrites(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = node.expression.name.text;
      if (WRITE_METHODS.has(name)) found.push(`${at(node)}: .${name}()`);
    }
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 0) {
      // A command document names its command first: { insert: 'coll', documents }.
      const first = keyOf(node.properties[0]);
      if (first && COMMAND_KEYS.has(first.name) && !isBooleanish(first.value))
        found.push(`${at(node)}: { ${first.name}: ... } command`);
      // A stage of a pipeline that writes: { $out: 'coll' }, { $merge: { into } }.
      for (const property of node.properties) {
        const key = keyOf(property);
        if (key && STAGE_KEYS.has(key.name)) found.push(`${at(node)}: { ${key.name}: ... } stage`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The name and value of `name: value`, `'name': value` or a shorthand `name`. */
function keyOf(
  property: ts.ObjectLiteralElementLike,
): { name: string; value?: ts.Expression } | undefined {
  if (ts.isShorthandPropertyAssignment(property)) return { name: property.name.text };
  if (
    ts.isPropertyAssignment(property) &&
    (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
  )
    return { name: property.name.text, value: property.initializer };
  return undefined;
}

describe("lib/ writes only through the workload's guarded handles or a listed file", () => {
  const files = libSourceFiles();
  const writesOf = (f: string) => findWrites(f, readFileSync(join(root, f), 'utf8'));

  it('finds each form it looks for (the checker itself)', () => {
    const methods = [...WRITE_METHODS].map((m) => `await x.${m}(a);`);
    const commands = [...WRITE_COMMAND_NAMES].map((c) => `send({ ${c}: name, x: 1 });`);
    const sample = [
      ...methods,
      ...commands,
      "send({ 'findAndModify': name });",
      'send({ insert, documents });',
      "pipeline.push({ $out: 'copy' });",
      "pipeline.push({ '$merge': { into: 'copy' } });",
      'await x?.insertOne(doc);',
      // Not writes: reads, an option named like a command, a command not first, a bare function.
      'await x.findOne({ a: 1 });',
      "await db.command({ find: 'c', insert: 1 });",
      'const o = { drop: flags.drop === true, create: true, update: z.boolean() };',
      'await rename(a, b);',
    ].join('\n');
    const line = (n: number) => `sample.ts:${n}`;
    expect(findWrites('sample.ts', sample)).toEqual([
      ...[...WRITE_METHODS].map((m, i) => `${line(i + 1)}: .${m}()`),
      ...[...WRITE_COMMAND_NAMES].map(
        (c, i) => `${line(methods.length + i + 1)}: { ${c}: ... } command`,
      ),
      `${line(methods.length + commands.length + 1)}: { findAndModify: ... } command`,
      `${line(methods.length + commands.length + 2)}: { insert: ... } command`,
      `${line(methods.length + commands.length + 3)}: { $out: ... } stage`,
      `${line(methods.length + commands.length + 4)}: { $merge: ... } stage`,
      `${line(methods.length + commands.length + 5)}: .insertOne()`,
    ]);
  });

  it('looks for every command lib/server/command-writes.ts reads as a write', () => {
    expect([...COMMAND_KEYS]).toEqual(
      expect.arrayContaining([
        'insert',
        'update',
        'delete',
        'findAndModify',
        'findandmodify',
        'create',
        'createIndexes',
        'drop',
        'dropDatabase',
        'renameCollection',
        'collMod',
      ]),
    );
  });

  it('has none outside the listed files', () => {
    const outside = files.filter((f) => !(f in ALLOWED)).flatMap(writesOf);
    expect(outside).toEqual([]);
  });

  it('lists no file that no longer writes, nor one that is not there', () => {
    const stale = Object.keys(ALLOWED).filter(
      (f) => !files.includes(f) || writesOf(f).length === 0,
    );
    expect(stale).toEqual([]);
  });

  it('gives each listed file its reason', () => {
    for (const [file, reason] of Object.entries(ALLOWED))
      expect({ file, reason: reason.length > 10 }).toEqual({ file, reason: true });
  });
});
