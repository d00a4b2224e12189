/**
 * The harm suite. A user's world is seeded on the CRUD test double (a deployment mongo-bench did not
 * start): collections shaped like the loader's, capped, empty with the user's index, recreated under a stale
 * marker, named like a results store's, a control database's and the matrix presets' collections, a view
 * where the server has views; and a folder of the user's files named like every command's outputs. Every
 * command and option that writes is tried against it. After each case the whole world is compared by
 * checksum (documents, indexes, options, files): a refusal must be exit 2 naming the entry and leave
 * everything as it was, with no marker and no file left behind; a consented case must leave every user
 * collection and file unchanged, and write only where its consent points.
 *
 * The cases are keyed by the write plan's entry kinds (every write source, every server change, files): a
 * kind added to lib/server/write-plan.ts without a case here fails the suite. FerretDB is not built on
 * this machine: the suite runs on the CRUD double only, and says so.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { benchmarkWorkload } from '../../lib/api/workload-test';
import {
  CONSENTS,
  judgeServerChange,
  SERVER_CHANGES,
  ServerChangeKind,
  WRITE_SOURCES,
  WriteSource,
} from '../../lib/server/write-plan';
import { probeCollections } from '../../lib/matrix/matrix-write-plan';
import { runCli } from '../support/cli';
import { QUICK_RUN } from '../support/quick-run';
import {
  seedFolder,
  seedWorld,
  snapshotWorld,
  WORLD,
  WorldSeed,
  worldChanges,
  WorldSnapshot,
} from '../support/harm-world';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const FIXTURES = join(__dirname, '..', 'fixtures');
const RESULT = join(FIXTURES, 'result-complete.json');

type Kind = WriteSource | ServerChangeKind | 'file';
/** A refusal writes nothing at all; a consented case changes nothing of the user's. */
type Outcome = 'refused' | 'consented';

interface HarmCase {
  title: string;
  kinds: Kind[];
  /** The commands (or API) it exercises: every command that writes has a case. */
  commands: string[];
  run(): Promise<Outcome>;
}

/** Every CLI command that writes data or files, and the jest helpers' API. */
const WRITING_COMMANDS = [
  'run',
  'matrix',
  'perf-suite',
  'agent',
  'capture',
  'report',
  'compare',
  'history',
  'import',
  'scripts',
  'diskperf',
  'calibrate',
  'api:benchmarkWorkload',
];

const QUICK = [...QUICK_RUN, '--quiet'];

describeNeeding('crud', "the harm suite: a user's world, every command that writes", () => {
  let client: MongoClient;
  let W: string;
  let root: string;
  let folder: string;
  let seeded: WorldSeed;
  let caseCount = 0;
  beforeAll(async () => {
    client = new MongoClient(crudUri());
    await client.connect();
    W = uniqueDbName('harm_world');
    seeded = await seedWorld(client, W);
    // A collection of the user's under the name the matrix's capped-collection probe takes in this process.
    await client.db(W).collection(probeCollections()[0]).insertOne({ mine: true });
    root = mkdtempSync(join(tmpdir(), 'mb-harm-'));
    folder = join(root, 'users-folder');
    seedFolder(folder);
    if (!seeded.capped)
      console.log(
        'harm suite: this server has no capped collections (mongo-java-server); the capped case runs on an ordinary one',
      );
    if (!seeded.view)
      console.log(
        'harm suite: this server has no views (mongo-java-server); the view case is skipped',
      );
    console.log(
      'harm suite: runs on the CRUD test double only (FerretDB, where built, runs the storage and index-cost suites, not this one)',
    );
  });
  afterAll(async () => {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  });

  const host = () => new URL(crudUri()).host;
  const ns = (coll: string) => `${W}.${coll}`;
  /** A fresh output folder of the case's own (not the user's). */
  const out = () => join(root, `out-${++caseCount}`);
  const scratchDb = () => uniqueDbName('harm_scratch');
  const file = (name: string, content: unknown) => {
    const path = join(root, `${++caseCount}-${name}`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const run = (...args: string[]) => runCli(['run', '--uri', crudUri(), ...QUICK, ...args]);

  /** Exit 2, naming each of `names` (an entry, a consent) in the refusal. */
  const refused = (r: { code: number; stderr: string }, ...names: string[]): Outcome => {
    expect({ code: r.code, names: names.filter((n) => !r.stderr.includes(n)) }).toEqual({
      code: 2,
      names: [],
    });
    expect(r.stderr).not.toContain('unexpected error');
    return 'refused';
  };
  const ran = (r: { code: number; stderr: string }): Outcome => {
    expect(r.code === 0 ? 'ran' : r.stderr).toBe('ran');
    return 'consented';
  };
  /** The API's refusal: a UsageError naming each of `names`. */
  const apiRefused = async (work: Promise<unknown>, ...names: string[]): Promise<Outcome> => {
    const err = await work.then(
      () => new Error('not refused'),
      (e: unknown) => e as Error,
    );
    expect(err.name).toBe('UsageError');
    for (const name of names) expect(err.message).toContain(name);
    return 'refused';
  };
  const helper = (input: Partial<Parameters<typeof benchmarkWorkload>[0]>) =>
    benchmarkWorkload({
      uri: crudUri(),
      ops: [{ op: 'update', query: { _id: 1 }, update: { $inc: { qty: 1 } } }],
      seconds: 1,
      clients: [1],
      trials: 1,
      warmup: 0,
      ...input,
    });
  /** A mongod 8.0 slow-query log of an app reading and deleting in `db.orders`. */
  const appLog = (db: string) =>
    file(
      'app.log',
      [
        { find: 'orders', filter: { item: 'espresso' }, $db: db },
        {
          delete: 'orders',
          deletes: [{ q: { item: 'espresso' }, limit: 1 }],
          ordered: true,
          $db: db,
        },
      ]
        .map((command, i) =>
          JSON.stringify({
            t: { $date: `2026-01-01T00:00:0${i}.000+00:00` },
            s: 'I',
            c: 'COMMAND',
            id: 51803,
            ctx: 'conn7',
            msg: 'Slow query',
            attr: {
              type: 'command',
              ns: i === 0 ? `${db}.orders` : `${db}.$cmd`,
              command,
              ...(i === 0 ? { nreturned: 1 } : {}),
              durationMillis: 150,
            },
          }),
        )
        .join('\n') + '\n',
    );

  const CASES: HarmCase[] = [
    {
      title:
        "the loader on a collection shaped like its own, with a field of the user's and no marker",
      kinds: ['loader', 'marker'],
      commands: ['run'],
      run: async () =>
        refused(
          await run('--ns', ns(WORLD.loaderShaped), '--out', out()),
          `recreate ${ns(WORLD.loaderShaped)}`,
          '--drop',
        ),
    },
    {
      title: "the loader on an empty collection carrying the user's index: never dropped",
      kinds: ['loader'],
      commands: ['run'],
      run: async () =>
        refused(
          await run('--ns', ns(WORLD.emptyIndexed), '--out', out()),
          ns(WORLD.emptyIndexed),
          'is empty but not',
        ),
    },
    {
      title: 'the loader on a collection the user recreated under a stale marker',
      kinds: ['loader'],
      commands: ['run'],
      run: async () =>
        refused(
          await run('--ns', ns(WORLD.recreated), '--out', out()),
          ns(WORLD.recreated),
          'changed since',
        ),
    },
    {
      title: 'the loader on a capped collection, with --trials 3',
      kinds: ['loader'],
      commands: ['run'],
      run: async () =>
        refused(
          await run('--ns', ns(seeded.capped ?? WORLD.orders), '--trials', '3', '--out', out()),
          ns(seeded.capped ?? WORLD.orders),
        ),
    },
    {
      title: 'the loader on a view (where the server has views)',
      kinds: ['loader'],
      commands: ['run'],
      run: async () => {
        if (!seeded.view) return 'refused';
        return refused(await run('--ns', ns(seeded.view), '--out', out()), ns(seeded.view));
      },
    },
    {
      title:
        '--drop --db admin and --ns config.x: system databases are refused before anything connects',
      kinds: ['loader'],
      commands: ['run'],
      run: async () => {
        refused(await run('--drop', '--db', 'admin', '--out', out()), 'admin');
        return refused(await run('--ns', 'config.x', '--out', out()), 'config.x');
      },
    },
    {
      title:
        "--drop with --docs-like naming the user's collection by URI, and --ns on it: the source is never dropped",
      kinds: ['docs-like'],
      commands: ['run'],
      run: async () =>
        refused(
          await run(
            '--drop',
            '--docs-like',
            `mongodb://${host()}/${ns(WORLD.orders)}`,
            '--ns',
            ns(WORLD.orders),
            '--out',
            out(),
          ),
          '--docs-like',
          ns(WORLD.orders),
        ),
    },
    {
      title:
        '--drop --docs-like mongodb://HOST/app.orders --ns scratch.t: samples, drops only scratch.t',
      kinds: ['docs-like'],
      commands: ['run'],
      run: async () =>
        ran(
          await run(
            '--drop',
            '--docs-like',
            `mongodb://${host()}/${ns(WORLD.orders)}`,
            '--ns',
            `${scratchDb()}.t`,
            '--out',
            out(),
          ),
        ),
    },
    {
      title:
        "a workload file's remove on the user's orders, with --ns elsewhere: refused naming it and --no-load",
      kinds: ['workload'],
      commands: ['run'],
      run: async () => {
        const ops = file('remove.json', {
          ops: [
            { op: 'findOne', query: {} },
            { op: 'remove', ns: ns(WORLD.orders), query: { item: 'espresso' } },
          ],
        });
        return refused(
          await run('--workload-file', ops, '--ns', `${scratchDb()}.t`, '--out', out()),
          `write ${ns(WORLD.orders)}`,
          '--no-load',
        );
      },
    },
    {
      title:
        "a workload file's top-level ns on the user's collection: its writes go there, so refused",
      kinds: ['workload'],
      commands: ['run'],
      run: async () => {
        const ops = file('top-ns.json', {
          ns: ns(WORLD.loaderShaped),
          ops: [{ op: 'insert', doc: { x: 1 } }],
        });
        return refused(await run('--workload-file', ops, '--out', out()), ns(WORLD.loaderShaped));
      },
    },
    {
      title:
        "a command op that writes through $out into the user's collection, and one whose target is a template",
      kinds: ['workload'],
      commands: ['run'],
      run: async () => {
        const out$ = file('out.json', {
          ops: [
            {
              op: 'command',
              ns: W,
              command: {
                aggregate: 'orders',
                pipeline: [{ $out: WORLD.loaderShaped }],
                cursor: {},
              },
            },
          ],
        });
        refused(
          await run('--workload-file', out$, '--ns', `${scratchDb()}.t`, '--out', out()),
          ns(WORLD.loaderShaped),
          '--no-load',
        );
        const templated = file('templated.json', {
          ops: [
            { op: 'command', ns: W, command: { insert: { '#RAND_STRING': [8] }, documents: [{}] } },
          ],
        });
        return refused(
          await run('--workload-file', templated, '--ns', `${scratchDb()}.t`, '--out', out()),
          'template',
        );
      },
    },
    {
      title:
        "a workload captured from the app's log, replayed: refused on the user's namespace; with --no-load on a copy it runs and names what it writes",
      kinds: ['workload'],
      commands: ['capture', 'run'],
      run: async () => {
        const captured = out();
        expect((await runCli(['capture', appLog(W), '--out', captured])).code).toBe(0);
        refused(
          await run(
            '--workload-file',
            join(captured, 'workload.json'),
            '--ns',
            `${scratchDb()}.t`,
            '--out',
            out(),
          ),
          ns(WORLD.orders),
          '--no-load',
        );
        // A copy of the user's orders in a database of the test's own: the consented replay writes there only.
        const copy = uniqueDbName('harm_copy');
        await client
          .db(copy)
          .collection('orders')
          .insertMany(await client.db(W).collection('orders').find().toArray());
        const copyCaptured = out();
        expect((await runCli(['capture', appLog(copy), '--out', copyCaptured])).code).toBe(0);
        const replay = await runCli([
          'run',
          '--uri',
          crudUri(),
          ...QUICK.filter((a) => a !== '--quiet'),
          '--workload-file',
          join(copyCaptured, 'workload.json'),
          '--ns',
          `${copy}.orders`,
          '--no-load',
          '--out',
          out(),
        ]);
        ran(replay);
        expect(replay.stderr).toContain(`${copy}.orders`);
        return 'consented';
      },
    },
    {
      title:
        "a set-up step deleting every document of the user's orders: refused naming --allow-setup-writes",
      kinds: ['setup'],
      commands: ['run'],
      run: async () => {
        const withDb = file('setup-db.json', {
          ns: `${W}.bench`,
          setup: [{ command: { delete: WORLD.orders, deletes: [{ q: {}, limit: 0 }] } }],
          ops: [{ op: 'findOne', query: {} }],
        });
        return refused(
          await run('--workload-file', withDb, '--out', out()),
          `${ns(WORLD.orders)}`,
          '--allow-setup-writes',
        );
      },
    },
    {
      title:
        "a scenario's createIndex event: listed in the plan as its own consent; on a system namespace refused before anything connects",
      kinds: ['event'],
      commands: ['run'],
      run: async () => {
        const config = (target: string) =>
          file(
            'scenario.yaml',
            [
              `ns: ${scratchDb()}.docs`,
              'scenarios:',
              '  - name: indexer',
              '    ops: [{ op: findOne, query: {} }]',
              '    duration: 1s',
              '    clients: 1',
              '    events:',
              `      - { at: 0s, action: createIndex, keys: { mine: 1 }, ns: ${target}, name: mine_1 }`,
            ].join('\n'),
          );
        const dry = await runCli([
          'run',
          '--uri',
          crudUri(),
          '--config',
          config(ns(WORLD.orders)),
          '--dry-run',
        ]);
        expect(dry.code).toBe(0);
        expect(dry.stdout).toContain(
          `index ${ns(WORLD.orders)} (a configured event (a scenario's or the run's)`,
        );
        return refused(
          await runCli([
            'run',
            '--uri',
            crudUri(),
            '--config',
            config('admin.users'),
            '--out',
            out(),
          ]),
          'admin.users',
        );
      },
    },
    {
      title:
        "a mongo-perf test whose pre() drops the user's empty collection and empties their orders",
      kinds: ['perf-pre'],
      commands: ['perf-suite'],
      run: async () => {
        const test = file(
          'harm-perf.js',
          [
            'if (typeof(tests) != "object") { tests = []; }',
            'tests.push({ name: "Harm.Pre", tags: ["core"],',
            '  pre: function(collection) {',
            `    collection.getDB().getSiblingDB("${W}").getCollection("${WORLD.emptyIndexed}").drop();`,
            `    collection.getDB().getSiblingDB("${W}").getCollection("${WORLD.orders}").remove({});`,
            '    for (var i = 0; i < 10; i++) collection.insert({_id: i});',
            '  },',
            '  ops: [ { op: "find", query: {} } ] });',
          ].join('\n'),
        );
        const dir = out();
        const r = await runCli([
          'perf-suite',
          '--uri',
          crudUri(),
          test,
          '--clients',
          '1',
          '--seconds',
          '1',
          '--out',
          dir,
        ]);
        expect(r.stdout + r.stderr).toContain('nothing was written');
        expect(r.stdout + r.stderr).toContain(ns(WORLD.emptyIndexed));
        return 'refused';
      },
    },
    {
      title:
        "--store and import --store into the user's collection: refused before the write probe",
      kinds: ['store'],
      commands: ['import', 'run'],
      run: async () => {
        const store = `mongodb://${host()}/${ns(WORLD.results)}`;
        refused(await runCli(['import', '--store', store, RESULT]), ns(WORLD.results));
        return refused(
          await run('--ns', `${scratchDb()}.t`, '--store', store, '--out', out()),
          ns(WORLD.results),
        );
      },
    },
    {
      title:
        "--agents with --control-db on the user's database (its runs and steps): refused before any index or insert",
      kinds: ['control-db'],
      commands: ['run', 'agent'],
      run: async () => {
        refused(
          await run('--ns', `${scratchDb()}.t`, '--agents', '1', '--control-db', W, '--out', out()),
          W,
        );
        return refused(
          await runCli([
            'agent',
            '--control-uri',
            crudUri(),
            '--control-db',
            W,
            '--once',
            '--name',
            'harm',
          ]),
          W,
        );
      },
    },
    {
      title:
        "matrix presets on --db of the user's (collections named like theirs): refused before any probe or load",
      kinds: ['experiment', 'probe'],
      commands: ['matrix'],
      run: async () => {
        for (const [preset, coll] of [
          ['most', WORLD.most],
          ['softlayer', WORLD.softlayer],
          ['write-concern-latency', WORLD.insertTest],
          ['presplit-import', WORLD.presplit],
        ] as const) {
          const r = await runCli([
            'matrix',
            '--preset',
            preset,
            '--uri',
            crudUri(),
            '--db',
            W,
            '--scale',
            '0.01',
            // presplit-import's consent to change the cluster: never to drop a user's collection.
            ...(preset === 'presplit-import' ? ['--setup'] : []),
            '--out',
            out(),
          ]);
          refused(r, `recreate ${ns(coll)}`, `recreate ${ns(probeCollections()[0])}`, '--drop');
        }
        return 'refused';
      },
    },
    {
      title:
        "the jest helper on the user's collections: its load, an empty indexed collection, and its ops' writes",
      kinds: ['helper'],
      commands: ['api:benchmarkWorkload'],
      run: async () => {
        await apiRefused(
          helper({ ns: ns(WORLD.orders), documents: [{ _id: 1 }] }),
          ns(WORLD.orders),
          'drop: true',
        );
        await apiRefused(
          helper({ ns: ns(WORLD.emptyIndexed), documents: [{ _id: 1 }] }),
          ns(WORLD.emptyIndexed),
        );
        return apiRefused(
          helper({ ns: ns(WORLD.orders) }),
          `write ${ns(WORLD.orders)}`,
          'writeExisting: true',
        );
      },
    },
    {
      title:
        'repeated and concurrent runs, and repeated jest helper runs, keep owning their collections',
      kinds: ['loader', 'helper', 'marker'],
      commands: ['run', 'api:benchmarkWorkload'],
      run: async () => {
        // Two runs side by side in one database (one marker collection), each on its collection; then
        // one of them again: still mongo-bench's.
        const db = scratchDb();
        const [a, b] = await Promise.all([
          run('--ns', `${db}.a`, '--out', out()),
          run('--ns', `${db}.b`, '--out', out()),
        ]);
        ran(a);
        ran(b);
        ran(await run('--ns', `${db}.a`, '--out', out()));
        const helperNs = `${scratchDb()}.h`;
        for (let i = 0; i < 2; i++)
          await helper({
            ns: helperNs,
            documents: [{ _id: 1, qty: 1 }],
            ops: [{ op: 'findOne', query: {} }],
          });
        return 'consented';
      },
    },
    {
      title:
        "every command that writes files, pointed at the user's folder: refused naming the file and --force",
      kinds: ['file'],
      commands: [
        'run',
        'scripts',
        'report',
        'compare',
        'history',
        'capture',
        'matrix',
        'perf-suite',
        'calibrate',
        'diskperf',
      ],
      run: async () => {
        const store = join(root, 'history-store');
        mkdirSync(store);
        copyFileSync(RESULT, join(store, 'results.json'));
        const sample = join(FIXTURES, 'mongo-perf', 'testcases', 'sample.js');
        const diskDir = join(root, 'disk-test-file');
        mkdirSync(diskDir);
        const commands: [string[], string][] = [
          [
            ['run', '--uri', crudUri(), ...QUICK, '--ns', `${scratchDb()}.t`, '--out', folder],
            'results.json',
          ],
          [['scripts', '--topology', 'standalone', '--out', folder], 'README.md'],
          [['report', RESULT, '--out', folder], 'summary.md'],
          [
            [
              'compare',
              join(FIXTURES, 'compare-w0.json'),
              join(FIXTURES, 'compare-w1.json'),
              '--out',
              folder,
            ],
            'compare.md',
          ],
          [['history', '--store', store, '--out', folder], 'history.md'],
          [['capture', join(FIXTURES, 'capture', 'logs'), '--out', folder], 'workload.json'],
          [
            ['matrix', '--preset', 'write-concern-latency', '--uri', crudUri(), '--out', folder],
            'matrix.json',
          ],
          [['perf-suite', sample, '--uri', crudUri(), '--out', folder], 'suite.json'],
          [['calibrate', '--json', join(folder, 'calibrate.json')], 'calibrate.json'],
          [['diskperf', '--dir', diskDir, '--out', folder], 'summary.md'],
        ];
        for (const [args, name] of commands)
          refused(await runCli(args), `${join(folder, name)} exists`, '--force');
        return 'refused';
      },
    },
  ];

  const SERVER_CHANGE_CASES = serverChangeCases();

  it('has a case for every entry kind of the write plan and every command that writes', () => {
    const covered = new Set([...CASES, ...SERVER_CHANGE_CASES].flatMap((c) => c.kinds));
    const kinds: Kind[] = [
      ...(Object.keys(WRITE_SOURCES) as WriteSource[]),
      ...SERVER_CHANGES,
      'file',
    ];
    expect(kinds.filter((k) => !covered.has(k))).toEqual([]);
    const commands = new Set(CASES.flatMap((c) => c.commands));
    expect(WRITING_COMMANDS.filter((c) => !commands.has(c))).toEqual([]);
  });

  it.each(CASES.map((c) => [c.title, c] as const))('%s', async (_title, harmCase) => {
    const before: WorldSnapshot = await snapshotWorld(client, W, folder);
    const outcome = await harmCase.run();
    const after = await snapshotWorld(client, W, folder);
    const { changed, added } = worldChanges(before, after, {
      markerMayChange: outcome === 'consented',
    });
    expect(changed).toEqual([]);
    // A refusal leaves nothing behind either: no marker collection, no file in the user's folder.
    if (outcome === 'refused') expect(added).toEqual([]);
    else expect(added.filter((a) => a.startsWith('file'))).toEqual([]);
  });

  it.each(SERVER_CHANGE_CASES.map((c) => [c.title, c] as const))('%s', async (_title, harmCase) => {
    await harmCase.run();
  });
});

/**
 * Server and cluster changes: on a deployment mongo-bench did not start, each is made only with the consent
 * its entry names, and never without; on one it started, always.
 */
function serverChangeCases(): HarmCase[] {
  return SERVER_CHANGES.map((change) => ({
    title: `a change of server state (${change}): refused without its consent on a deployment mongo-bench did not start`,
    kinds: [change],
    commands: [],
    run: async () => {
      for (const consent of Object.keys(CONSENTS) as (keyof typeof CONSENTS)[]) {
        const entry = {
          kind: 'server' as const,
          change,
          target: 'cluster',
          detail: change,
          consent,
        };
        const none = judgeServerChange(entry, { ours: false, consents: new Set() });
        expect(none.allowed).toBe(false);
        expect(
          judgeServerChange(entry, { ours: false, consents: new Set([consent]) }).allowed,
        ).toBe(true);
        expect(judgeServerChange(entry, { ours: true, consents: new Set() }).allowed).toBe(true);
      }
      return 'refused';
    },
  }));
}
