/**
 * A recording server: speaks just enough of the MongoDB wire protocol (OP_MSG, plus the legacy
 * OP_QUERY the drivers use for the first handshake) for real mongosh and the Node driver to
 * connect and run scripts, and records every command it receives. Tests run a generated script
 * against it and compare the recorded commands with what the script should have sent.
 *
 * It stores nothing: reads return empty cursors, writes report zero documents touched, and any
 * other command answers `{ok: 1}` unless a handler says otherwise. See
 * docs/testing-recording-server.md.
 */
import * as net from 'node:net';
import { BSON } from 'mongodb';
import { helloDoc, MAX_WIRE_VERSION } from '../../lib/calibrate/null-server';

export interface RecordedCommand {
  /** The database the command ran against (`$db`, or the `<db>.$cmd` namespace of OP_QUERY). */
  db: string;
  /** The command name: the first key of the command document, as sent (e.g. `replSetInitiate`). */
  name: string;
  /**
   * The command document with OP_MSG document sequences merged in, minus the envelope fields the
   * driver adds to every command (`$db`, `lsid`, `$clusterTime`, `$readPreference`).
   */
  body: Record<string, unknown>;
  /** Date.now() when the command was received. */
  at: number;
  /** The whole command document as received (document sequences merged, envelope included). */
  raw: Record<string, unknown>;
}

/**
 * Returns the reply for one command, or undefined to fall back to the default reply.
 * A reply without `ok` gets `ok: 1`; return `{ok: 0, errmsg, code, codeName}` to simulate failure.
 * A handler may also return a promise (a stand-in that must ask another server before it answers);
 * replies on one connection still go out in request order.
 */
export type CommandHandler = (
  body: Record<string, unknown>,
  db: string,
  server: RecordingServer,
  /** The client connection the command came on (e.g. per-connection authentication state). */
  connection?: { id: number },
) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;

export interface RecordingServerOptions {
  /** Handlers by command name (matched exactly, then case-insensitively). */
  handlers?: Record<string, CommandHandler>;
  /** Interface to bind; 127.0.0.1 by default. */
  host?: string;
  /** Port to bind; 0 (a free port) by default. */
  port?: number;
  /**
   * Extra fields for every hello/isMaster reply, e.g. `{msg: 'isdbgrid'}` to pose as a mongos
   * (mongosh's sh.* helpers check it) or `{setName: 'rs0', hosts: [...]}` to pose as a member.
   */
  helloFields?: Record<string, unknown>;
}

export interface RecordingServer {
  /** mongodb://<host>:<port> (a standalone: the driver connects directly) */
  uri: string;
  port: number;
  /** Every command received, in order, handshake and monitoring included. */
  commands: RecordedCommand[];
  /** Commands minus handshake / monitoring / mongosh start-up noise (see isStartupNoise). */
  userCommands(): RecordedCommand[];
  clear(): void;
  stop(): Promise<void>;
}

/** The wire version we claim (MongoDB 7.0): recent enough for mongosh 2 and driver 7. */
export { MAX_WIRE_VERSION };
export const SERVER_VERSION = '7.0.0';

/** Commands that drivers and mongosh send on their own, whatever their arguments. */
const NOISE_COMMANDS: ReadonlySet<string> = new Set(
  [
    'hello', 'isMaster', 'buildInfo', 'endSessions', 'getLog', 'getCmdLineOpts', 'atlasVersion',
    'connectionStatus', 'hostInfo', 'saslStart', 'saslContinue', 'getFreeMonitoringStatus',
  ].map((n) => n.toLowerCase()),
);

/**
 * True for handshake, monitoring and mongosh start-up commands. Besides NOISE_COMMANDS, mongosh
 * 2.x probes the server when it connects (concurrently with the script, so order cannot tell them
 * apart): `{getParameter: 1, featureCompatibilityVersion: 1}`, `{getParameter: 'foo'}` (server
 * identification) and an `aggregate` on `admin.atlascli` (Atlas local dev detection).
 */
export function isStartupNoise(command: Pick<RecordedCommand, 'db' | 'name' | 'body'>): boolean {
  const name = command.name.toLowerCase();
  if (NOISE_COMMANDS.has(name)) return true;
  const body = command.body;
  if (name === 'getparameter') {
    const keys = Object.keys(body);
    return body.getParameter === 'foo' || (keys.length === 2 && body.featureCompatibilityVersion === 1 && body.getParameter === 1);
  }
  return name === 'aggregate' && command.db === 'admin' && body.aggregate === 'atlascli';
}

/** Envelope fields the driver adds to every command; not part of what the script asked for. */
const ENVELOPE_FIELDS = ['$db', 'lsid', '$clusterTime', '$readPreference'];

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_COMPRESSED = 2012;
const OP_MSG = 2013;
const HEADER_BYTES = 16;
const MSG_CHECKSUM_PRESENT = 1 << 0;
const MSG_MORE_TO_COME = 1 << 1;
/** Larger than any legitimate message (the server's maxMessageSizeBytes is 48 MB). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

type Doc = Record<string, unknown>;

interface IncomingCommand {
  db: string;
  doc: Doc;
  /** OP_MSG with moreToCome: the client expects no reply (unacknowledged write). */
  noReply: boolean;
  /** Reply as OP_REPLY (the request was a legacy OP_QUERY). */
  legacy: boolean;
}

class ProtocolError extends Error {}

export async function startRecordingServer(options: RecordingServerOptions = {}): Promise<RecordingServer> {
  const host = options.host ?? '127.0.0.1';
  const userHandlers = options.handlers ?? {};
  const sockets = new Set<net.Socket>();
  const commands: RecordedCommand[] = [];
  let nextConnectionId = 1;
  let nextResponseId = 1;

  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const connectionId = nextConnectionId++;
    let pending: Buffer = Buffer.alloc(0);
    // Replies still owed by an asynchronous handler; later replies wait behind them (request order).
    let owed: Promise<void> | undefined;
    const send = (reply: Buffer | undefined | Promise<Buffer | undefined>) => {
      if (!owed && !(reply instanceof Promise)) {
        if (reply) socket.write(reply);
        return;
      }
      const previous = owed ?? Promise.resolve();
      const mine: Promise<void> = previous
        .then(() => reply)
        .then((buf) => {
          if (buf && !socket.destroyed) socket.write(buf);
        })
        .catch(() => {
          socket.destroy();
        })
        .finally(() => {
          if (owed === mine) owed = undefined;
        });
      owed = mine;
    };
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      try {
        while (pending.length >= 4) {
          const length = pending.readInt32LE(0);
          if (length < HEADER_BYTES || length > MAX_MESSAGE_BYTES) throw new ProtocolError(`bad message length ${length}`);
          if (pending.length < length) break;
          const message = pending.subarray(0, length);
          pending = pending.subarray(length);
          send(respond(message, connectionId));
        }
      } catch {
        // A client speaking something we cannot parse: drop it rather than guess.
        socket.destroy();
      }
    });
  });

  const server: RecordingServer = {
    uri: '',
    port: 0,
    commands,
    userCommands: () => commands.filter((c) => !isStartupNoise(c)),
    clear: () => {
      commands.length = 0;
    },
    stop: () => {
      stopping ??= new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        tcp.close((err) => (err ? reject(err) : resolve()));
      });
      return stopping;
    },
  };
  let stopping: Promise<void> | undefined;

  function respond(message: Buffer, connectionId: number): Buffer | undefined | Promise<Buffer | undefined> {
    const requestId = message.readInt32LE(4);
    const incoming = parseRequest(message);
    const reply = commandReply(incoming, connectionId);
    if (reply instanceof Promise) return reply.then((doc) => encodeReply(incoming, requestId, doc));
    return encodeReply(incoming, requestId, reply);
  }

  function encodeReply(incoming: IncomingCommand, requestId: number, reply: Doc): Buffer | undefined {
    if (incoming.noReply) return undefined;
    const encode = incoming.legacy ? encodeOpReply : encodeOpMsg;
    try {
      return encode(nextResponseId++, requestId, reply);
    } catch (err) {
      // A handler returned something BSON cannot hold: tell the client instead of hanging up.
      const errmsg = `reply to ${Object.keys(incoming.doc)[0]} is not serializable: ${(err as Error).message}`;
      return encode(nextResponseId++, requestId, { ok: 0, errmsg, code: 1, codeName: 'InternalError' });
    }
  }

  function commandReply(incoming: IncomingCommand, connectionId: number): Doc | Promise<Doc> {
    const name = Object.keys(incoming.doc)[0] ?? '';
    const body = withoutEnvelope(incoming.doc);
    commands.push({ db: incoming.db, name, body, at: Date.now(), raw: incoming.doc });
    const handler = findHandler(userHandlers, name);
    const threw = (err: unknown): Doc => ({ ok: 0, errmsg: `handler for ${name} threw: ${(err as Error).message}`, code: 1, codeName: 'InternalError' });
    let given: ReturnType<CommandHandler>;
    try {
      given = handler?.(body, incoming.db, server, { id: connectionId });
    } catch (err) {
      given = threw(err);
    }
    if (given instanceof Promise) return given.then((r) => completeReply(name, body, incoming.db, connectionId, r), (err: unknown) => threw(err));
    return completeReply(name, body, incoming.db, connectionId, given);
  }

  function completeReply(name: string, body: Doc, db: string, connectionId: number, handled: Doc | undefined): Doc {
    let reply = handled;
    if (!reply && (name.toLowerCase() === 'hello' || name.toLowerCase() === 'ismaster')) {
      reply = { ...defaultReply(name, body, db, connectionId), ...options.helloFields };
    }
    reply ??= defaultReply(name, body, db, connectionId);
    return 'ok' in reply ? reply : { ...reply, ok: 1 };
  }

  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(options.port ?? 0, host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
  const address = tcp.address() as net.AddressInfo;
  server.port = address.port;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  server.uri = `mongodb://${hostPart}:${address.port}`;
  return server;
}

function findHandler(handlers: Record<string, CommandHandler>, name: string): CommandHandler | undefined {
  if (handlers[name]) return handlers[name];
  const lower = name.toLowerCase();
  const key = Object.keys(handlers).find((k) => k.toLowerCase() === lower);
  return key ? handlers[key] : undefined;
}

function withoutEnvelope(doc: Doc): Doc {
  const body: Doc = {};
  for (const [k, v] of Object.entries(doc)) if (!ENVELOPE_FIELDS.includes(k)) body[k] = v;
  return body;
}

// ---------------------------------------------------------------------------------------------
// Default replies: enough for mongosh's start-up, the driver's handshake (lib/calibrate's helloDoc),
// and scripts that read.

function cursorReply(ns: string, firstBatch: Doc[] = []): Doc {
  // The driver parses cursor.id strictly as int64.
  return { cursor: { id: BSON.Long.ZERO, ns, firstBatch }, ok: 1 };
}

function collectionName(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/**
 * The reply the server gives when no handler answers; exported so a handler can extend it
 * (e.g. add documents to a default cursor reply).
 */
export function defaultReply(name: string, body: Doc, db: string, connectionId = 1): Doc {
  switch (name.toLowerCase()) {
    case 'hello':
      return helloDoc(false, connectionId);
    case 'ismaster':
      return helloDoc(true, connectionId);
    case 'buildinfo':
      return {
        version: SERVER_VERSION,
        versionArray: SERVER_VERSION.split('.').map(Number).concat(0),
        gitVersion: 'recording-server',
        modules: [],
        allocator: 'system',
        javascriptEngine: 'none',
        sysInfo: 'deprecated',
        bits: 64,
        debug: false,
        maxBsonObjectSize: 16 * 1024 * 1024,
        storageEngines: ['wiredTiger'],
        ok: 1,
      };
    case 'getlog':
      return body.getLog === '*' ? { names: ['global', 'startupWarnings'], ok: 1 } : { totalLinesWritten: 0, log: [], ok: 1 };
    case 'getcmdlineopts':
      return { argv: ['mongod'], parsed: {}, ok: 1 };
    case 'getparameter':
      return body.featureCompatibilityVersion ? { featureCompatibilityVersion: { version: '7.0' }, ok: 1 } : { ok: 1 };
    case 'connectionstatus':
      return { authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 };
    case 'atlasversion':
      // What a non-Atlas mongod answers.
      return { ok: 0, errmsg: "no such command: 'atlasVersion'", code: 59, codeName: 'CommandNotFound' };
    case 'hostinfo':
      return { system: { hostname: '127.0.0.1', cpuArch: 'x86_64', numCores: 1 }, os: { type: 'Linux' }, extra: {}, ok: 1 };
    case 'find':
    case 'listindexes':
      return cursorReply(`${db}.${collectionName(body[name], '')}`);
    case 'aggregate':
      return cursorReply(typeof body[name] === 'string' ? `${db}.${body[name]}` : `${db}.$cmd.aggregate`);
    case 'listcollections':
      return cursorReply(`${db}.$cmd.listCollections`);
    case 'getmore':
      return { cursor: { id: BSON.Long.ZERO, ns: `${db}.${collectionName(body.collection, '')}`, nextBatch: [] }, ok: 1 };
    case 'listdatabases':
      return body.nameOnly ? { databases: [], ok: 1 } : { databases: [], totalSize: 0, totalSizeMb: 0, ok: 1 };
    case 'insert':
      return { n: Array.isArray(body.documents) ? body.documents.length : 0, ok: 1 };
    case 'update':
      return { n: 0, nModified: 0, ok: 1 };
    case 'delete':
    case 'count':
      return { n: 0, ok: 1 };
    case 'distinct':
      return { values: [], ok: 1 };
    case 'findandmodify':
      return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
    default:
      return { ok: 1 };
  }
}

// ---------------------------------------------------------------------------------------------
// Wire format. https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/

function parseRequest(message: Buffer): IncomingCommand {
  return parseBody(message.readInt32LE(12), message.subarray(HEADER_BYTES));
}

function parseBody(opCode: number, payload: Buffer): IncomingCommand {
  switch (opCode) {
    case OP_MSG:
      return parseOpMsg(payload);
    case OP_QUERY:
      return parseOpQuery(payload);
    case OP_COMPRESSED: {
      // The hello reply lists no compressors, so clients only ever send the noop one (id 0).
      const compressorId = payload.readUInt8(8);
      if (compressorId !== 0) throw new ProtocolError(`compressor ${compressorId} was never negotiated`);
      return parseBody(payload.readInt32LE(0), payload.subarray(9));
    }
    default:
      throw new ProtocolError(`unsupported opCode ${opCode}`);
  }
}

function readDocument(buf: Buffer, offset: number): { doc: Doc; end: number } {
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > buf.length) throw new ProtocolError('truncated BSON document');
  return { doc: BSON.deserialize(buf.subarray(offset, offset + size)) as Doc, end: offset + size };
}

function readCString(buf: Buffer, offset: number): { value: string; end: number } {
  const zero = buf.indexOf(0, offset);
  if (zero < 0) throw new ProtocolError('unterminated cstring');
  return { value: buf.toString('utf8', offset, zero), end: zero + 1 };
}

function parseOpMsg(payload: Buffer): IncomingCommand {
  const flags = payload.readUInt32LE(0);
  const end = flags & MSG_CHECKSUM_PRESENT ? payload.length - 4 : payload.length;
  let offset = 4;
  let body: Doc | undefined;
  const sequences: Record<string, Doc[]> = {};
  while (offset < end) {
    const kind = payload[offset++];
    if (kind === 0) {
      const read = readDocument(payload, offset);
      body = read.doc;
      offset = read.end;
    } else if (kind === 1) {
      const sectionEnd = offset + payload.readInt32LE(offset);
      const id = readCString(payload, offset + 4);
      const docs: Doc[] = [];
      for (let at = id.end; at < sectionEnd; ) {
        const read = readDocument(payload, at);
        docs.push(read.doc);
        at = read.end;
      }
      (sequences[id.value] ??= []).push(...docs);
      offset = sectionEnd;
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new ProtocolError('OP_MSG without a body section');
  // Document sequences (e.g. insert's `documents`) belong to the command as if sent inline.
  const doc: Doc = { ...body, ...sequences };
  return {
    db: typeof body.$db === 'string' ? body.$db : 'admin',
    doc,
    noReply: (flags & MSG_MORE_TO_COME) !== 0,
    legacy: false,
  };
}

function parseOpQuery(payload: Buffer): IncomingCommand {
  const collection = readCString(payload, 4);
  // flags(4) cstring numberToSkip(4) numberToReturn(4) query
  const query = readDocument(payload, collection.end + 8).doc;
  const dot = collection.value.indexOf('.');
  if (dot < 0 || collection.value.slice(dot + 1) !== '$cmd') {
    throw new ProtocolError(`legacy OP_QUERY on ${collection.value} is not supported (commands only)`);
  }
  // Old drivers wrap the command as {$query: {...}, $readPreference: ...}.
  const doc = query.$query && typeof query.$query === 'object' ? (query.$query as Doc) : query;
  return { db: collection.value.slice(0, dot), doc, noReply: false, legacy: true };
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const buf = Buffer.alloc(HEADER_BYTES);
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(requestId, 4);
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(opCode, 12);
  return buf;
}

function encodeOpMsg(requestId: number, responseTo: number, reply: Doc): Buffer {
  const doc = BSON.serialize(reply);
  const flagsAndKind = Buffer.alloc(5); // flagBits 0, section kind 0
  return Buffer.concat([header(HEADER_BYTES + 5 + doc.length, requestId, responseTo, OP_MSG), flagsAndKind, doc]);
}

function encodeOpReply(requestId: number, responseTo: number, reply: Doc): Buffer {
  const doc = BSON.serialize(reply);
  const fields = Buffer.alloc(20); // responseFlags(4) cursorID(8) startingFrom(4) numberReturned(4)
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(HEADER_BYTES + 20 + doc.length, requestId, responseTo, OP_REPLY), fields, doc]);
}
