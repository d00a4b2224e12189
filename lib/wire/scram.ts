/**
 * SCRAM-SHA-256 and SCRAM-SHA-1 as MongoDB speaks them (RFC 5802, RFC 7677; the drivers'
 * authentication specification, mongodb/specifications source/auth/auth.md): the client's messages
 * and the check of the server's signature, over node:crypto. SCRAM-SHA-1 hashes the password as
 * MONGODB-CR did (md5 of `user:mongo:password`, hex) and SCRAM-SHA-256 prepares it with SASLprep.
 * The conversation itself (saslStart, saslContinue) is ./connection.ts's; salted passwords are kept
 * per process, as the driver keeps them, so a pool of connections derives each key once.
 */
import * as crypto from 'node:crypto';
import saslprep from '@mongodb-js/saslprep';

export type ScramMechanism = 'SCRAM-SHA-1' | 'SCRAM-SHA-256';

const DIGEST = { 'SCRAM-SHA-1': 'sha1', 'SCRAM-SHA-256': 'sha256' } as const;
const KEY_BYTES = { 'SCRAM-SHA-1': 20, 'SCRAM-SHA-256': 32 } as const;
/** The smallest iteration count a client accepts (the specification's minimum). */
const MIN_ITERATIONS = 4096;

/** Thrown for a server answer that breaks the protocol (wrong nonce, bad signature). */
export class ScramError extends Error {}

/** `=` and `,` escaped in a user name (RFC 5802 section 5.1). */
function escapeName(name: string): string {
  return name.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

/** The password as the mechanism hashes it. */
export function preparePassword(mechanism: ScramMechanism, user: string, password: string): string {
  if (mechanism === 'SCRAM-SHA-1')
    return crypto.createHash('md5').update(`${user}:mongo:${password}`, 'utf8').digest('hex');
  return saslprep(password);
}

function parseAttributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return out;
}

const saltedCache = new Map<string, Buffer>();

function saltedPassword(
  mechanism: ScramMechanism,
  prepared: string,
  salt: Buffer,
  iterations: number,
): Buffer {
  const key = `${mechanism}\u0000${prepared}\u0000${salt.toString('base64')}\u0000${iterations}`;
  let salted = saltedCache.get(key);
  if (!salted) {
    salted = crypto.pbkdf2Sync(prepared, salt, iterations, KEY_BYTES[mechanism], DIGEST[mechanism]);
    saltedCache.set(key, salted);
  }
  return salted;
}

const hmac = (mechanism: ScramMechanism, key: Buffer, text: string): Buffer =>
  crypto.createHmac(DIGEST[mechanism], key).update(text, 'utf8').digest();
const hash = (mechanism: ScramMechanism, data: Buffer): Buffer =>
  crypto.createHash(DIGEST[mechanism]).update(data).digest();

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i];
  return out;
}

/** One client's side of a SCRAM exchange. */
export class ScramConversation {
  readonly clientFirstBare: string;
  private serverSignature: Buffer | undefined;

  /**
   * `password` is the user's own (prepared here); `nonce` is fixed only by tests (the RFC vectors),
   * otherwise 24 random bytes.
   */
  constructor(
    readonly mechanism: ScramMechanism,
    readonly user: string,
    private readonly password: string,
    readonly nonce: string = crypto.randomBytes(24).toString('base64'),
  ) {
    this.clientFirstBare = `n=${escapeName(user)},r=${nonce}`;
  }

  /** The client-first message (no channel binding: `n,,`). */
  clientFirst(): string {
    return `n,,${this.clientFirstBare}`;
  }

  /** The client-final message for the server-first one; throws ScramError on a bad answer. */
  clientFinal(serverFirst: string): string {
    const attrs = parseAttributes(serverFirst);
    const serverNonce = attrs.get('r');
    const salt = attrs.get('s');
    const iterations = Number(attrs.get('i'));
    if (!serverNonce || !serverNonce.startsWith(this.nonce))
      throw new ScramError('the server nonce does not extend the client nonce');
    if (salt === undefined) throw new ScramError('the server sent no salt');
    if (!Number.isInteger(iterations) || iterations < MIN_ITERATIONS)
      throw new ScramError(
        `the server's iteration count ${attrs.get('i')} is below ${MIN_ITERATIONS}`,
      );
    const m = this.mechanism;
    const salted = saltedPassword(
      m,
      preparePassword(m, this.user, this.password),
      Buffer.from(salt, 'base64'),
      iterations,
    );
    const withoutProof = `c=biws,r=${serverNonce}`;
    const authMessage = `${this.clientFirstBare},${serverFirst},${withoutProof}`;
    const clientKey = hmac(m, salted, 'Client Key');
    const clientSignature = hmac(m, hash(m, clientKey), authMessage);
    this.serverSignature = hmac(m, hmac(m, salted, 'Server Key'), authMessage);
    return `${withoutProof},p=${xor(clientKey, clientSignature).toString('base64')}`;
  }

  /** Checks the server-final message (`v=`): the server knew the password too. */
  checkServerFinal(serverFinal: string): void {
    const attrs = parseAttributes(serverFinal);
    const error = attrs.get('e');
    if (error) throw new ScramError(`the server refused the proof: ${error}`);
    const v = attrs.get('v');
    if (!this.serverSignature || v === undefined)
      throw new ScramError('the server sent no signature');
    const got = Buffer.from(v, 'base64');
    if (
      got.length !== this.serverSignature.length ||
      !crypto.timingSafeEqual(got, this.serverSignature)
    )
      throw new ScramError("the server's signature does not match");
  }
}
