/**
 * One connection of the wire client: a TCP (or TLS) socket, the handshake (`isMaster` with
 * `helloOk`, the client's metadata, and the user's SASL mechanisms when it authenticates, as the
 * drivers' handshake specification says), SCRAM authentication (./scram.ts), and one command at a
 * time (the pool, ./pool.ts, hands a connection to one op until it answers). A lost socket fails
 * the command in flight with MongoNetworkError, a reply later than the socket timeout with
 * MongoNetworkTimeoutError (the connection is then closed, as the driver closes it).
 */
import * as net from 'node:net';
import * as os from 'node:os';
import * as tls from 'node:tls';
import { Binary, Document } from 'mongodb';
import { encodeCommand, MessageFramer, replyBody, responseTo } from './op-msg';
import { fullReply, MongoNetworkError, MongoNetworkTimeoutError } from './errors';
import { ScramConversation, ScramMechanism } from './scram';

export interface Credentials {
  user: string;
  password: string;
  source: string;
  /** Undefined: chosen from the server's `saslSupportedMechs` (SCRAM-SHA-256 when offered). */
  mechanism?: ScramMechanism;
}

export interface ConnectionSettings {
  host: string;
  port: number;
  /** node:tls options (CA, certificate, checks); undefined: plain TCP. */
  tls?: tls.ConnectionOptions;
  connectTimeoutMS: number;
  /** A reply later than this fails its command (MongoNetworkTimeoutError); undefined: no limit. */
  socketTimeoutMS?: number;
  credentials?: Credentials;
  appName?: string;
  /** Written into the handshake's client metadata. */
  clientVersion: string;
}

/** The largest reply accepted (the server's maxMessageSizeBytes). */
const MAX_MESSAGE_BYTES = 48_000_000;

let nextRequestId = 1;

export class WireConnection {
  readonly address: string;
  private readonly framer = new MessageFramer(MAX_MESSAGE_BYTES);
  private pending:
    { id: number; resolve: (body: Buffer) => void; reject: (err: Error) => void } | undefined;
  private closedBy: Error | undefined;
  /** The handshake's reply. */
  hello: Document = {};

  private constructor(
    private readonly socket: net.Socket,
    settings: ConnectionSettings,
    private readonly onClose: (conn: WireConnection) => void,
  ) {
    this.address = `${settings.host}:${settings.port}`;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      try {
        this.framer.push(chunk, (message) => this.onMessage(message));
      } catch (err) {
        this.fail(new MongoNetworkError(`${this.address}: ${(err as Error).message}`));
      }
    });
    socket.on('error', (err) =>
      this.fail(new MongoNetworkError(`${this.address}: ${err.message}`)),
    );
    socket.on('close', () =>
      this.fail(new MongoNetworkError(`connection to ${this.address} closed`)),
    );
    if (settings.socketTimeoutMS !== undefined) {
      socket.setTimeout(settings.socketTimeoutMS, () => {
        // Idle in the pool is not late; a command in flight is.
        if (this.pending)
          this.fail(
            new MongoNetworkTimeoutError(
              `connection to ${this.address} timed out after ${settings.socketTimeoutMS} ms`,
            ),
          );
      });
    }
  }

  /** Opens, shakes hands and authenticates; throws MongoNetworkError (or the server's error). */
  static async open(
    settings: ConnectionSettings,
    onClose: (conn: WireConnection) => void = () => undefined,
  ): Promise<WireConnection> {
    const socket = await connectSocket(settings);
    const conn = new WireConnection(socket, settings, onClose);
    try {
      conn.hello = await conn.handshake(settings);
      if (settings.credentials) await conn.authenticate(settings.credentials, conn.hello);
      return conn;
    } catch (err) {
      conn.close();
      throw err;
    }
  }

  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  /** Sends `command` to database `db`; resolves with the reply's body, still bytes. */
  send(db: string, command: Document): Promise<Buffer> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const id = nextRequestId++ & 0x7fffffff;
    const message = encodeCommand(id, db, command);
    return new Promise<Buffer>((resolve, reject) => {
      this.pending = { id, resolve, reject };
      this.socket.write(message);
    });
  }

  /** A command whose reply is decoded whole (handshake, authentication, discovery). */
  async run(db: string, command: Document): Promise<Document> {
    return fullReply(await this.send(db, command));
  }

  close(): void {
    this.fail(new MongoNetworkError(`connection to ${this.address} closed by the client`));
  }

  private onMessage(message: Buffer): void {
    const pending = this.pending;
    if (!pending || responseTo(message) !== pending.id) return;
    this.pending = undefined;
    try {
      pending.resolve(replyBody(message));
    } catch (err) {
      pending.reject(new MongoNetworkError(`${this.address}: ${(err as Error).message}`));
    }
  }

  private fail(err: Error): void {
    if (this.closedBy) return;
    this.closedBy = err;
    this.socket.destroy();
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(err);
    this.onClose(this);
  }

  private handshake(settings: ConnectionSettings): Promise<Document> {
    const c = settings.credentials;
    return this.run('admin', {
      isMaster: 1,
      helloOk: true,
      client: {
        driver: { name: 'mongo-bench-wire', version: settings.clientVersion },
        os: { type: os.type(), name: process.platform, architecture: process.arch },
        platform: `Node.js ${process.version}`,
        ...(settings.appName ? { application: { name: settings.appName } } : {}),
      },
      ...(c ? { saslSupportedMechs: `${c.source}.${c.user}` } : {}),
    });
  }

  private async authenticate(c: Credentials, hello: Document): Promise<void> {
    const offered = Array.isArray(hello.saslSupportedMechs)
      ? (hello.saslSupportedMechs as string[])
      : [];
    const mechanism: ScramMechanism =
      c.mechanism ?? (offered.includes('SCRAM-SHA-256') ? 'SCRAM-SHA-256' : 'SCRAM-SHA-1');
    const scram = new ScramConversation(mechanism, c.user, c.password);
    const bytes = (text: string) => new Binary(Buffer.from(text, 'utf8'));
    const text = (payload: unknown) => Buffer.from((payload as Binary).buffer).toString('utf8');
    const first = await this.run(c.source, {
      saslStart: 1,
      mechanism,
      payload: bytes(scram.clientFirst()),
      autoAuthorize: 1,
      options: { skipEmptyExchange: true },
    });
    const second = await this.run(c.source, {
      saslContinue: 1,
      conversationId: first.conversationId,
      payload: bytes(scram.clientFinal(text(first.payload))),
    });
    scram.checkServerFinal(text(second.payload));
    let reply = second;
    // A server that does not skip the empty exchange wants one more round.
    while (!reply.done) {
      reply = await this.run(c.source, {
        saslContinue: 1,
        conversationId: reply.conversationId,
        payload: new Binary(Buffer.alloc(0)),
      });
    }
  }
}

function connectSocket(settings: ConnectionSettings): Promise<net.Socket> {
  const address = `${settings.host}:${settings.port}`;
  return new Promise((resolve, reject) => {
    const socket = settings.tls
      ? tls.connect({
          ...settings.tls,
          host: settings.host,
          port: settings.port,
          // SNI names a host, never an address.
          ...(net.isIP(settings.host) ? {} : { servername: settings.host }),
        })
      : net.connect({ host: settings.host, port: settings.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new MongoNetworkTimeoutError(
          `connection to ${address} timed out after ${settings.connectTimeoutMS} ms`,
        ),
      );
    }, settings.connectTimeoutMS);
    const onError = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new MongoNetworkError(`connect to ${address}: ${err.message}`));
    };
    socket.once('error', onError);
    socket.once(settings.tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}
