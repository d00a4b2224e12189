/**
 * Access control as far as the tool meets it (a server started with --auth or --keyFile):
 * - the localhost exception: until a first user exists, a connection that has not authenticated
 *   gets only the privileges of AuthorizationSessionImpl::_getDefaultPrivileges
 *   (src/mongo/db/auth/authorization_session_impl.cpp): createUser and grantRole on admin,
 *   createUser on $external, and on the cluster addShard, replSetConfigure (replSetInitiate,
 *   replSetReconfig) and replSetGetStatus; an arbiter also getCmdLineOpts, getParameter,
 *   serverStatus and shutdown (SERVER-5479). Anything else that needs a privilege is refused as below;
 * - then a connection that has not authenticated is refused any command that requires it:
 *   13 Unauthorized "Command <name> requires authentication" (src/mongo/db/commands.cpp);
 * - users are created by createUser with SCRAM-SHA-256 credentials and authenticated with
 *   saslStart/saslContinue (RFC 7677; src/mongo/db/auth/sasl_scram_server_conversation.cpp).
 * Only SCRAM-SHA-256 is offered (hello `saslSupportedMechs`). Users are replicated to the other
 * members with the replica-set "heartbeat" (see replication.ts). Roles are not checked.
 */
import * as crypto from 'node:crypto';
import { BSON } from 'mongodb';

type Doc = Record<string, unknown>;

interface Credentials {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

interface Conversation {
  user: string;
  clientFirstBare: string;
  serverFirst: string;
  nonce: string;
}

const ITERATIONS = 15_000; // scramIterationCount's SHA-256 default (scramSHA256IterationCount)

/** Commands that do not require authentication (requiresAuth() false in the server). */
const NO_AUTH_NEEDED = new Set([
  'hello',
  'ismaster',
  'saslstart',
  'saslcontinue',
  'ping',
  'buildinfo',
  'endsessions',
  'logout',
  'authenticate',
  'getnonce',
  'connectionstatus',
  '_fakereplsetheartbeat',
]);

/**
 * The commands the localhost exception's default privileges cover (_getDefaultPrivileges; each
 * command's required action from its checkAuthForCommand / getAuthActionSet): createUser
 * (createUser on its database: admin or $external), grantRolesToUser (grantRole, admin only),
 * addShard, replSetInitiate and replSetReconfig (replSetConfigure), replSetGetStatus; on an
 * arbiter also getCmdLineOpts, getParameter, serverStatus, shutdown.
 */
function localhostExceptionAllows(command: string, db: string, arbiter: boolean): boolean {
  if (command === 'createuser') return db === 'admin' || db === '$external';
  if (command === 'grantrolestouser') return db === 'admin';
  if (['addshard', 'replsetinitiate', 'replsetreconfig', 'replsetgetstatus'].includes(command))
    return true;
  return (
    arbiter && ['getcmdlineopts', 'getparameter', 'serverstatus', 'shutdown'].includes(command)
  );
}

const hmac = (key: Buffer, text: string) => crypto.createHmac('sha256', key).update(text).digest();
const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest();

export class AccessControl {
  private readonly users = new Map<string, Credentials & { roles: unknown }>();
  private readonly authenticated = new Set<number>();
  private readonly conversations = new Map<number, Conversation>();

  constructor(readonly enabled: boolean) {}

  get hasUsers(): boolean {
    return this.users.size > 0;
  }

  /** 13 Unauthorized for a command this connection may not run yet, or undefined. */
  refuse(command: string, connection: number, db = 'admin', arbiter = false): Doc | undefined {
    if (!this.enabled || this.authenticated.has(connection)) return undefined;
    const name = command.toLowerCase();
    if (NO_AUTH_NEEDED.has(name)) return undefined;
    if (!this.hasUsers && localhostExceptionAllows(name, db, arbiter)) return undefined;
    return {
      ok: 0,
      errmsg: `Command ${command} requires authentication`,
      code: 13,
      codeName: 'Unauthorized',
    };
  }

  createUser(body: Doc, db: string): Doc {
    const name = `${db}.${String(body.createUser)}`;
    if (this.users.has(name))
      return {
        ok: 0,
        errmsg: `User "${name.slice(db.length + 1)}@${db}" already exists`,
        code: 51003,
        codeName: 'Location51003',
      };
    if (typeof body.pwd !== 'string')
      return {
        ok: 0,
        errmsg:
          "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db",
        code: 2,
        codeName: 'BadValue',
      };
    const salt = crypto.randomBytes(28);
    const salted = crypto.pbkdf2Sync(body.pwd.normalize('NFKC'), salt, ITERATIONS, 32, 'sha256');
    this.users.set(name, {
      salt,
      iterations: ITERATIONS,
      storedKey: sha256(hmac(salted, 'Client Key')),
      serverKey: hmac(salted, 'Server Key'),
      roles: body.roles,
    });
    return { ok: 1 };
  }

  /** The users, to copy to other members. */
  exportUsers(): Doc[] {
    return [...this.users.entries()].map(([name, c]) => ({
      name,
      salt: c.salt.toString('base64'),
      iterations: c.iterations,
      storedKey: c.storedKey.toString('base64'),
      serverKey: c.serverKey.toString('base64'),
    }));
  }

  importUsers(users: unknown): void {
    if (!Array.isArray(users)) return;
    for (const u of users as Doc[]) {
      this.users.set(String(u.name), {
        salt: Buffer.from(String(u.salt), 'base64'),
        iterations: Number(u.iterations),
        storedKey: Buffer.from(String(u.storedKey), 'base64'),
        serverKey: Buffer.from(String(u.serverKey), 'base64'),
        roles: [],
      });
    }
  }

  /** hello's saslSupportedMechs for `db.user`, when that user exists. */
  supportedMechs(spec: unknown): string[] | undefined {
    return typeof spec === 'string' && this.users.has(spec) ? ['SCRAM-SHA-256'] : undefined;
  }

  saslStart(body: Doc, db: string, connection: number): Doc {
    const failed = {
      ok: 0,
      errmsg: 'Authentication failed.',
      code: 18,
      codeName: 'AuthenticationFailed',
    };
    if (body.mechanism !== 'SCRAM-SHA-256') {
      return {
        ok: 0,
        errmsg: `Received authentication for mechanism ${String(body.mechanism)} which is not enabled`,
        code: 334,
        codeName: 'MechanismUnavailable',
      };
    }
    const clientFirst = payloadText(body.payload);
    const bare = clientFirst.replace(/^[^,]*,[^,]*,/, '');
    const user = /(?:^|,)n=([^,]*)/.exec(bare)?.[1]?.replace(/=2C/g, ',').replace(/=3D/g, '=');
    const clientNonce = /(?:^|,)r=([^,]*)/.exec(bare)?.[1];
    const creds = user ? this.users.get(`${db}.${user}`) : undefined;
    if (!user || !clientNonce || !creds) return failed;
    const nonce = clientNonce + crypto.randomBytes(24).toString('base64');
    const serverFirst = `r=${nonce},s=${creds.salt.toString('base64')},i=${creds.iterations}`;
    this.conversations.set(connection, {
      user: `${db}.${user}`,
      clientFirstBare: bare,
      serverFirst,
      nonce,
    });
    return {
      conversationId: 1,
      done: false,
      payload: new BSON.Binary(Buffer.from(serverFirst)),
      ok: 1,
    };
  }

  saslContinue(body: Doc, connection: number): Doc {
    const failed = {
      ok: 0,
      errmsg: 'Authentication failed.',
      code: 18,
      codeName: 'AuthenticationFailed',
    };
    const conv = this.conversations.get(connection);
    this.conversations.delete(connection);
    const creds = conv ? this.users.get(conv.user) : undefined;
    if (!conv || !creds) return failed;
    const clientFinal = payloadText(body.payload);
    const proofAt = clientFinal.lastIndexOf(',p=');
    if (proofAt < 0 || /(?:^|,)r=([^,]*)/.exec(clientFinal)?.[1] !== conv.nonce) return failed;
    const withoutProof = clientFinal.slice(0, proofAt);
    const proof = Buffer.from(clientFinal.slice(proofAt + 3), 'base64');
    const authMessage = `${conv.clientFirstBare},${conv.serverFirst},${withoutProof}`;
    const signature = hmac(creds.storedKey, authMessage);
    if (proof.length !== signature.length) return failed;
    const clientKey = Buffer.from(proof.map((b, i) => b ^ signature[i]));
    if (!crypto.timingSafeEqual(sha256(clientKey), creds.storedKey)) return failed;
    this.authenticated.add(connection);
    const serverFinal = `v=${hmac(creds.serverKey, authMessage).toString('base64')}`;
    return {
      conversationId: 1,
      done: true,
      payload: new BSON.Binary(Buffer.from(serverFinal)),
      ok: 1,
    };
  }
}

function payloadText(payload: unknown): string {
  if (payload instanceof BSON.Binary) return Buffer.from(payload.buffer).toString('utf8');
  if (typeof payload === 'string') return payload;
  return '';
}
