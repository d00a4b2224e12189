/**
 * The small runtime every generated mongosh script carries: it connects to each step's target,
 * prints the step, skips it when its check finds it done, runs the command, checks `ok: 1`,
 * waits for a PRIMARY when asked, and stops the script with a clear message on the first failure.
 *
 * The checks here mirror lib/topology/apply.ts (the driver path): keep them in step.
 * Plain loops only: mongosh's async rewriting does not reach into callbacks of built-ins.
 */
export const MONGOSH_RUNTIME = String.raw`// ---- mongo-bench setup runtime (the steps follow below) ----
// Set MONGO_BENCH_CONNECT_ALL=host:port to send every step to that one address instead of TARGETS
// (a tunnel to a single mongos, or a test double).
const CONNECT_ALL = (typeof process === 'object' && process.env && process.env.MONGO_BENCH_CONNECT_ALL) || '';
const connections = {};

function adminOf(n, s) {
  if (!connections[s.target]) {
    const address = CONNECT_ALL || TARGETS[s.target];
    try {
      connections[s.target] = new Mongo('mongodb://' + address + '/?directConnection=true').getDB('admin');
    } catch (e) {
      return fail(n, s, 'could not connect to ' + address + ' (is it running? see 00-start.sh): ' + e.message);
    }
  }
  return connections[s.target];
}

function fail(n, s, message) {
  print('FAILED: step ' + n + '/' + STEPS + ' "' + s.description + '" on ' + s.target + ': ' + message);
  quit(1);
  throw new Error(message); // not reached: quit() ends the script
}

function run(n, s, admin, dbName, command) {
  let reply;
  try {
    reply = admin.getSiblingDB(dbName).runCommand(command);
  } catch (e) {
    return fail(n, s, e.message);
  }
  if (reply.ok !== 1) return fail(n, s, reply.errmsg || JSON.stringify(reply));
  if (reply.writeErrors && reply.writeErrors.length > 0) return fail(n, s, reply.writeErrors[0].errmsg);
  if (reply.writeConcernError) return fail(n, s, reply.writeConcernError.errmsg);
  return reply;
}

function findConfig(n, s, admin, collection, filter) {
  try {
    return admin.getSiblingDB('config').getCollection(collection).findOne(filter);
  } catch (e) {
    return fail(n, s, 'could not read config.' + collection + ' to check whether this step is done: ' + e.message);
  }
}

// config.collections lists a sharded collection (8.0 also lists unsharded ones as unsplittable).
function shardedCollection(n, s, admin, ns) {
  const doc = findConfig(n, s, admin, 'collections', { _id: ns });
  return doc && doc.dropped !== true && doc.unsplittable !== true ? doc : null;
}

// Chunks are keyed by the collection's uuid since 5.0, by ns before.
function findChunk(n, s, admin, ns, bound) {
  const coll = shardedCollection(n, s, admin, ns);
  const filter = coll && coll.uuid ? { $or: [{ uuid: coll.uuid }, { ns: ns }] } : { ns: ns };
  return findConfig(n, s, admin, 'chunks', Object.assign(filter, bound));
}

function sameValue(actual, expected) {
  return actual === expected || (typeof expected === 'number' && actual !== null && actual !== undefined && Number(actual) === expected);
}

function isDone(n, s, admin) {
  const c = s.check;
  if (c.kind === 'replSetInitiated') {
    let config;
    try {
      config = admin.getSiblingDB('local').getCollection('system.replset').findOne({ _id: c.setName });
    } catch (e) {
      return fail(n, s, 'could not read local.system.replset to check whether the set is initiated: ' + e.message);
    }
    return config !== null;
  }
  if (c.kind === 'shardAdded') {
    const shards = run(n, s, admin, 'admin', { listShards: 1 }).shards || [];
    for (let i = 0; i < shards.length; i++) if (shards[i]._id === c.shardId) return true;
    return false;
  }
  if (c.kind === 'databaseExists') return findConfig(n, s, admin, 'databases', { _id: c.db }) !== null;
  if (c.kind === 'collectionSharded') {
    const coll = shardedCollection(n, s, admin, c.ns);
    if (!coll) return false;
    if (JSON.stringify(coll.key) !== JSON.stringify(c.key)) {
      return fail(n, s, c.ns + ' is already sharded on ' + JSON.stringify(coll.key) + ', not ' + JSON.stringify(c.key) + ': drop it or use that key');
    }
    return true;
  }
  if (c.kind === 'settingEquals') {
    const doc = findConfig(n, s, admin, 'settings', { _id: c.id });
    return doc !== null && sameValue(doc[c.field], c.value);
  }
  if (c.kind === 'chunkBoundary') return findChunk(n, s, admin, c.ns, { min: c.min }) !== null;
  if (c.kind === 'chunkOnShard') {
    const chunk = findChunk(n, s, admin, c.ns, c.chunk);
    return chunk !== null && chunk.shard === c.shard;
  }
  if (c.kind === 'balancerStopped') return run(n, s, admin, 'admin', { balancerStatus: 1 }).mode === 'off';
  return fail(n, s, 'unknown check ' + c.kind);
}

// A set has a PRIMARY when the member is one or names one (another member may win the election).
function waitForPrimary(n, s, admin) {
  const w = s.waitFor;
  const deadline = Date.now() + w.timeoutMs;
  print('    waiting for a PRIMARY in ' + w.setName + ' (at most ' + w.timeoutMs / 1000 + ' s)');
  for (;;) {
    let hello = null;
    try {
      hello = admin.runCommand({ hello: 1 });
    } catch (e) {
      hello = null; // the member may still be starting: try again
    }
    if (hello && (hello.isWritablePrimary === true || (typeof hello.primary === 'string' && hello.primary !== ''))) {
      print('    PRIMARY: ' + (hello.primary || s.target));
      return;
    }
    if (Date.now() > deadline) {
      return fail(n, s, 'no PRIMARY in ' + w.setName + ' after ' + w.timeoutMs / 1000 + ' s; look at the members\' logs');
    }
    sleep(500);
  }
}

function step(n, s) {
  print('[' + n + '/' + STEPS + '] ' + s.description + ' (on ' + s.target + ')');
  print('    ' + s.db + ': ' + JSON.stringify(s.command));
  const admin = adminOf(n, s);
  if (s.check && isDone(n, s, admin)) {
    print('    already done: skipped');
  } else {
    run(n, s, admin, s.db, s.command);
    print('    ok');
  }
  if (s.waitFor) waitForPrimary(n, s, admin);
}
// ---- end of the runtime ----`;
