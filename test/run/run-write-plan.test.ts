/**
 * The run's write plan from its options (lib/run/options/run-write-plan.ts), before anything connects: an
 * entry for every source (the loader, each write op by its own namespace, set-up steps, --store, agents'
 * control database, --setup's cluster changes), the consents given, and what is refused at once (system and
 * invalid namespaces, a namespace made by a template, --drop of --docs-like's source). Nothing here connects.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import type { RunFlags } from '../../lib/run/options/run-options';
import { loadReplaces, planProblems } from '../../lib/run/options/run-write-plan';
import { renderDryRun } from '../../lib/run/options/dry-run';
import { describeEntry, NamespaceEntry, WriteEntry } from '../../lib/server/write-plan';
import { compareHello, hostsOf, sameHostsByName } from '../../lib/server/same-deployment';
import { usageMessage } from '../support/cli';

const URI = 'mongodb://127.0.0.1:1';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-write-plan-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function workloadFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}
const plan = (flags: Partial<RunFlags>) => resolveRunPlan(flags as RunFlags, { env: {} });
const namespaces = (entries: WriteEntry[]) =>
  entries
    .filter((e): e is NamespaceEntry => e.kind === 'namespace' && e.source !== 'marker')
    .map((e) => ({
      what: `${e.action} ${e.db}${e.coll !== undefined ? `.${e.coll}` : ''}`,
      source: e.source,
      consent: e.consent,
    }));

describe("the run's write plan", () => {
  it('the loader recreates the benchmark namespace (--drop), the workload writes where its ops say (--no-load)', () => {
    const p = plan({ uri: URI, workload: '6to1', drop: true });
    expect(p.writePlan.ours).toBe(false);
    expect([...p.writePlan.consents]).toEqual(['--drop']);
    expect(namespaces(p.writePlan.entries)).toEqual([
      { what: 'recreate mongo_bench.docs', source: 'loader', consent: '--drop' },
      { what: 'write mongo_bench.docs', source: 'workload', consent: '--no-load' },
    ]);
    expect(loadReplaces(p.writePlan).map(describeEntry)).toEqual([
      "recreate mongo_bench.docs (the built-in loader's documents: 10000 documents)",
    ]);
    // Where the load is marked as mongo-bench's: listed too.
    expect(
      p.writePlan.entries
        .filter((e) => e.kind === 'namespace' && e.source === 'marker')
        .map(describeEntry),
    ).toEqual([
      "write mongo_bench.mongo_bench_owner (mongo-bench's owner marker: records docs as mongo-bench's)",
    ]);
  });

  it("each write op's own namespace, a command op's by what it names; reads are not writes", () => {
    const file = workloadFile('ops.json', [
      { op: 'findOne', ns: 'shop.users', query: {} },
      { op: 'update', ns: 'shop.orders', query: {}, update: { $set: { a: 1 } } },
      { op: 'insert', ns: 'shop.orders', doc: { a: 1 } },
      { op: 'command', ns: 'shop', command: { delete: 'carts', deletes: [] } },
      { op: 'command', ns: 'shop', command: { find: 'carts' } },
    ]);
    const p = plan({ uri: URI, workloadFile: file, ns: 'scratch.t', load: false });
    expect([...p.writePlan.consents]).toEqual(['--no-load']);
    expect(namespaces(p.writePlan.entries)).toEqual([
      { what: 'write shop.orders', source: 'workload', consent: '--no-load' },
      { what: 'write shop.carts', source: 'workload', consent: '--no-load' },
    ]);
    const orders = p.writePlan.entries.find((e) => e.kind === 'namespace' && e.coll === 'orders')!;
    expect(describeEntry(orders)).toBe(
      "write shop.orders (the workload's write ops: op 1 (update), op 2 (insert))",
    );
  });

  it("a workload file's top-level ns is its namespace: its set-up and writes go there; --ns still wins", () => {
    const file = workloadFile('mine.json', {
      ns: 'mine.t',
      setup: [
        { command: { drop: 't' } },
        { command: { createIndexes: 't', indexes: [{ key: { a: 1 }, name: 'a_1' }] } },
        { documents: [{ _id: 1 }] },
        { command: { delete: 'users', deletes: [{ q: {}, limit: 0 }] }, db: 'app' },
      ],
      ops: [{ op: 'insert', doc: { x: 1 } }],
    });
    const p = plan({ uri: URI, workloadFile: file });
    expect(p.benchmark.ns).toBe('mine.t');
    expect(p.db).toBe('mine');
    expect(namespaces(p.writePlan.entries)).toEqual([
      { what: 'drop mine.t', source: 'setup', consent: '--allow-setup-writes' },
      { what: 'index mine.t', source: 'setup', consent: '--allow-setup-writes' },
      { what: 'fill mine.t', source: 'setup', consent: '--allow-setup-writes' },
      { what: 'write app.users', source: 'setup', consent: '--allow-setup-writes' },
      { what: 'write mine.t', source: 'workload', consent: '--no-load' },
    ]);
    expect(plan({ uri: URI, workloadFile: file, ns: 'other.t' }).benchmark.ns).toBe('other.t');
    expect([
      ...plan({ uri: URI, workloadFile: file, allowSetupWrites: true }).writePlan.consents,
    ]).toEqual(['--allow-setup-writes']);
  });

  it("a preset's own load (YCSB's records) is that preset's loader: --drop's", () => {
    const p = plan({ uri: URI, workload: 'ycsb-a' });
    const setup = namespaces(p.writePlan.entries).filter((e) => e.source === 'loader');
    expect(setup.length).toBeGreaterThan(0);
    expect(setup.every((e) => e.consent === '--drop')).toBe(true);
    expect(setup.map((e) => e.what)).toContain('drop mongo_bench.docs');
  });

  it("--store's collection, agents' control database and --setup's cluster changes are listed", () => {
    const p = plan({
      uri: 'mongodb://127.0.0.1:1',
      setup: true,
      stopBalancer: true,
      store: 'mongodb://store.example:27017/team.results',
      agents: 2,
      controlUri: 'mongodb://ctl:secret@127.0.0.1:2',
    });
    const store = p.writePlan.entries.find((e) => e.kind === 'namespace' && e.source === 'store');
    expect(store).toMatchObject({ db: 'team', coll: 'results', on: 'store', consent: null });
    const control = p.writePlan.entries.find(
      (e) => e.kind === 'namespace' && e.source === 'control-db',
    );
    expect(control).toMatchObject({ db: 'mongo_bench_control', on: 'control', consent: null });
    expect(describeEntry(control!)).not.toContain('secret');
    expect(
      p.writePlan.entries
        .filter((e) => e.kind === 'server')
        .map((e) => e.kind === 'server' && e.change),
    ).toEqual(['enable-sharding', 'shard-collection', 'split', 'move-chunk', 'balancer']);
    expect(p.writePlan.consents.has('--setup')).toBe(true);
    // The loader keeps the collection --setup shards: it empties it.
    expect(namespaces(p.writePlan.entries)[0].what).toBe('empty mongo_bench.docs');
    // A folder store is no namespace.
    expect(
      plan({ uri: URI, store: join(dir, 'store') }).writePlan.entries.some(
        (e) => e.kind === 'namespace' && e.source === 'store',
      ),
    ).toBe(false);
  });

  it('a system or invalid namespace, and one made by a template, is refused before anything starts (not on a deployment mongo-bench starts)', () => {
    for (const flags of [
      { drop: true, db: 'admin' },
      { ns: 'admin.x' },
      { ns: 'app.system.views' },
    ]) {
      const text = usageMessage(() => plan({ uri: URI, ...flags }));
      expect(text).toMatch(/nothing was written: .* refused/);
      expect(text).toMatch(/recreate (admin|app)\.\S+ \(the built-in loader's documents/);
    }
    const templated = workloadFile('templated.json', {
      ops: [{ op: 'findOne', query: {} }],
      setup: [{ command: { drop: { '#RAND_STRING': [8] } } }],
    });
    expect(usageMessage(() => plan({ uri: URI, workloadFile: templated }))).toContain(
      'set-up step 1',
    );
    // Embedded: everything on it is mongo-bench's own.
    const ours = plan({ ns: 'admin.x' });
    expect(ours.writePlan.ours).toBe(true);
    expect(planProblems(ours.writePlan)).toBeUndefined();
  });

  it("--drop of --docs-like's source is refused by name: db.coll, or a URI of the target's host", () => {
    expect(
      usageMessage(() => plan({ uri: URI, ns: 'app.users', docsLike: 'app.users', drop: true })),
    ).toContain("option --drop: it drops app.users, which is --docs-like's source app.users");
    expect(
      usageMessage(() =>
        plan({
          uri: URI,
          ns: 'app.users',
          docsLike: 'mongodb://127.0.0.1:1/app.users',
          drop: true,
        }),
      ),
    ).toContain('at mongodb://127.0.0.1:1');
    // Another collection of the same database: --drop drops only the load's.
    expect(
      plan({ uri: URI, ns: 'app.other', docsLike: 'app.users', drop: true }).writePlan.entries[0],
    ).toMatchObject({ action: 'recreate', db: 'app', coll: 'other', source: 'docs-like' });
  });

  it('--dry-run prints every entry of the plan, and the data line names what the workload writes', () => {
    const file = workloadFile('orders.json', [{ op: 'insert', ns: 'shop.orders', doc: { a: 1 } }]);
    const text = renderDryRun(plan({ uri: URI, workloadFile: file, ns: 'scratch.t', load: false }));
    expect(text).toContain(
      'Writes (each checked against what the server holds before the first write; consents given: --no-load):',
    );
    expect(text).toContain("  write shop.orders (the workload's write ops: op 0 (insert))");
    expect(text).toContain("the workload's own writes change the documents in shop.orders");
  });
});

describe('the same deployment', () => {
  it('by name: host lists overlap (default port, case)', () => {
    expect(hostsOf('mongodb://u:p@Db1,db2:27018/app?x=1')).toEqual(['db1:27017', 'db2:27018']);
    expect(sameHostsByName('mongodb://db1:27017/app.users', 'mongodb://DB1')).toBe(true);
    expect(sameHostsByName('mongodb://db1:27017', 'mongodb://db2:27017')).toBe(false);
    expect(sameHostsByName('mongodb+srv://cluster.example', 'mongodb://db2')).toBe(false);
  });

  it('by hello: the same process, or the same replica set; without a process id it is taken as the same', () => {
    const id = (hex: string) => ({ toHexString: () => hex });
    expect(
      compareHello(
        { topologyVersion: { processId: id('a') } },
        { topologyVersion: { processId: id('a') } },
      ).same,
    ).toBe(true);
    expect(
      compareHello(
        { topologyVersion: { processId: id('a') }, setName: 'rs', hosts: ['h1:1', 'h2:1'] },
        { topologyVersion: { processId: id('b') }, setName: 'rs', hosts: ['h2:1'] },
      ).same,
    ).toBe(true);
    expect(
      compareHello(
        { topologyVersion: { processId: id('a') } },
        { topologyVersion: { processId: id('b') } },
      ).same,
    ).toBe(false);
    expect(compareHello({}, { topologyVersion: { processId: id('b') } }).same).toBe(true);
  });
});
