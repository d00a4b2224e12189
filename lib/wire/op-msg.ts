/**
 * The MongoDB wire protocol, the one home of its framing: cutting a byte stream into messages,
 * reading a request (OP_MSG, the legacy OP_QUERY drivers send for their first handshake, and the
 * no-op OP_COMPRESSED), and encoding replies (OP_MSG, OP_REPLY), as a server reads and writes them;
 * and, for the wire client (./connection.ts), a command encoded as an OP_MSG request and the body of
 * an OP_MSG reply. The null server answers from it (its hot path reads only the command's name:
 * opMsgBodyOffset and firstKey); test/support's recording server decodes whole requests with parseRequest.
 * Wire format: https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/
 */
import { BSON } from 'mongodb';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_COMPRESSED = 2012;
export const OP_MSG = 2013;
export const HEADER_BYTES = 16;
export const MSG_CHECKSUM_PRESENT = 1 << 0;
export const MSG_MORE_TO_COME = 1 << 1;
/** The smallest length a message we answer can have: a header, OP_MSG's flags and one section kind. */
const MIN_MESSAGE_BYTES = HEADER_BYTES + 5;

export type Doc = Record<string, unknown>;

/** Bytes a client sent that are not a message we can read: the server hangs up rather than guess. */
export class ProtocolError extends Error {}

/**
 * Cuts a connection's byte stream into whole messages (a message may span chunks, a chunk may hold
 * several). One per connection.
 */
export class MessageFramer {
  private pending: Buffer | undefined;

  /** maxBytes: a longer length prefix is an error, not a message to wait for. */
  constructor(private readonly maxBytes: number) {}

  /** Calls onMessage with every message `chunk` completes; throws ProtocolError on an impossible length. */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): void {
    let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (buf.length >= 4) {
      const length = buf.readInt32LE(0);
      if (length < MIN_MESSAGE_BYTES || length > this.maxBytes)
        throw new ProtocolError(`bad message length ${length}`);
      if (buf.length < length) break;
      onMessage(length === buf.length ? buf : buf.subarray(0, length));
      buf = buf.subarray(length);
    }
    if (buf.length > 0) this.pending = Buffer.from(buf);
  }
}

/** One request, decoded. */
export interface IncomingCommand {
  db: string;
  /** The command document, OP_MSG document sequences merged in as if sent inline. */
  doc: Doc;
  /** OP_MSG with moreToCome: the client expects no reply (unacknowledged write). */
  noReply: boolean;
  /** Reply as OP_REPLY (the request was a legacy OP_QUERY). */
  legacy: boolean;
}

/** Decodes a whole message (header included). */
export function parseRequest(message: Buffer): IncomingCommand {
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
      if (compressorId !== 0)
        throw new ProtocolError(`compressor ${compressorId} was never negotiated`);
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
      for (let at = id.end; at < sectionEnd;) {
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
    throw new ProtocolError(
      `legacy OP_QUERY on ${collection.value} is not supported (commands only)`,
    );
  }
  // Old drivers wrap the command as {$query: {...}, $readPreference: ...}.
  const doc = query.$query && typeof query.$query === 'object' ? (query.$query as Doc) : query;
  return { db: collection.value.slice(0, dot), doc, noReply: false, legacy: true };
}

/** Reads the first key of the BSON document at `offset` without decoding the document. */
export function firstKey(buf: Buffer, offset: number): string {
  // int32 size, then the first element: type byte, cstring name.
  const start = offset + 5;
  const end = buf.indexOf(0, start);
  if (end < 0) throw new ProtocolError('unterminated field name');
  return buf.toString('latin1', start, end);
}

/** Where an OP_MSG's body document (section kind 0) starts; document sequences (kind 1) are skipped. */
export function opMsgBodyOffset(message: Buffer, end: number): number {
  let at = HEADER_BYTES + 4;
  while (at < end) {
    const kind = message[at];
    if (kind === 0) return at + 1;
    if (kind !== 1) throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    at += 1 + message.readInt32LE(at + 1);
  }
  throw new ProtocolError('OP_MSG without a body section');
}

/** An OP_MSG reply: flagBits 0, one body section. A server answering from templates passes 0, 0 and writes the ids per answer. */
export function encodeOpMsg(requestId: number, responseTo: number, reply: Doc): Buffer {
  const body = BSON.serialize(reply);
  const out = Buffer.alloc(HEADER_BYTES + 5 + body.length);
  writeHeader(out, requestId, responseTo, OP_MSG);
  out.set(body, HEADER_BYTES + 5);
  return out;
}

/** An OP_REPLY (the answer to a legacy OP_QUERY): one document. */
export function encodeOpReply(requestId: number, responseTo: number, reply: Doc): Buffer {
  const body = BSON.serialize(reply);
  // responseFlags(4) cursorID(8) startingFrom(4) numberReturned(4)
  const out = Buffer.alloc(HEADER_BYTES + 20 + body.length);
  writeHeader(out, requestId, responseTo, OP_REPLY);
  out.writeInt32LE(1, HEADER_BYTES + 16);
  out.set(body, HEADER_BYTES + 20);
  return out;
}

function writeHeader(out: Buffer, requestId: number, responseTo: number, opCode: number): void {
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(responseTo, 8);
  out.writeInt32LE(opCode, 12);
}

/** BSON's largest document plus OP_MSG's own bytes (the server's maxMessageSizeBytes, 48 MB, is larger). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024 + 16 * 1024;
let scratch: Buffer | undefined;

/** `$db` as the last element of a command: type string, its name, int32 length, the value, NUL. */
function writeDbElement(out: Buffer, at: number, db: string): number {
  out[at++] = 0x02;
  at += out.write('$db', at, 'latin1');
  out[at++] = 0;
  const length = out.write(db, at + 4, 'utf8');
  out.writeInt32LE(length + 1, at);
  at += 4 + length;
  out[at++] = 0;
  return at;
}

/**
 * An OP_MSG request (flagBits 0, one body section) carrying `command` with `$db: db` appended, as
 * drivers send it. Serialized once into a scratch buffer (no intermediate copy), then copied out:
 * the socket keeps the returned buffer until it is written.
 */
export function encodeCommand(requestId: number, db: string, command: Doc): Buffer {
  scratch ??= Buffer.allocUnsafe(MAX_REQUEST_BYTES);
  const bodyAt = HEADER_BYTES + 5;
  const end = BSON.serializeWithBufferAndIndex(command, scratch, { index: bodyAt }) + 1;
  // Overwrite the document's closing NUL with $db, then close it again.
  let at = writeDbElement(scratch, end - 1, db);
  scratch[at++] = 0;
  scratch.writeInt32LE(at - bodyAt, bodyAt);
  scratch.writeInt32LE(at, 0);
  scratch.writeInt32LE(requestId, 4);
  scratch.writeInt32LE(0, 8);
  scratch.writeInt32LE(OP_MSG, 12);
  scratch.writeUInt32LE(0, HEADER_BYTES);
  scratch[HEADER_BYTES + 4] = 0;
  return Buffer.from(scratch.subarray(0, at));
}

/** A reply's responseTo: the request it answers. */
export function responseTo(message: Buffer): number {
  return message.readInt32LE(8);
}

/**
 * The body document of an OP_MSG reply, still bytes (a server replies with one body section and no
 * document sequences); throws ProtocolError for anything else.
 */
export function replyBody(message: Buffer): Buffer {
  const opCode = message.readInt32LE(12);
  if (opCode !== OP_MSG) throw new ProtocolError(`unexpected reply opCode ${opCode}`);
  const flags = message.readUInt32LE(HEADER_BYTES);
  const end = flags & MSG_CHECKSUM_PRESENT ? message.length - 4 : message.length;
  const at = opMsgBodyOffset(message, end);
  const size = message.readInt32LE(at);
  if (at + size > end) throw new ProtocolError('truncated reply body');
  return message.subarray(at, at + size);
}
