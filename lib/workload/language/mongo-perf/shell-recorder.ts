/**
 * The legacy shell's `db` and collection objects as mongo-perf's pre() functions use them, recording
 * what they would send as set-up steps (./../setup-spec) instead of sending it: the same idea as
 * mongo-perf's own CommandTracer (util/utils.js), which captures a pre() as commands for mongoebench.
 * pre() runs synchronously in a sandbox while the driver is asynchronous, so recording is the only
 * way; the steps then run through the driver before every step.
 *
 * Only calls that need no answer can be recorded. A pre() that reads (find, count, aggregate,
 * getPlanCache, ...) throws UnsupportedShellCall naming the call; the test is reported as unsupported.
 */
import { Namespace } from '../op-spec';
import { SetupStep } from '../setup-spec';

export class UnsupportedShellCall extends Error {
  constructor(readonly call: string) {
    super(
      `its set-up calls ${call}, which mongo-bench's shell stand-in cannot answer (only calls that need no reply are recorded)`,
    );
    this.name = 'UnsupportedShellCall';
  }
}

type Doc = Record<string, unknown>;

/** Where the recorded steps go; one per recording (one pre() call). */
export class SetupRecording {
  readonly steps: SetupStep[] = [];

  command(db: string, command: Doc): void {
    this.steps.push({ kind: 'command', db, command });
  }

  insert(ns: Namespace, docs: Doc[]): void {
    const last = this.steps.at(-1);
    // Consecutive inserts into one collection become one step (sent in batches anyway).
    if (last?.kind === 'documents' && last.ns.db === ns.db && last.ns.coll === ns.coll)
      last.documents.push(...docs);
    else this.steps.push({ kind: 'documents', ns, documents: [...docs] });
  }
}

const OK = Object.freeze({ ok: 1 });
const WRITE_OK = Object.freeze({ nInserted: 1, ok: 1 });

/** A shell call a setup cannot be recorded through: calling it throws UnsupportedShellCall. */
export function unsupported(call: string): () => never {
  return () => {
    throw new UnsupportedShellCall(call);
  };
}

/** The shell's index-spec forms: createIndex(key, options) -> one createIndexes entry. */
function indexEntry(key: Doc, options: Doc | undefined): Doc {
  const name =
    (options?.name as string | undefined) ??
    Object.entries(key)
      .map(([k, v]) => `${k}_${String(v)}`)
      .join('_');
  return { key, name, ...(options ?? {}) };
}

export class ShellCollection {
  constructor(
    private readonly rec: SetupRecording,
    private readonly database: ShellDb,
    private readonly name: string,
  ) {}

  getName(): string {
    return this.name;
  }
  getFullName(): string {
    return `${this.database.getName()}.${this.name}`;
  }
  getDB(): ShellDb {
    return this.database;
  }
  getMongo(): unknown {
    return this.database.getMongo();
  }
  private get ns(): Namespace {
    return { db: this.database.getName(), coll: this.name };
  }

  drop(): boolean {
    this.rec.command(this.database.getName(), { drop: this.name });
    return true;
  }
  createIndex(key: Doc, options?: Doc): Doc {
    this.rec.command(this.database.getName(), {
      createIndexes: this.name,
      indexes: [indexEntry(key, options)],
    });
    return OK;
  }
  ensureIndex(key: Doc, options?: Doc): Doc {
    return this.createIndex(key, options);
  }
  createIndexes(keys: Doc[], options?: Doc): Doc {
    this.rec.command(this.database.getName(), {
      createIndexes: this.name,
      indexes: keys.map((k) => indexEntry(k, options)),
    });
    return OK;
  }
  dropIndex(index: unknown): Doc {
    this.rec.command(this.database.getName(), { dropIndexes: this.name, index });
    return OK;
  }
  insert(docs: Doc | Doc[]): Doc {
    this.rec.insert(this.ns, Array.isArray(docs) ? docs : [docs]);
    return WRITE_OK;
  }
  insertOne(doc: Doc): Doc {
    return this.insert(doc);
  }
  insertMany(docs: Doc[]): Doc {
    return this.insert(docs);
  }
  save(doc: Doc): Doc {
    return this.insert(doc);
  }
  update(query: Doc, update: unknown, options?: Doc): Doc {
    const multi = Boolean(options?.multi);
    const upsert = Boolean(options?.upsert);
    this.rec.command(this.database.getName(), {
      update: this.name,
      updates: [{ q: query, u: update, multi, upsert }],
    });
    return OK;
  }
  updateMany(query: Doc, update: unknown): Doc {
    return this.update(query, update, { multi: true });
  }
  updateOne(query: Doc, update: unknown): Doc {
    return this.update(query, update);
  }
  remove(query: Doc, justOne?: unknown): Doc {
    this.rec.command(this.database.getName(), {
      delete: this.name,
      deletes: [{ q: query ?? {}, limit: justOne ? 1 : 0 }],
    });
    return OK;
  }
  deleteMany(query: Doc): Doc {
    return this.remove(query);
  }
  /** `collection.runCommand("create", {capped: true, ...})`: the command named, on this collection. */
  runCommand(name: string | Doc, extra?: Doc): Doc {
    const command = typeof name === 'string' ? { [name]: this.name, ...(extra ?? {}) } : name;
    this.rec.command(this.database.getName(), command);
    return OK;
  }
  initializeUnorderedBulkOp(): ShellBulk {
    return new ShellBulk(this);
  }
  initializeOrderedBulkOp(): ShellBulk {
    return new ShellBulk(this);
  }

  find = unsupported('collection.find()');
  findOne = unsupported('collection.findOne()');
  count = unsupported('collection.count()');
  countDocuments = unsupported('collection.countDocuments()');
  aggregate = unsupported('collection.aggregate()');
  distinct = unsupported('collection.distinct()');
  getIndexes = unsupported('collection.getIndexes()');
  getPlanCache = unsupported('collection.getPlanCache()');
  stats = unsupported('collection.stats()');
  explain = unsupported('collection.explain()');
}

/** The bulk API's inserts (what mongo-perf's pre() functions use it for). */
export class ShellBulk {
  private readonly docs: Doc[] = [];
  constructor(private readonly coll: ShellCollection) {}
  insert(doc: Doc): void {
    this.docs.push(doc);
  }
  execute(): Doc {
    if (this.docs.length > 0) this.coll.insert(this.docs.splice(0));
    return { nInserted: 1, ok: 1 };
  }
  find = unsupported('bulk.find()');
}

export class ShellDb {
  constructor(
    private readonly rec: SetupRecording,
    private readonly name: string,
  ) {}

  getName(): string {
    return this.name;
  }
  toString(): string {
    return this.name;
  }
  getMongo(): { host: string } {
    return { host: '127.0.0.1' };
  }
  getCollection(name: string): ShellCollection {
    return new ShellCollection(this.rec, this, name);
  }
  getSiblingDB(name: string): ShellDb {
    return new ShellDb(this.rec, name);
  }
  createCollection(name: string, options?: Doc): Doc {
    this.rec.command(this.name, { create: name, ...(options ?? {}) });
    return OK;
  }
  createView(name: string, viewOn: string, pipeline: unknown[], options?: Doc): Doc {
    this.rec.command(this.name, { create: name, viewOn, pipeline, ...(options ?? {}) });
    return OK;
  }
  runCommand(command: string | Doc, extra?: Doc): Doc {
    this.rec.command(
      this.name,
      typeof command === 'string' ? { [command]: 1, ...(extra ?? {}) } : command,
    );
    return OK;
  }
  adminCommand(command: string | Doc): Doc {
    this.rec.command('admin', typeof command === 'string' ? { [command]: 1 } : command);
    return OK;
  }
  dropDatabase(): Doc {
    this.rec.command(this.name, { dropDatabase: 1 });
    return OK;
  }
  version = unsupported('db.version()');
  serverStatus = unsupported('db.serverStatus()');
  getCollectionNames = unsupported('db.getCollectionNames()');
  isMaster = unsupported('db.isMaster()');
}
