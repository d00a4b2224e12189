/**
 * What one op kind is made of: every fact about a benchRun op type lives in its own module of this
 * folder (find-one.ts, find.ts, ...), registered by one line in ./index.ts (OP_KINDS). The op spec
 * (../op-spec.ts), the engine (../../engine/compile-ops.ts, op-commands.ts), the legacy script, the
 * benchRun figures and the consistency check read them from there.
 *
 * The modules stay in the workload language (they import only the language, config and common):
 * the driver handle they send through, and the engine's wire helpers, are handed to `bind` (OpWire).
 */
import type { Document, ReadConcern, ReadPreference, WriteConcern } from 'mongodb';
import type { ClientState, Generator, TemplateScope } from '../template';

/** Reads and writes are reported separately; `nop` and `let` never reach the server and are not counted. */
export type OpClass = 'read' | 'write' | 'none';

export const READ_PREFERENCE_MODES = [
  'primary',
  'primaryPreferred',
  'secondary',
  'secondaryPreferred',
  'nearest',
] as const;
export type ReadPreferenceSpec = {
  mode: (typeof READ_PREFERENCE_MODES)[number];
  tags?: Record<string, string>[];
  maxStalenessSeconds?: number;
};

export interface Namespace {
  db: string;
  coll: string;
}

/** A validated op; `T` is its type (../op-spec.ts narrows it to the registry's OpType). */
export interface OpSpec<T extends string = string> {
  /** Position in the ops array (for messages). */
  index: number;
  type: T;
  ns?: Namespace;
  query?: unknown;
  update?: unknown;
  doc?: unknown;
  projection?: unknown;
  sort?: unknown;
  limit?: number;
  skip?: number;
  batchSize?: number;
  multi: boolean;
  upsert: boolean;
  writeConcern?: Record<string, unknown>;
  readPreference?: ReadPreferenceSpec;
  command?: unknown;
  target?: string;
  value?: unknown;
  /** benchRun's `delay`: milliseconds to pause after the op. */
  delayMs: number;
  /** benchRun's `throwGLE`: a write error counts as a failed op in the benchRun figures (engine/benchrun-outcome). */
  throwGLE?: boolean;
  /**
   * mongo-bench's extension: the op's share of a weighted workload (ops drawn at random by weight,
   * ../weighted-pick). Either every op of a workload has one or none has.
   */
  weight?: number;
}

/** An op with its templates compiled (engine/compile-ops.ts prepareWorkload). */
export interface PreparedOp<T extends string = string> {
  spec: OpSpec<T>;
  opClass: OpClass;
  query?: Generator;
  update?: Generator;
  /** Produces a fresh document (or array of documents) per insert: the driver adds `_id` to what it is given. */
  doc?: Generator;
  command?: Generator;
  value?: Generator;
  varSlot?: number;
}

/** How benchRun would count a failed op (engine/benchrun-outcome.ts says each rule's source). */
export type BenchRunFailure = 'op-and-error' | 'op' | 'error';

/** benchRun's names for an op type's figures: the per-second rate field, the count field, the latency field. */
export interface BenchRunFigureNames {
  rate: string;
  count: string;
  latency: string;
}

/** serverStatus opcounters an op moves (getmore is left out: it belongs to the find the client counted once). */
export type OpCounter = 'query' | 'insert' | 'update' | 'delete' | 'command';

/** The op's fields as the op spec reads them: each reader throws a UsageError naming `ops[i].field`. */
export interface OpFields {
  /** `ops[i]`, for messages. */
  at: string;
  /** The name the op was given (an alias such as `query` included). */
  opName: string;
  raw: Record<string, unknown>;
  bad(path: string, message: string): never;
  object(key: string, required?: boolean): Record<string, unknown> | undefined;
  /** A non-negative integer. */
  count(key: string): number | undefined;
  flag(key: string): boolean;
}

/** Compiles one template of the op; `field` names it in messages (`ops[i].field`). */
export type CompileField = (value: unknown, field: string) => Generator;

/** A cursor command's cursor as ops use it: read to its end, its documents counted. */
export interface CommandCursor {
  /** The cursor's id once the command answered; undefined before. */
  readonly id?: unknown;
  setBatchSize(size: number): unknown;
  toArray(): Promise<unknown[]>;
}

/**
 * The handle an op sends through, for the op's database: what ops use of the driver's Db, so that
 * both clients implement it (`--driver node`: the driver's Db itself; `--driver wire`: lib/wire's
 * WireDb). Its client's read preference, read concern and write concern are the defaults ops inherit.
 */
export interface CommandDb {
  readonly databaseName: string;
  readonly readPreference: ReadPreference;
  readonly readConcern?: ReadConcern;
  readonly writeConcern?: WriteConcern;
  /** One command; resolves with its reply, rejects with the driver's errors (ok: 0 a MongoServerError). */
  command(command: Document, options?: Document): Promise<Document>;
  /** A command that opens a cursor, then getMore on the same server. */
  runCursorCommand(command: Document, options?: Document): CommandCursor;
}

/**
 * What the engine hands an op that reaches the server: the handle for the op's database (the write
 * guard's, engine/write-handles.ts) and the wire helpers (engine/op-commands.ts), so the op says which
 * command it sends and how a failure counts without importing the engine.
 */
export interface OpWire {
  db: CommandDb;
  coll: string;
  /** The client's read concern level, sent with reads: `{level}`. */
  readConcern?: Document;
  /** For reads: raw replies, the op's read preference or else the client's. */
  readOptions: Document;
  /** The op's own read preference (a command without one goes to the primary). */
  readPreference?: ReadPreference;
  /** --op-timeout: sent as maxTimeMS with find and findOne. */
  maxTimeMS?: number;
  /** `{ raw: true }`: nested reply documents stay bytes. */
  raw: Document;
  /** `{writeConcern}` as the server reads it (the op's, else the client's), or `{}`. */
  writeConcern(): Document;
  /** The fields whose value is not undefined. */
  defined(fields: Record<string, unknown>): Document;
  /** Throws what updateOne/insertOne/deleteOne throw for a reply with ok: 1 that still failed. */
  checkWrite(reply: Document): Document;
  /** Tags a server reply's error with the rule benchRun counts it by; returns it to throw. */
  failure(err: unknown, rule: BenchRunFailure): unknown;
}

export type OpRun = (state: ClientState) => Promise<unknown>;

interface OpKindBase<T extends string> {
  /** The canonical name (per-op statistics use it). */
  type: T;
  /** benchRun's other names for it (`query` for find, `delete` for remove). */
  aliases?: readonly string[];
  /** Op fields valid for it besides the ones every op takes (../op-spec.ts COMMON_FIELDS). */
  fields: readonly string[];
  opClass: OpClass | ((spec: Pick<OpSpec, 'command'>) => OpClass);
  /** Reads its own fields into the spec (`ns`, the write concern, read preference, weight and delay are read for every op). */
  parse(fields: OpFields, spec: OpSpec): void;
  /** Compiles its templates into `prepared` (once per workload, before anything connects). */
  compile(spec: OpSpec, compile: CompileField, prepared: PreparedOp, scope: TemplateScope): void;
}

/** An op sent to the server. */
export interface ServerOpKind<T extends string = string> extends OpKindBase<T> {
  local?: false;
  /** `ns` may name a database only (`db.$cmd` style commands). */
  databaseNamespace?: boolean;
  /** A write that takes the workload's default write concern when it sets none. */
  defaultWriteConcern?: boolean;
  /** The command it sends, bound once per client connection (the per-op closure is the hot path). */
  bind(op: PreparedOp, wire: OpWire): OpRun;
  /** benchRun's figure names for it (absent: benchRun has no such op and prints none). */
  benchRun?: BenchRunFigureNames;
  /** It means little on an empty collection (every op but insert): a run that loads nothing is warned (run/empty-namespaces.ts). */
  needsData: boolean;
  /** The opcounters it moves on the server that runs it. */
  opcounters: readonly OpCounter[];
  /** The raw op sends several documents, each counted by the server and the op once by the client. */
  batch?(raw: Record<string, unknown>): boolean;
  /** The field the legacy shell's benchRun wants on it: `readCmd: true` or `writeCmd: true` (writes also get the default write concern). */
  legacyShell?: 'readCmd' | 'writeCmd';
}

/** An op run by the client alone (nop, let): no `ns` used, no server, not counted as a read or write. */
export interface LocalOpKind<T extends string = string> extends OpKindBase<T> {
  local: true;
  /** Runs synchronously and returns undefined. */
  bind(op: PreparedOp): (state: ClientState) => undefined;
}

export type OpKind<T extends string = string> = ServerOpKind<T> | LocalOpKind<T>;

/** The query, projection (`filter`) and sort a find or findOne reads. */
export function parseFindFields(f: OpFields, spec: OpSpec): void {
  spec.query = f.object('query') ?? {};
  spec.projection = f.object('filter');
  spec.sort = f.object('sort');
}

/** Compiles the op's query (`ops[i].query`): the one template of find, findOne and remove. */
export function compileQuery(spec: OpSpec, compile: CompileField, prepared: PreparedOp): void {
  prepared.query = compile(spec.query, 'query');
}
