/**
 * A server that accepts connections and never answers: every command whose connection goes there ends
 * (the process exits) within a few seconds of the server-selection timeout its message names (5000 ms),
 * as `run --uri` does, not after the driver's 30 s connect timeout, which kept the process alive after the
 * message. The four commands run at once, as child processes, against one such server.
 */
import * as net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli-child';

/** The timeout the messages name, and the slack allowed past it: four CLIs start at once on a small machine. */
const NAMED_MS = 5000;
const SLACK_MS = 7000;

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

async function timed(
  args: string[],
): Promise<{ args: string; code: number; ms: number; stderr: string }> {
  const start = Date.now();
  // Guarded well before the driver's 30 s connect timeout, so the old wait fails sooner.
  const out = await runCli(args, { guardMs: 20_000 });
  return {
    args: args.slice(0, 2).join(' '),
    code: out.code ?? -1,
    ms: Date.now() - start,
    stderr: out.stderr,
  };
}

it('capture --uri, history --store, agent --control-uri and run --store fail within seconds of their timeout', async () => {
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
    expect({ command: o.args, withinMs: o.ms < NAMED_MS + SLACK_MS }).toEqual({
      command: o.args,
      withinMs: true,
    });
  }
}, 60_000);
