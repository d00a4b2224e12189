/**
 * The null server: a MongoDB wire-protocol responder that answers at once and stores nothing, so a
 * client measured against it shows only its own cost (the engine's ceiling, `mongo-bench calibrate`).
 *
 * It speaks OP_MSG (and the legacy OP_QUERY the Node driver uses for its first handshake), answers
 * `hello`/`isMaster`, `ping`, `buildInfo`, `endSessions`, `find` (a one-document first batch, cursor
 * id 0), `getMore` (an empty last batch), `update`/`insert`/`delete` (ok, n), and any other command
 * with CommandNotFound. The replies of the hot commands are serialized once at start-up; answering
 * one copies a prebuilt buffer and writes two ids into its header. Run it in its own process
 * (spawnNullServer in ./null-server-process) so that its CPU is never counted as the client's.
 * The wire format is read and written by ./wire-protocol.
 */
import * as net from 'node:net';
import { BSON } from 'mongodb';
import {
  Doc,
  encodeOpMsg,
  encodeOpReply,
  firstKey,
  HEADER_BYTES,
  MessageFramer,
  MSG_MORE_TO_COME,
  OP_MSG,
  OP_QUERY,
  opMsgBodyOffset,
  parseRequest,
  ProtocolError,
} from '../wire/op-msg';

export interface NullServerOptions {
  /** Loopback only: 127.0.0.1 (the default) or ::1. */
  host?: '127.0.0.1' | '::1';
  /** 0 (the default): a free port. */
  port?: number;
  /** BSON size of the document `find` returns (default 1024, the 6to1 preset's --doc-size). */
  docBytes?: number;
  /**
   * Answer serverStatus with opcounters, counted as a mongod counts them (find as query, each inserted
   * document, each update and delete statement, getMore, any other command as command), so the run's
   * consistency check has a server side. Off by default: without it serverStatus is CommandNotFound,
   * a server that reports no counters.
   */
  opcounters?: boolean;
}

export interface NullServer {
  uri: string;
  port: number;
  /** Commands answered so far (handshakes included). */
  readonly answered: number;
  /**
   * Holds every reply to a workload command (find, getMore, insert, update, delete) until `ms` from now,
   * then sends them: a server or network that stops answering for a while (the handshake, hello and
   * ping still answer, so the driver keeps the server selectable). Off the calibration's path when unused.
   */
  stall(ms: number): void;
  /**
   * Replies to workload commands wait `ms` (0: none): every one (a slow server), or with `every` one
   * reply at a time, the next one held `every` replies after the last was sent (a few slow ops while the
   * others answer).
   */
  setDelay(ms: number, every?: number): void;
  /**
   * For `ms` from now, insert, update and delete are answered NotWritablePrimary (10107), as a
   * primary that stepped down answers a write (mongodb/mongo src/mongo/db/service_entry_point_common.cpp).
   */
  refuseWrites(ms: number): void;
  stop(): Promise<void>;
}

/** The commands a workload sends: the ones stall and setDelay hold back. */
const WORKLOAD_COMMANDS = new Set(['find', 'getMore', 'insert', 'update', 'delete']);
const WRITE_COMMANDS = new Set(['insert', 'update', 'delete']);

/** What we claim to be: MongoDB 7.0's wire version, recent enough for driver 7. */
export const NULL_SERVER_VERSION = '7.0.0';
export const MAX_WIRE_VERSION = 21;
export const NULL_SERVER_NS = 'nullserver.null';

const MAX_MESSAGE_BYTES = 48_000_000;

/**
 * A standalone mongod's handshake reply, in the vocabulary the client asked in (isMaster gets
 * `ismaster`, hello gets `isWritablePrimary`); test/support's recording server answers with it too.
 */
export function helloDoc(legacyName: boolean, connectionId: number): Doc {
  return {
    ...(legacyName ? { ismaster: true } : { isWritablePrimary: true }),
    helloOk: true,
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: MAX_MESSAGE_BYTES,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    // Sessions supported, as on any mongod: the driver attaches lsid to commands, as it would there.
    logicalSessionTimeoutMinutes: 30,
    connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

/** A document of about `bytes` BSON bytes, shaped like the loader's. */
function sampleDocument(bytes: number): Doc {
  const base: Doc = { _id: 0, k: 0, group: 0, counter: 0, pad: '' };
  const overhead = BSON.calculateObjectSize(base);
  return { ...base, pad: 'x'.repeat(Math.max(0, bytes - overhead)) };
}

/** A reply template with a zero header: requestID and responseTo are written per answer. */
const opMsg = (doc: Doc): Buffer => encodeOpMsg(0, 0, doc);

interface Prebuilt {
  find: Buffer;
  getMore: Buffer;
  listCollections: Buffer;
  update: Buffer;
  delete: Buffer;
  insertOne: Buffer;
  ok: Buffer;
  buildInfo: Buffer;
}

function prebuild(docBytes: number): Prebuilt {
  const cursor = (batch: 'firstBatch' | 'nextBatch', docs: Doc[]) => ({
    cursor: { [batch]: docs, id: BSON.Long.ZERO, ns: NULL_SERVER_NS },
    ok: 1,
  });
  return {
    find: opMsg(cursor('firstBatch', [sampleDocument(docBytes)])),
    getMore: opMsg(cursor('nextBatch', [])),
    // It keeps no data: no collection exists, so the write plan finds every namespace absent.
    listCollections: opMsg(cursor('firstBatch', [])),
    update: opMsg({ n: 1, nModified: 1, ok: 1 }),
    delete: opMsg({ n: 1, ok: 1 }),
    insertOne: opMsg({ n: 1, ok: 1 }),
    ok: opMsg({ ok: 1 }),
    buildInfo: opMsg({
      version: NULL_SERVER_VERSION,
      versionArray: [7, 0, 0, 0],
      gitVersion: 'mongo-bench-null-server',
      modules: [],
      allocator: 'system',
      javascriptEngine: 'none',
      bits: 64,
      debug: false,
      maxBsonObjectSize: 16 * 1024 * 1024,
      storageEngines: [],
      ok: 1,
    }),
  };
}

/** insert's document count: the `documents` sequence, else the inline array (decoded: rare). */
function insertCount(message: Buffer, end: number, body: number): number {
  let count = 0;
  let sequences = false;
  for (let at = HEADER_BYTES + 4; at < end;) {
    const kind = message[at];
    if (kind === 0) {
      at += 1 + message.readInt32LE(at + 1);
      continue;
    }
    sequences = true;
    const sectionEnd = at + 1 + message.readInt32LE(at + 1);
    let doc = message.indexOf(0, at + 5) + 1;
    while (doc < sectionEnd) {
      count++;
      doc += message.readInt32LE(doc);
    }
    at = sectionEnd;
  }
  if (sequences) return count;
  const decoded = BSON.deserialize(message.subarray(body, body + message.readInt32LE(body)));
  return Array.isArray(decoded.documents) ? decoded.documents.length : 0;
}

export async function startNullServer(options: NullServerOptions = {}): Promise<NullServer> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== '::1')
    throw new RangeError(
      `the null server listens on loopback only (127.0.0.1 or ::1), not ${String(host)}`,
    );
  const replies = prebuild(options.docBytes ?? 1024);
  // The commands answered from a template, by name.
  const templated = new Map<string, Buffer>([
    ['find', replies.find],
    ['update', replies.update],
    ['getMore', replies.getMore],
    ['listCollections', replies.listCollections],
    ['delete', replies.delete],
    ['ping', replies.ok],
    ['endSessions', replies.ok],
    ['killCursors', replies.ok],
    ['buildInfo', replies.buildInfo],
    ['buildinfo', replies.buildInfo],
  ]);
  const sockets = new Set<net.Socket>();
  let nextConnectionId = 1;
  let nextResponseId = 1;
  let answered = 0;
  /** Date.now() until which workload replies are held; delay added to each; writes refused until. */
  let stallUntil = 0;
  let delayMs = 0;
  let delayEvery = 1;
  let workloadReplies = 0;
  let holding = false;
  let refuseWritesUntil = 0;
  const notWritablePrimary = opMsg({
    ok: 0,
    errmsg: 'not primary (mongo-bench null server)',
    code: 10107,
    codeName: 'NotWritablePrimary',
  });
  const counters = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
  const countOp = (name: string, documents: number): void => {
    if (name === 'find') counters.query++;
    else if (name === 'insert') counters.insert += documents;
    else if (name === 'update') counters.update++;
    else if (name === 'delete') counters.delete++;
    else if (name === 'getMore') counters.getmore++;
    else counters.command++;
  };
  const serverStatus = (): Buffer =>
    opMsg({
      host: `127.0.0.1:${port}`,
      version: NULL_SERVER_VERSION,
      process: 'mongod',
      uptime: process.uptime(),
      opcounters: { ...counters },
      connections: { current: sockets.size },
      ok: 1,
    });

  const send = (socket: net.Socket, template: Buffer, responseTo: number): void => {
    const out = Buffer.allocUnsafe(template.length);
    template.copy(out);
    out.writeInt32LE(nextResponseId++, 4);
    out.writeInt32LE(responseTo, 8);
    socket.write(out);
    answered++;
  };

  const answerOpMsg = (socket: net.Socket, message: Buffer, connectionId: number): void => {
    const requestId = message.readInt32LE(4);
    const end = message.length;
    const flags = message.readUInt32LE(HEADER_BYTES);
    const body = opMsgBodyOffset(message, end);
    const name = firstKey(message, body);
    const documents = name === 'insert' ? insertCount(message, end, body) : 1;
    // Counted before the reply is built: mongod's serverStatus counts itself too.
    if (options.opcounters === true) countOp(name, documents);
    let reply = templated.get(name);
    if (!reply) {
      if (name === 'insert')
        reply = documents === 1 ? replies.insertOne : opMsg({ n: documents, ok: 1 });
      else if (name === 'serverStatus' && options.opcounters === true) reply = serverStatus();
      else if (name === 'hello' || name === 'isMaster' || name === 'ismaster')
        reply = opMsg(helloDoc(name !== 'hello', connectionId));
      else
        reply = opMsg({
          ok: 0,
          errmsg: `no such command: '${name}' (mongo-bench null server)`,
          code: 59,
          codeName: 'CommandNotFound',
        });
    }
    // moreToCome (an unacknowledged write): the client expects no reply.
    if ((flags & MSG_MORE_TO_COME) !== 0) return;
    if ((stallUntil > 0 || delayMs > 0 || refuseWritesUntil > 0) && WORKLOAD_COMMANDS.has(name)) {
      const now = Date.now();
      if (WRITE_COMMANDS.has(name) && now < refuseWritesUntil) reply = notWritablePrimary;
      let delayed = 0;
      if (delayMs > 0 && delayEvery === 1) delayed = delayMs;
      else if (delayMs > 0 && !holding && ++workloadReplies >= delayEvery) {
        workloadReplies = 0;
        holding = true;
        delayed = delayMs;
      }
      const wait = Math.max(0, stallUntil - now) + delayed;
      if (wait > 0) {
        const held = reply;
        setTimeout(() => {
          if (delayed > 0 && delayEvery > 1) holding = false;
          if (!socket.destroyed) send(socket, held, requestId);
        }, wait);
        return;
      }
    }
    send(socket, reply, requestId);
  };

  const answerOpQuery = (socket: net.Socket, message: Buffer, connectionId: number): void => {
    // Once per connection at most: decoding the whole request costs nothing that is measured.
    const name = Object.keys(parseRequest(message).doc)[0] ?? '';
    if (name !== 'hello' && name.toLowerCase() !== 'ismaster')
      throw new ProtocolError(`legacy OP_QUERY ${name}: only the handshake is answered`);
    send(
      socket,
      encodeOpReply(0, 0, helloDoc(name !== 'hello', connectionId)),
      message.readInt32LE(4),
    );
  };

  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const connectionId = nextConnectionId++;
    const framer = new MessageFramer(MAX_MESSAGE_BYTES);
    socket.on('data', (chunk: Buffer) => {
      try {
        framer.push(chunk, (message) => {
          const opCode = message.readInt32LE(12);
          if (opCode === OP_MSG) answerOpMsg(socket, message, connectionId);
          else if (opCode === OP_QUERY) answerOpQuery(socket, message, connectionId);
          else throw new ProtocolError(`unsupported opCode ${opCode}`);
        });
      } catch {
        // Something we cannot parse: hang up rather than guess.
        socket.destroy();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(options.port ?? 0, host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
  const port = (tcp.address() as net.AddressInfo).port;
  let stopping: Promise<void> | undefined;
  return {
    uri: `mongodb://${host === '::1' ? '[::1]' : host}:${port}/?directConnection=true`,
    port,
    get answered() {
      return answered;
    },
    stall(ms: number) {
      stallUntil = Math.max(stallUntil, Date.now() + ms);
    },
    setDelay(ms: number, every = 1) {
      delayMs = Math.max(0, ms);
      delayEvery = Math.max(1, Math.floor(every));
    },
    refuseWrites(ms: number) {
      refuseWritesUntil = Math.max(refuseWritesUntil, Date.now() + ms);
    },
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        tcp.close(() => resolve());
      });
      return stopping;
    },
  };
}
