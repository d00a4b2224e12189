/**
 * What a command writes (lib/server/command-writes.ts): the read-only allow-list and its aliases, every
 * write command's namespaces, $out and $merge in each form and only at the top level, templates and
 * unreadable values in each namespace position, and unknown names, which write their whole database.
 */
import {
  classifyCommand,
  WRITE_COMMAND_NAMES,
  WRITE_STAGES,
} from '../../lib/server/command-writes';

const template = { '#RAND_STRING': [5] };
const templateRefusal = (position: string) => ({
  reads: false,
  refused: `a namespace made by a template (${position}) is refused: write to a collection named in the workload`,
});

describe('the read-only allow-list', () => {
  it.each([
    'find',
    'count',
    'distinct',
    'getMore',
    'killCursors',
    'listCollections',
    'listIndexes',
    'listDatabases',
    'collStats',
    'dbStats',
    'dataSize',
    'serverStatus',
    'hello',
    'isMaster',
    'ismaster',
    'ping',
    'buildInfo',
    'hostInfo',
    'connectionStatus',
    'getParameter',
    'getCmdLineOpts',
    'replSetGetStatus',
    'replSetGetConfig',
    'isdbgrid',
    'listShards',
    'balancerStatus',
    'getShardMap',
    'top',
    'currentOp',
  ])('%s reads', (name) => {
    expect(classifyCommand({ [name]: 'orders' }, 'shop')).toEqual({ reads: true });
  });

  it.each(['dbstats', 'datasize', 'collstats', 'buildinfo', 'listshards'])(
    "the server's alias %s reads",
    (name) => {
      expect(classifyCommand({ [name]: 1 }, 'shop')).toEqual({ reads: true });
    },
  );

  it('explain reads, even of a write', () => {
    expect(
      classifyCommand(
        { explain: { update: 'orders', updates: [{ q: {}, u: { $set: { a: 1 } } }] } },
        'shop',
      ),
    ).toEqual({ reads: true });
    expect(
      classifyCommand({ explain: { aggregate: 'orders', pipeline: [{ $out: 'x' }] } }, 'shop'),
    ).toEqual({ reads: true });
  });

  it('a read command with a template where its collection goes still reads', () => {
    expect(classifyCommand({ find: template, filter: {} }, 'shop')).toEqual({ reads: true });
  });

  it('other spellings are not the command: they write the whole database', () => {
    for (const name of ['Find', 'FIND', 'serverstatus', 'Ping', 'HELLO'])
      expect(classifyCommand({ [name]: 1 }, 'shop')).toEqual({
        reads: false,
        writes: [
          {
            db: 'shop',
            how: `"${name}" (a command mongo-bench does not know: its whole database)`,
          },
        ],
      });
  });
});

describe('commands that write the collection they name', () => {
  it.each([
    'insert',
    'update',
    'delete',
    'findAndModify',
    'create',
    'drop',
    'createIndexes',
    'dropIndexes',
    'collMod',
    'convertToCapped',
    'emptycapped',
    'compact',
    'validate',
  ])('%s writes shop.orders', (name) => {
    expect(classifyCommand({ [name]: 'orders' }, 'shop')).toEqual({
      reads: false,
      writes: [{ db: 'shop', coll: 'orders', how: name }],
    });
  });

  it.each(['findandmodify', 'deleteIndexes'])("the server's alias %s writes too", (name) => {
    expect(classifyCommand({ [name]: 'orders' }, 'shop')).toEqual({
      reads: false,
      writes: [{ db: 'shop', coll: 'orders', how: name }],
    });
  });

  it('a template in the collection is refused, naming the position', () => {
    expect(classifyCommand({ insert: template, documents: [{}] }, 'shop')).toEqual(
      templateRefusal("insert's collection"),
    );
    expect(classifyCommand({ findandmodify: { '#SEQ_INT': { seq_id: 0 } } }, 'shop')).toEqual(
      templateRefusal("findandmodify's collection"),
    );
  });

  it('a collection that is not a string cannot be read', () => {
    expect(classifyCommand({ insert: 5, documents: [] }, 'shop')).toEqual({
      reads: false,
      refused: "insert's collection cannot be read: expected a name, got 5",
    });
    expect(classifyCommand({ drop: { name: 'x' } }, 'shop')).toEqual({
      reads: false,
      refused: `drop's collection cannot be read: expected a name, got {"name":"x"}`,
    });
  });
});

describe('aggregate', () => {
  const aggregate = (...pipeline: unknown[]) => ({ aggregate: 'orders', pipeline, cursor: {} });

  it('reads without $out or $merge', () => {
    expect(classifyCommand(aggregate({ $match: {} }, { $group: { _id: '$a' } }), 'shop')).toEqual({
      reads: true,
    });
    expect(classifyCommand(aggregate(), 'shop')).toEqual({ reads: true });
    expect(classifyCommand({ aggregate: 1, pipeline: [{ $currentOp: {} }] }, 'admin')).toEqual({
      reads: true,
    });
  });

  it('$out: a name in the same database, or {db, coll}', () => {
    expect(classifyCommand(aggregate({ $match: {} }, { $out: 'totals' }), 'shop')).toEqual({
      reads: false,
      writes: [{ db: 'shop', coll: 'totals', how: '$out' }],
    });
    expect(classifyCommand(aggregate({ $out: { db: 'reports', coll: 'totals' } }), 'shop')).toEqual(
      { reads: false, writes: [{ db: 'reports', coll: 'totals', how: '$out' }] },
    );
    expect(classifyCommand(aggregate({ $out: { coll: 'totals' } }), 'shop')).toEqual({
      reads: false,
      writes: [{ db: 'shop', coll: 'totals', how: '$out' }],
    });
  });

  it('$merge: a name, {into: name} or {into: {db, coll}}', () => {
    const into = (spec: unknown) => classifyCommand(aggregate({ $merge: spec }), 'shop');
    const totals = { reads: false, writes: [{ db: 'shop', coll: 'totals', how: '$merge' }] };
    expect(into('totals')).toEqual(totals);
    expect(into({ into: 'totals', on: '_id' })).toEqual(totals);
    expect(into({ into: { db: 'reports', coll: 'totals' }, whenMatched: 'merge' })).toEqual({
      reads: false,
      writes: [{ db: 'reports', coll: 'totals', how: '$merge' }],
    });
  });

  it('a $out anywhere in the top level is listed, not only the last stage', () => {
    expect(classifyCommand(aggregate({ $out: 'early' }, { $match: {} }), 'shop')).toEqual({
      reads: false,
      writes: [{ db: 'shop', coll: 'early', how: '$out' }],
    });
  });

  it('sub-pipelines of $lookup, $unionWith and $facet are not looked at: the server refuses $out and $merge there', () => {
    for (const stage of [
      { $lookup: { from: 'x', as: 'y', pipeline: [{ $out: 'nested' }] } },
      { $unionWith: { coll: 'x', pipeline: [{ $merge: { into: 'nested' } }] } },
      { $facet: { a: [{ $out: 'nested' }] } },
    ])
      expect(classifyCommand(aggregate(stage), 'shop')).toEqual({ reads: true });
  });

  it('a template in $out, its db or coll, or $merge into is refused, naming the position', () => {
    expect(classifyCommand(aggregate({ $out: template }), 'shop')).toEqual(templateRefusal('$out'));
    expect(classifyCommand(aggregate({ $out: { db: template, coll: 'x' } }), 'shop')).toEqual(
      templateRefusal("$out's db"),
    );
    expect(classifyCommand(aggregate({ $out: { db: 'r', coll: template } }), 'shop')).toEqual(
      templateRefusal("$out's coll"),
    );
    expect(
      classifyCommand(aggregate({ $merge: { into: { '#SEQ_INT': { seq_id: 0 } } } }), 'shop'),
    ).toEqual(templateRefusal("$merge's into"));
    expect(classifyCommand(aggregate({ $merge: template }), 'shop')).toEqual(
      templateRefusal('$merge'),
    );
    expect(
      classifyCommand(aggregate({ $merge: { into: { db: template, coll: 'x' } } }), 'shop'),
    ).toEqual(templateRefusal("$merge's into's db"));
  });

  it('an unreadable pipeline, stage or target is refused', () => {
    expect(classifyCommand({ aggregate: 'orders' }, 'shop')).toEqual({
      reads: false,
      refused: "aggregate's pipeline cannot be read: expected an array, got undefined",
    });
    expect(classifyCommand(aggregate('$match'), 'shop')).toMatchObject({
      refused: `aggregate's stage 0 cannot be read: expected a document, got "$match"`,
    });
    expect(classifyCommand(aggregate({ $out: 7 }), 'shop')).toMatchObject({
      refused: '$out cannot be read: expected a collection name or {db, coll}, got 7',
    });
    expect(classifyCommand(aggregate({ $merge: { on: '_id' } }), 'shop')).toMatchObject({
      refused:
        "$merge's into cannot be read: expected a collection name or {db, coll}, got undefined",
    });
    expect(classifyCommand(aggregate({ $merge: 3 }), 'shop')).toMatchObject({
      refused: '$merge cannot be read: expected a collection name or a document, got 3',
    });
  });
});

describe('mapReduce', () => {
  const mapReduce = (out: unknown, name = 'mapReduce') => ({
    [name]: 'orders',
    map: 'function () {}',
    reduce: 'function () {}',
    out,
  });

  it('writes its out: a name, or {replace|merge|reduce, db?}', () => {
    expect(classifyCommand(mapReduce('totals'), 'shop')).toEqual({
      reads: false,
      writes: [{ db: 'shop', coll: 'totals', how: "mapReduce's out" }],
    });
    for (const action of ['replace', 'merge', 'reduce'])
      expect(classifyCommand(mapReduce({ [action]: 'totals', db: 'reports' }), 'shop')).toEqual({
        reads: false,
        writes: [{ db: 'reports', coll: 'totals', how: `mapReduce's out (${action})` }],
      });
    expect(classifyCommand(mapReduce({ merge: 'totals' }), 'shop')).toMatchObject({
      writes: [{ db: 'shop', coll: 'totals' }],
    });
  });

  it('writes nothing with {inline: 1}, and is still not a read-only command', () => {
    expect(classifyCommand(mapReduce({ inline: 1 }), 'shop')).toEqual({ reads: false, writes: [] });
  });

  it("the server's alias mapreduce is the same command", () => {
    expect(classifyCommand(mapReduce('totals', 'mapreduce'), 'shop')).toMatchObject({
      writes: [{ db: 'shop', coll: 'totals' }],
    });
  });

  it('a template or an unreadable out is refused', () => {
    expect(classifyCommand(mapReduce(template), 'shop')).toEqual(
      templateRefusal("mapReduce's out"),
    );
    expect(classifyCommand(mapReduce({ replace: template }), 'shop')).toEqual(
      templateRefusal("mapReduce's out.replace"),
    );
    expect(classifyCommand(mapReduce({ reduce: 'x', db: template }), 'shop')).toEqual(
      templateRefusal("mapReduce's out.db"),
    );
    expect(classifyCommand(mapReduce(undefined), 'shop')).toMatchObject({
      refused: expect.stringMatching(/^mapReduce's out cannot be read/),
    });
    expect(classifyCommand(mapReduce({ sharded: true }), 'shop')).toMatchObject({
      refused: expect.stringMatching(/^mapReduce's out cannot be read/),
    });
  });
});

describe('commands that name two namespaces or many', () => {
  it('cloneCollectionAsCapped lists its toCollection (the source is only read), refusing a template in either', () => {
    expect(
      classifyCommand(
        { cloneCollectionAsCapped: 'orders', toCollection: 'recent', size: 1e6 },
        'shop',
      ),
    ).toEqual({
      reads: false,
      writes: [{ db: 'shop', coll: 'recent', how: "cloneCollectionAsCapped's toCollection" }],
    });
    expect(
      classifyCommand({ cloneCollectionAsCapped: 'orders', toCollection: template }, 'shop'),
    ).toEqual(templateRefusal("cloneCollectionAsCapped's toCollection"));
    expect(
      classifyCommand({ cloneCollectionAsCapped: template, toCollection: 'recent' }, 'shop'),
    ).toEqual(templateRefusal("cloneCollectionAsCapped's source"));
  });

  it('renameCollection lists both full namespaces, whatever database it runs against', () => {
    expect(
      classifyCommand({ renameCollection: 'shop.orders', to: 'archive.orders.2024' }, 'admin'),
    ).toEqual({
      reads: false,
      writes: [
        { db: 'shop', coll: 'orders', how: "renameCollection's source" },
        { db: 'archive', coll: 'orders.2024', how: "renameCollection's to" },
      ],
    });
  });

  it('renameCollection: a template or a name that is not db.coll is refused', () => {
    expect(classifyCommand({ renameCollection: 'shop.orders', to: template }, 'admin')).toEqual(
      templateRefusal("renameCollection's to"),
    );
    for (const to of ['orders', '.orders', 'shop.'])
      expect(classifyCommand({ renameCollection: 'shop.orders', to }, 'admin')).toEqual({
        reads: false,
        refused: `renameCollection's to cannot be read: expected a full namespace "database.collection", got ${JSON.stringify(to)}`,
      });
  });

  it("applyOps lists each op's namespace, and a command op's whole database", () => {
    expect(
      classifyCommand(
        {
          applyOps: [
            { op: 'i', ns: 'shop.orders', o: { _id: 1 } },
            { op: 'u', ns: 'other.items', o: { $set: { a: 1 } }, o2: { _id: 1 } },
            { op: 'c', ns: 'shop.$cmd', o: { create: 'new' } },
          ],
        },
        'admin',
      ),
    ).toEqual({
      reads: false,
      writes: [
        { db: 'shop', coll: 'orders', how: "applyOps' op 0" },
        { db: 'other', coll: 'items', how: "applyOps' op 1" },
        { db: 'shop', how: "applyOps' op 2 (a command)" },
      ],
    });
  });

  it('applyOps: a template, a missing ns or a non-array is refused', () => {
    expect(classifyCommand({ applyOps: [{ op: 'i', ns: template, o: {} }] }, 'admin')).toEqual(
      templateRefusal("applyOps' op 0 ns"),
    );
    expect(classifyCommand({ applyOps: [{ op: 'i', o: {} }] }, 'admin')).toEqual({
      reads: false,
      refused: "applyOps' op 0 ns cannot be read: expected a name, got undefined",
    });
    expect(classifyCommand({ applyOps: {} }, 'admin')).toMatchObject({
      refused: 'applyOps cannot be read: expected an array of ops, got {}',
    });
    expect(classifyCommand({ applyOps: [1] }, 'admin')).toMatchObject({
      refused: "applyOps' op 0 cannot be read: expected a document, got 1",
    });
  });

  it('bulkWrite lists every nsInfo namespace', () => {
    expect(
      classifyCommand(
        {
          bulkWrite: 1,
          ops: [
            { insert: 0, document: {} },
            { delete: 1, filter: {} },
          ],
          nsInfo: [{ ns: 'shop.orders' }, { ns: 'shop.items' }],
        },
        'admin',
      ),
    ).toEqual({
      reads: false,
      writes: [
        { db: 'shop', coll: 'orders', how: "bulkWrite's nsInfo 0" },
        { db: 'shop', coll: 'items', how: "bulkWrite's nsInfo 1" },
      ],
    });
    expect(classifyCommand({ bulkWrite: 1, nsInfo: [{ ns: template }] }, 'admin')).toEqual(
      templateRefusal("bulkWrite's nsInfo 0 ns"),
    );
    expect(classifyCommand({ bulkWrite: 1 }, 'admin')).toMatchObject({
      refused: "bulkWrite's nsInfo cannot be read: expected an array, got undefined",
    });
  });
});

describe('whole databases', () => {
  it('dropDatabase writes its whole database', () => {
    expect(classifyCommand({ dropDatabase: 1 }, 'shop')).toEqual({
      reads: false,
      writes: [{ db: 'shop', how: 'dropDatabase' }],
    });
  });

  it('an unknown command writes its whole database (the safe side)', () => {
    for (const command of [{ reIndex: 'orders' }, { shardCollection: 'shop.orders', key: {} }])
      expect(classifyCommand(command, 'shop')).toEqual({
        reads: false,
        writes: [
          {
            db: 'shop',
            how: `${JSON.stringify(Object.keys(command)[0])} (a command mongo-bench does not know: its whole database)`,
          },
        ],
      });
  });

  it("names that are Object's own are unknown commands, not table entries", () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__'])
      expect(classifyCommand(Object.fromEntries([[name, 1]]), 'shop')).toMatchObject({
        reads: false,
        writes: [{ db: 'shop' }],
      });
  });

  it('an empty document is refused', () => {
    expect(classifyCommand({}, 'shop')).toEqual({
      reads: false,
      refused: 'an empty command names no command',
    });
  });

  it('the command is the first key only', () => {
    expect(classifyCommand({ find: 'orders', insert: 'x' }, 'shop')).toEqual({ reads: true });
    expect(classifyCommand({ insert: 'orders', find: 'x' }, 'shop')).toMatchObject({
      writes: [{ db: 'shop', coll: 'orders', how: 'insert' }],
    });
  });
});

describe('the list of write commands (WRITE_COMMAND_NAMES, WRITE_STAGES)', () => {
  /** A document of each listed command, as a workload would send it. */
  const SAMPLES: Record<string, Record<string, unknown>> = {
    insert: { insert: 'orders', documents: [{}] },
    update: { update: 'orders', updates: [] },
    delete: { delete: 'orders', deletes: [] },
    findAndModify: { findAndModify: 'orders', query: {}, remove: true },
    findandmodify: { findandmodify: 'orders', query: {}, remove: true },
    create: { create: 'orders' },
    drop: { drop: 'orders' },
    createIndexes: { createIndexes: 'orders', indexes: [] },
    dropIndexes: { dropIndexes: 'orders', index: '*' },
    deleteIndexes: { deleteIndexes: 'orders', index: '*' },
    collMod: { collMod: 'orders' },
    convertToCapped: { convertToCapped: 'orders', size: 4096 },
    emptycapped: { emptycapped: 'orders' },
    compact: { compact: 'orders' },
    validate: { validate: 'orders' },
    mapReduce: { mapReduce: 'orders', map: '', reduce: '', out: 'totals' },
    mapreduce: { mapreduce: 'orders', map: '', reduce: '', out: 'totals' },
    cloneCollectionAsCapped: {
      cloneCollectionAsCapped: 'orders',
      toCollection: 'capped',
      size: 4096,
    },
    renameCollection: { renameCollection: 'shop.orders', to: 'shop.old' },
    applyOps: { applyOps: [{ op: 'i', ns: 'shop.orders', o: {} }] },
    bulkWrite: { bulkWrite: 1, ops: [], nsInfo: [{ ns: 'shop.orders' }] },
    dropDatabase: { dropDatabase: 1 },
  };

  it('has a sample here for each name, and each is classified as a write of what it names', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...WRITE_COMMAND_NAMES].sort());
    for (const [name, command] of Object.entries(SAMPLES)) {
      const found = classifyCommand(command, 'shop');
      expect({ name, found }).toMatchObject({ name, found: { reads: false } });
      if (!('writes' in found)) throw new Error(`${name}: ${JSON.stringify(found)}`);
      expect(found.writes.length).toBeGreaterThan(0);
      for (const w of found.writes) expect(w.how).not.toContain('does not know');
    }
  });

  it('an aggregate writes through each of its write stages', () => {
    for (const stage of WRITE_STAGES)
      expect(
        classifyCommand({ aggregate: 'orders', pipeline: [{ [stage]: 'totals' }] }, 'shop'),
      ).toMatchObject({ reads: false, writes: [{ db: 'shop', coll: 'totals' }] });
  });
});
