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

// A number the server stored as a 64-bit integer (maxChunkSizeBytes) comes back as a Long in mongosh.
function sameValue(actual, expected) {
  if (actual !== null && actual !== undefined && typeof actual.toNumber === 'function') actual = actual.toNumber();
  return actual === expected || (typeof expected === 'number' && actual !== null && actual !== undefined && Number(actual) === expected);
}

// hello, or isMaster where hello is unknown (it exists from 4.4.2; 4.4.0 and 4.4.1 answer CommandNotFound, 59).
function helloOf(admin) {
  let reply;
  try {
    reply = admin.runCommand({ hello: 1 });
  } catch (e) {
    if (e.code !== 59) throw e;
    reply = { ok: 0, code: 59 };
  }
  if (reply.ok !== 1 && reply.code === 59) reply = admin.runCommand({ isMaster: 1 });
  return reply;
}

// A new primary drains its oplog buffer before it takes writes: it says primary, not isWritablePrimary.
function isWritablePrimary(hello) {
  return hello.isWritablePrimary === true || hello.ismaster === true;
}

function balancerMode(n, s, admin) {
  return run(n, s, admin, 'admin', { balancerStatus: 1 }).mode;
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
  if (c.kind === 'databaseExists') {
    // Before 6.0 a database created by a write is listed with partitioned: false and still needs enableSharding.
    const database = findConfig(n, s, admin, 'databases', { _id: c.db });
    return database !== null && (c.partitioned !== true || database.partitioned === true);
  }
  if (c.kind === 'collectionChunkSize') {
    const coll = shardedCollection(n, s, admin, c.ns);
    return coll !== null && sameValue(coll.maxChunkSizeBytes, c.bytes);
  }
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
  if (c.kind === 'balancerStopped') return balancerMode(n, s, admin) === 'off';
  if (c.kind === 'balancerRunning') return balancerMode(n, s, admin) === 'full';
  if (c.kind === 'balancerStoppedOrDistributed') {
    if (balancerMode(n, s, admin) === 'off') return true;
    for (let i = 0; i < c.chunks.length; i++) {
      const chunk = findChunk(n, s, admin, c.ns, c.chunks[i].chunk);
      if (chunk === null || chunk.shard !== c.chunks[i].shard) return false;
    }
    return true;
  }
  return fail(n, s, 'unknown check ' + c.kind);
}

// Done when the member, or the PRIMARY it names (another member may win the election), accepts
// writes: the next step writes there, and a new primary first drains its oplog buffer.
function waitForPrimary(n, s, admin) {
  const w = s.waitFor;
  const deadline = Date.now() + w.timeoutMs;
  print('    waiting for a writable PRIMARY in ' + w.setName + ' (at most ' + w.timeoutMs / 1000 + ' s)');
  for (;;) {
    let primary = null;
    try {
      const hello = helloOf(admin);
      if (isWritablePrimary(hello)) primary = hello.me || TARGETS[s.target];
      else if (typeof hello.primary === 'string' && hello.primary !== '') {
        const other = CONNECT_ALL ? admin : new Mongo('mongodb://' + hello.primary + '/?directConnection=true').getDB('admin');
        if (isWritablePrimary(helloOf(other))) primary = hello.primary;
      }
    } catch (e) {
      primary = null; // a member may still be starting or electing: try again
    }
    if (primary !== null) {
      print('    PRIMARY (writable): ' + primary);
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

/**
 * The runtime of an access-controlled deployment: the same, plus logging in. Each connection first
 * tries the admin user (MONGO_BENCH_USER, password from MONGO_BENCH_PASSWORD or the prompt); when
 * the server says "Authentication failed" the user does not exist yet, and the connection goes on
 * without credentials under the localhost exception, which allows replSetInitiate, replSetGetStatus,
 * hello and the first createUser. After createUser the connection is dropped, so the next step
 * logs in. The password is read at run time and never printed (messages are scrubbed of it).
 */
export function mongoshRuntime(auth?: { user: string }): string {
  if (!auth) return MONGOSH_RUNTIME;
  let text = MONGOSH_RUNTIME;
  const swap = (from: string, to: string) => {
    if (!text.includes(from))
      throw new Error(`mongosh runtime: cannot find ${JSON.stringify(from.slice(0, 60))}`);
    text = text.replace(from, to);
  };
  swap(
    'const connections = {};\n',
    String.raw`const connections = {};
// Access control: who to log in as. The password is never written into this file.
const ENV = (typeof process === 'object' && process.env) || {};
const AUTH_USER = ENV.MONGO_BENCH_USER || ${JSON.stringify(auth.user)};
const authenticated = {};
let authPassword = null;

function password() {
  if (authPassword === null) authPassword = ENV.MONGO_BENCH_PASSWORD || passwordPrompt();
  return authPassword;
}

function scrub(text) {
  text = String(text);
  return authPassword ? text.split(authPassword).join('****').split(encodeURIComponent(authPassword)).join('****') : text;
}

function isAuthFailure(e) {
  return e.code === 18 || /authentication failed/i.test(String(e.message));
}

// Logs in when the user exists; else (no user yet) connects without credentials: localhost exception.
function open(key, address) {
  const options = '/?directConnection=true';
  try {
    const credentials = encodeURIComponent(AUTH_USER) + ':' + encodeURIComponent(password()) + '@';
    connections[key] = new Mongo('mongodb://' + credentials + address + options + '&authSource=admin').getDB('admin');
    authenticated[key] = true;
    return connections[key];
  } catch (e) {
    if (!isAuthFailure(e)) throw e;
  }
  connections[key] = new Mongo('mongodb://' + address + options).getDB('admin');
  authenticated[key] = false;
  return connections[key];
}

// The replica set's PRIMARY, for steps that must run there (createUser); the target when it is the one.
function primaryOf(n, s, admin) {
  let hello;
  try {
    hello = helloOf(admin);
  } catch (e) {
    return fail(n, s, 'could not find the PRIMARY: ' + e.message);
  }
  if (isWritablePrimary(hello) || CONNECT_ALL) return s.target;
  if (typeof hello.primary !== 'string' || hello.primary === '') return fail(n, s, 'the set has no PRIMARY to run this on');
  const key = s.target + ' -> ' + hello.primary;
  if (!connections[key]) {
    try {
      open(key, hello.primary);
    } catch (e) {
      return fail(n, s, 'could not connect to the PRIMARY ' + hello.primary + ': ' + e.message);
    }
  }
  return key;
}

// The command with the credential stand-ins replaced (createUser's user name and pwd).
function withCredentials(value) {
  if (value === ${JSON.stringify('<MONGO_BENCH_USER>')}) return AUTH_USER;
  if (value === ${JSON.stringify('<MONGO_BENCH_PASSWORD>')}) return password();
  if (Array.isArray(value)) {
    const out = [];
    for (let i = 0; i < value.length; i++) out.push(withCredentials(value[i]));
    return out;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out = {};
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) out[keys[i]] = withCredentials(value[keys[i]]);
    return out;
  }
  return value;
}
`,
  );
  swap(
    "      connections[s.target] = new Mongo('mongodb://' + address + '/?directConnection=true').getDB('admin');\n",
    '      open(s.target, address);\n',
  );
  swap(
    "      return fail(n, s, 'could not connect to ' + address + ' (is it running? see 00-start.sh): ' + e.message);",
    "      return fail(n, s, 'could not connect to ' + address + ' (is it running? see 00-start.sh; are MONGO_BENCH_USER and MONGO_BENCH_PASSWORD right?): ' + e.message);",
  );
  swap(
    "  print('FAILED: step ' + n + '/' + STEPS + ' \"' + s.description + '\" on ' + s.target + ': ' + message);",
    "  print('FAILED: step ' + n + '/' + STEPS + ' \"' + s.description + '\" on ' + s.target + ': ' + scrub(message));",
  );
  swap(
    '  if (reply.ok !== 1) return fail(n, s, reply.errmsg || JSON.stringify(reply));',
    "  if (reply.ok !== 1 && reply.code === 13) return fail(n, s, (reply.errmsg || 'Unauthorized') + ' (logged in: ' + (authenticated[s.target] === true) + '; check MONGO_BENCH_USER and MONGO_BENCH_PASSWORD)');\n" +
      '  if (reply.ok !== 1) return fail(n, s, reply.errmsg || JSON.stringify(reply));',
  );
  swap(
    'function isDone(n, s, admin) {\n  const c = s.check;\n',
    String.raw`function isDone(n, s, admin, key) {
  const c = s.check;
  if (c.kind === 'userAuthenticated') return authenticated[key] === true;
  // Without a user yet (localhost exception) local.system.replset is out of reach; replSetGetStatus is allowed.
  if (c.kind === 'replSetInitiated' && !authenticated[key]) {
    let status;
    try {
      status = admin.runCommand({ replSetGetStatus: 1 });
    } catch (e) {
      status = { ok: 0, code: e.code, errmsg: e.message }; // mongosh may throw on ok: 0
    }
    if (status.ok === 1) return status.set === c.setName;
    if (status.code === 94) return false; // NotYetInitialized
    if (status.code === 13) return fail(n, s, 'not authorized: a user exists, but logging in as ' + AUTH_USER + ' failed; check MONGO_BENCH_USER and MONGO_BENCH_PASSWORD');
    return fail(n, s, 'could not check whether the set is initiated: ' + (status.errmsg || JSON.stringify(status)));
  }
`,
  );
  swap(
    String.raw`  const admin = adminOf(n, s);
  if (s.check && isDone(n, s, admin)) {
    print('    already done: skipped');
  } else {
    run(n, s, admin, s.db, s.command);
    print('    ok');
  }`,
    String.raw`  let admin = adminOf(n, s);
  const key = s.onPrimary ? primaryOf(n, s, admin) : s.target;
  admin = connections[key];
  if (s.check && isDone(n, s, admin, key)) {
    print('    already done: skipped');
  } else {
    run(n, s, admin, s.db, withCredentials(s.command));
    print('    ok');
    // A new user ends the localhost exception: log in from the next step on.
    if (s.command.createUser !== undefined && !authenticated[key]) {
      delete connections[key];
      delete connections[s.target];
    }
  }`,
  );
  return text;
}
