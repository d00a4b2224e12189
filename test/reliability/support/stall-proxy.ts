/**
 * A TCP proxy in front of a test server that holds back every command of one name (e.g. `find`)
 * for `delayMs` before passing it on: a slow or stuck server, as the client sees it. It reads the
 * wire protocol (lib/wire/op-msg) only as far as it must: where each message ends, and
 * for OP_MSG the first key of the body section, which is the command name. The driver has one
 * request in flight per connection, so holding one message holds only that connection.
 */
import * as net from 'node:net';
import { Document } from 'mongodb';
import {
  firstKey,
  MessageFramer,
  OP_MSG,
  opMsgBodyOffset,
  parseRequest,
} from '../../../lib/wire/op-msg';

/** Larger than any legitimate message (the server's maxMessageSizeBytes is 48 MB). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface StallProxy {
  uri: string;
  port: number;
  /** The command documents held back, as sent (with maxTimeMS when the client set one). */
  held: Document[];
  stop(): Promise<void>;
}

function commandName(message: Buffer): string | undefined {
  if (message.readInt32LE(12) !== OP_MSG) return undefined;
  return firstKey(message, opMsgBodyOffset(message, message.length));
}

/** `when`: hold only the commands of that name it accepts (the command document as sent); all of them without it. */
export async function startStallProxy(
  target: { host: string; port: number },
  stall: { command: string; delayMs: number; when?: (command: Document) => boolean },
): Promise<StallProxy> {
  const sockets = new Set<net.Socket>();
  const held: Document[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth).on('close', closeBoth);
    upstream.on('error', closeBoth).on('close', closeBoth);
    upstream.pipe(client);
    const framer = new MessageFramer(MAX_MESSAGE_BYTES);
    client.on('data', (chunk: Buffer) => {
      try {
        framer.push(chunk, (message) => {
          const doc =
            commandName(message) === stall.command ? parseRequest(message).doc : undefined;
          if (doc && (stall.when?.(doc) ?? true)) {
            held.push(doc);
            setTimeout(() => {
              if (!upstream.destroyed) upstream.write(message);
            }, stall.delayMs).unref();
          } else {
            upstream.write(message);
          }
        });
      } catch {
        // Not a message we can read: the client is cut off, as a server would.
        closeBoth();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    uri: `mongodb://127.0.0.1:${port}`,
    port,
    held,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
