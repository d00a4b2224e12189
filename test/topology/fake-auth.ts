/**
 * Access control for the recording server: users created with createUser (the localhost exception
 * allows the first one), and a real SCRAM-SHA-256 server side, so a client gets in only with the
 * right password. The handlers compose with fakeClusterHandlers; `users` may be shared between
 * recorders that stand for processes sharing users (a config server set and its mongos).
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { BSON } from 'mongodb';
import { CommandHandler, defaultReply } from '../support/recording-server';

type Doc = Record<string, unknown>;

export interface FakeUser {
  user: string;
  pwd: string;
  roles: unknown;
}

export interface FakeAuthState {
  /** By user name (all in admin). */
  users: Map<string, FakeUser>;
  /** Successful SCRAM conversations, by user. */
  logins: string[];
  /** Failed ones (unknown user or wrong proof). */
  failures: string[];
}

export function emptyAuthState(users = new Map<string, FakeUser>()): FakeAuthState {
  return { users, logins: [], failures: [] };
}

const ITERATIONS = 4096;
const authFailed = {
  ok: 0,
  code: 18,
  codeName: 'AuthenticationFailed',
  errmsg: 'Authentication failed.',
};

function payloadText(value: unknown): string {
  if (value instanceof BSON.Binary) return Buffer.from(value.buffer).toString('utf8');
  if (typeof value === 'string') return value;
  throw new Error('payload is not binary');
}

function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return out;
}

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

export function fakeAuthHandlers(
  state: FakeAuthState,
  wrapped: Record<string, CommandHandler> = {},
): Record<string, CommandHandler> {
  const conversations = new Map<
    number,
    { user: string; clientFirstBare: string; serverFirst: string; salt: Buffer; done: boolean }
  >();
  let nextConversation = 1;

  const start = (body: Doc) => {
    if (body.mechanism !== 'SCRAM-SHA-256')
      return { ...authFailed, errmsg: `mechanism ${String(body.mechanism)} is not supported here` };
    const clientFirst = payloadText(body.payload);
    const clientFirstBare = clientFirst.replace(/^[^,]*,[^,]*,/, ''); // drop the gs2 header "n,,"
    const attrs = attributes(clientFirstBare);
    const user = (attrs.get('n') ?? '').replace(/=2C/g, ',').replace(/=3D/g, '=');
    if (!state.users.has(user)) {
      state.failures.push(user);
      return authFailed;
    }
    const salt = randomBytes(16);
    const serverFirst = `r=${attrs.get('r')}${randomBytes(18).toString('base64')},s=${salt.toString('base64')},i=${ITERATIONS}`;
    const conversationId = nextConversation++;
    conversations.set(conversationId, { user, clientFirstBare, serverFirst, salt, done: false });
    return {
      conversationId,
      done: false,
      payload: new BSON.Binary(Buffer.from(serverFirst)),
      ok: 1,
    };
  };

  const proceed = (body: Doc) => {
    const id = Number(body.conversationId);
    const conv = conversations.get(id);
    if (!conv) return authFailed;
    if (conv.done)
      return { conversationId: id, done: true, payload: new BSON.Binary(Buffer.alloc(0)), ok: 1 };
    const clientFinal = payloadText(body.payload);
    const proofAt = clientFinal.lastIndexOf(',p=');
    const withoutProof = clientFinal.slice(0, proofAt);
    const proof = Buffer.from(clientFinal.slice(proofAt + 3), 'base64');
    // SASLprep is the identity for the ASCII passwords the tests use.
    const salted = pbkdf2Sync(state.users.get(conv.user)!.pwd, conv.salt, ITERATIONS, 32, 'sha256');
    const clientKey = hmac(salted, 'Client Key');
    const storedKey = createHash('sha256').update(clientKey).digest();
    const authMessage = `${conv.clientFirstBare},${conv.serverFirst},${withoutProof}`;
    const clientSignature = hmac(storedKey, authMessage);
    const expected = Buffer.from(clientKey.map((b, i) => b ^ clientSignature[i]));
    if (proof.length !== expected.length || !timingSafeEqual(proof, expected)) {
      conversations.delete(id);
      state.failures.push(conv.user);
      return authFailed;
    }
    conv.done = true;
    state.logins.push(conv.user);
    const serverSignature = hmac(hmac(salted, 'Server Key'), authMessage).toString('base64');
    const skipEmpty = true; // the driver asks for skipEmptyExchange; answering done now is always allowed then
    return {
      conversationId: id,
      done: skipEmpty,
      payload: new BSON.Binary(Buffer.from(`v=${serverSignature}`)),
      ok: 1,
    };
  };

  const hello =
    (name: string) =>
    (
      body: Doc,
      db: string,
      server: Parameters<CommandHandler>[2],
      connection: Parameters<CommandHandler>[3],
    ) => {
      const base =
        (wrapped[name]?.(body, db, server, connection) as Doc | undefined) ??
        defaultReply(name, body, db);
      const asked =
        typeof body.saslSupportedMechs === 'string'
          ? body.saslSupportedMechs.replace(/^admin\./, '')
          : undefined;
      return asked !== undefined && state.users.has(asked)
        ? { ...base, saslSupportedMechs: ['SCRAM-SHA-256'] }
        : base;
    };

  return {
    ...wrapped,
    hello: hello('hello'),
    isMaster: hello('isMaster'),
    saslStart: start,
    saslContinue: proceed,
    createUser: (body) => {
      const user = String(body.createUser);
      if (state.users.has(user))
        return {
          ok: 0,
          code: 51003,
          codeName: 'Location51003',
          errmsg: `User "${user}@admin" already exists`,
        };
      state.users.set(user, { user, pwd: String(body.pwd), roles: body.roles });
      return { ok: 1 };
    },
  };
}
