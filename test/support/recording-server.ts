/**
 * A recording server: speaks just enough of the MongoDB wire protocol (OP_MSG, plus the legacy
 * OP_QUERY the drivers use for the first handshake) for real mongosh and the Node driver to
 * connect and run scripts, and records every command it receives. Tests run a generated script
 * against it and compare the recorded commands with what the script should have sent.
 *
 * It stores nothing: reads return empty cursors, writes report zero documents touched, and any
 * other command answers `{ok: 1}` unless a handler says otherwise. The wire format is read and
 * written by lib/wire/op-msg (the null server's too). See
 * docs/testing-recording-server.md.
 */
import * as net from 'node:net';
import { BSON } from 'mongodb';
import { helloDoc, MAX_WIRE_VERSION } from '../../lib/calibrate/null-server';
import {
  Doc,
  encodeOpMsg,
  encodeOpReply,
  IncomingCommand,
  MessageFramer,
  parseRequest,
} from '../../lib/wire/op-msg';

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
    'hello',
    'isMaster',
    'buildInfo',
    'endSessions',
    'getLog',
    'getCmdLineOpts',
    'atlasVersion',
    'connectionStatus',
    'hostInfo',
    'saslStart',
    'saslContinue',
    'getFreeMonitoringStatus',
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
    return (
      body.getParameter === 'foo' ||
      (keys.length === 2 && body.featureCompatibilityVersion === 1 && body.getParameter === 1)
    );
  }
  return name === 'aggregate' && command.db === 'admin' && body.aggregate === 'atlascli';
}

/** Envelope fields the driver adds to every command; not part of what the script asked for. */
const ENVELOPE_FIELDS = ['$db', 'lsid', '$clusterTime', '$readPreference'];

/** Larger than any legitimate message (the server's maxMessageSizeBytes is 48 MB). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export async function startRecordingServer(
  options: RecordingServerOptions = {},
): Promise<RecordingServer> {
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
    const framer = new MessageFramer(MAX_MESSAGE_BYTES);
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
      try {
        framer.push(chunk, (message) => send(respond(message, connectionId)));
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

  function respond(
    message: Buffer,
    connectionId: number,
  ): Buffer | undefined | Promise<Buffer | undefined> {
    const requestId = message.readInt32LE(4);
    const incoming = parseRequest(message);
    const reply = commandReply(incoming, connectionId);
    if (reply instanceof Promise) return reply.then((doc) => encodeReply(incoming, requestId, doc));
    return encodeReply(incoming, requestId, reply);
  }

  function encodeReply(
    incoming: IncomingCommand,
    requestId: number,
    reply: Doc,
  ): Buffer | undefined {
    if (incoming.noReply) return undefined;
    const encode = incoming.legacy ? encodeOpReply : encodeOpMsg;
    try {
      return encode(nextResponseId++, requestId, reply);
    } catch (err) {
      // A handler returned something BSON cannot hold: tell the client instead of hanging up.
      const errmsg = `reply to ${Object.keys(incoming.doc)[0]} is not serializable: ${(err as Error).message}`;
      return encode(nextResponseId++, requestId, {
        ok: 0,
        errmsg,
        code: 1,
        codeName: 'InternalError',
      });
    }
  }

  function commandReply(incoming: IncomingCommand, connectionId: number): Doc | Promise<Doc> {
    const name = Object.keys(incoming.doc)[0] ?? '';
    const body = withoutEnvelope(incoming.doc);
    commands.push({ db: incoming.db, name, body, at: Date.now(), raw: incoming.doc });
    const handler = findHandler(userHandlers, name);
    const threw = (err: unknown): Doc => ({
      ok: 0,
      errmsg: `handler for ${name} threw: ${(err as Error).message}`,
      code: 1,
      codeName: 'InternalError',
    });
    let given: ReturnType<CommandHandler>;
    try {
      given = handler?.(body, incoming.db, server, { id: connectionId });
    } catch (err) {
      given = threw(err);
    }
    if (given instanceof Promise)
      return given.then(
        (r) => completeReply(name, body, incoming.db, connectionId, r),
        (err: unknown) => threw(err),
      );
    return completeReply(name, body, incoming.db, connectionId, given);
  }

  function completeReply(
    name: string,
    body: Doc,
    db: string,
    connectionId: number,
    handled: Doc | undefined,
  ): Doc {
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

function findHandler(
  handlers: Record<string, CommandHandler>,
  name: string,
): CommandHandler | undefined {
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
      return body.getLog === '*'
        ? { names: ['global', 'startupWarnings'], ok: 1 }
        : { totalLinesWritten: 0, log: [], ok: 1 };
    case 'getcmdlineopts':
      return { argv: ['mongod'], parsed: {}, ok: 1 };
    case 'getparameter':
      return body.featureCompatibilityVersion
        ? { featureCompatibilityVersion: { version: '7.0' }, ok: 1 }
        : { ok: 1 };
    case 'connectionstatus':
      return { authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 };
    case 'atlasversion':
      // What a non-Atlas mongod answers.
      return {
        ok: 0,
        errmsg: "no such command: 'atlasVersion'",
        code: 59,
        codeName: 'CommandNotFound',
      };
    case 'hostinfo':
      return {
        system: { hostname: '127.0.0.1', cpuArch: 'x86_64', numCores: 1 },
        os: { type: 'Linux' },
        extra: {},
        ok: 1,
      };
    case 'find':
    case 'listindexes':
      return cursorReply(`${db}.${collectionName(body[name], '')}`);
    case 'aggregate':
      return cursorReply(
        typeof body[name] === 'string' ? `${db}.${body[name]}` : `${db}.$cmd.aggregate`,
      );
    case 'listcollections':
      return cursorReply(`${db}.$cmd.listCollections`);
    case 'getmore':
      return {
        cursor: {
          id: BSON.Long.ZERO,
          ns: `${db}.${collectionName(body.collection, '')}`,
          nextBatch: [],
        },
        ok: 1,
      };
    case 'listdatabases':
      return body.nameOnly
        ? { databases: [], ok: 1 }
        : { databases: [], totalSize: 0, totalSizeMb: 0, ok: 1 };
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
