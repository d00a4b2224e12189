/**
 * A TCP proxy in front of a test server that holds back every command of one name (e.g. `find`)
 * for `delayMs` before passing it on: a slow or stuck server, as the client sees it. It reads the
 * wire protocol only as far as it must: the message length (first 4 bytes), and for OP_MSG
 * (opCode 2013) the first key of the body section, which is the command name. The driver has one
 * request in flight per connection, so holding one message holds only that connection.
 */
import * as net from 'node:net';
import { BSON, Document } from 'mongodb';

const OP_MSG = 2013;

export interface StallProxy {
  uri: string;
  port: number;
  /** The command documents held back, as sent (with maxTimeMS when the client set one). */
  held: Document[];
  stop(): Promise<void>;
}

function commandName(message: Buffer): string | undefined {
  if (message.length < 27 || message.readInt32LE(12) !== OP_MSG) return undefined;
  // header (16) + flagBits (4) + section kind (1) + BSON length (4) + element type (1) = 26: the first key.
  if (message[20] !== 0) return undefined;
  const end = message.indexOf(0, 26);
  return end > 26 ? message.toString('utf8', 26, end) : undefined;
}

export async function startStallProxy(target: { host: string; port: number }, stall: { command: string; delayMs: number }): Promise<StallProxy> {
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
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (commandName(message) === stall.command) {
          held.push(BSON.deserialize(message.subarray(21)));
          setTimeout(() => {
            if (!upstream.destroyed) upstream.write(message);
          }, stall.delayMs).unref();
        } else {
          upstream.write(message);
        }
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
