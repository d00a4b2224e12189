/**
 * mongod-style structured log lines (logv2 JSON: t, s, c, id, ctx, msg, attr) to --logpath or
 * stdout, and the optional record of what a stand-in received (MONGO_BENCH_FAKE_RECORD_DIR).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BSON } from 'mongodb';
import type { RecordingServer } from '../recording-server';
import type { FakeOptions } from './options';

type Doc = Record<string, unknown>;
export type Logger = (
  severity: string,
  component: string,
  id: number,
  msg: string,
  attr?: Doc,
) => void;

export function makeLogger(options: Pick<FakeOptions, 'logPath'>): Logger {
  return (severity, component, id, msg, attr = {}) => {
    const line = `${JSON.stringify({ t: { $date: new Date().toISOString() }, s: severity, c: component, id, ctx: 'listener', msg, attr })}\n`;
    if (options.logPath) fs.appendFileSync(options.logPath, line);
    else process.stdout.write(line);
  };
}

export interface Recorder {
  event(name: string): void;
  flush(server: RecordingServer): void;
}

/**
 * Appends what the server receives to <dir>/<kind>-<port>.jsonl, one line per command, plus
 * {"event": "SIGTERM"|"SIGINT"|"shutdown", "at": ms} when asked to stop; and writes
 * <dir>/<kind>-<port>.process.json: {pid, argv}.
 */
export function makeRecorder(options: Pick<FakeOptions, 'kind' | 'port' | 'argv'>): Recorder {
  const dir = process.env.MONGO_BENCH_FAKE_RECORD_DIR;
  if (!dir) return { event: () => undefined, flush: () => undefined };
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `${options.kind}-${options.port}`);
  fs.writeFileSync(
    `${base}.process.json`,
    JSON.stringify({ pid: process.pid, argv: options.argv }),
  );
  let written = 0;
  return {
    // performance.timeOrigin + now(): sub-millisecond, comparable across processes.
    event: (name) =>
      fs.appendFileSync(
        `${base}.jsonl`,
        `${JSON.stringify({ event: name, at: performance.timeOrigin + performance.now() })}\n`,
      ),
    flush: (server) => {
      const fresh = server.commands.slice(written);
      written = server.commands.length;
      if (fresh.length === 0) return;
      const lines = fresh.map((c) =>
        BSON.EJSON.stringify({ db: c.db, name: c.name, body: c.body, at: c.at }, { relaxed: true }),
      );
      fs.appendFileSync(`${base}.jsonl`, `${lines.join('\n')}\n`);
    },
  };
}
