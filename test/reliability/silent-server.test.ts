/**
 * A server that accepts connections and never answers: every command whose connection goes there says
 * it timed out after the server-selection timeout (5000 ms) and exits within seconds of saying so, as
 * `run --uri` does, not ~25 s later (the driver's 30 s connect timeout kept the process alive past the
 * message). The four commands run at once, as child processes, against one such server.
 */
import * as net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli } from '../support/cli-child';

/** The timeout the messages name, and how long a process may live past saying so (it lived ~25 s). */
const NAMED_MS = 5000;
const AFTER_MS = 5000;

let server: net.Server;
const sockets: net.Socket[] = [];
let uri: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mb-silent-'));
  server = net.createServer((socket) => sockets.push(socket)); // accepts, never writes a byte
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  uri = `mongodb://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the CLI; `ms` is how long the process lived after printing the timeout: the wait the user sees
 * past the message (the start of four CLIs at once on a small machine is not counted).
 */
async function timed(
  args: string[],
): Promise<{ args: string; code: number; ms: number; stderr: string }> {
  let toldAt: number | undefined;
  const cli = startCli(args, {
    // Guarded well before the driver's 30 s connect timeout, so the old wait fails sooner.
    guardMs: 45_000,
    onStderr: (text) => {
      if (toldAt === undefined && text.includes('timed out after')) toldAt = Date.now();
    },
  });
  const out = await cli.finished;
  return {
    args: args.slice(0, 2).join(' '),
    code: out.code ?? -1,
    ms: Date.now() - (toldAt ?? 0),
    stderr: out.stderr,
  };
}

it('capture --uri, history --store, agent --control-uri and run --store exit within seconds of saying they timed out', async () => {
  const outcomes = await Promise.all([
    timed(['capture', '--uri', `${uri}/`, '--db', 'x', '--out', join(dir, 'capture')]),
    timed(['history', '--store', `${uri}/db`, '--out', join(dir, 'history')]),
    timed(['agent', '--control-uri', `${uri}/`, '--once']),
    timed([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1/',
      '--store',
      `${uri}/db`,
      '--out',
      join(dir, 'run'),
    ]),
  ]);
  for (const o of outcomes) {
    expect({ command: o.args, failed: o.code !== 0 }).toEqual({ command: o.args, failed: true });
    expect(o.stderr).toContain(`timed out after ${NAMED_MS} ms`);
    expect({ command: o.args, exitedWithinMs: o.ms < AFTER_MS }).toEqual({
      command: o.args,
      exitedWithinMs: true,
    });
  }
}, 60_000);
