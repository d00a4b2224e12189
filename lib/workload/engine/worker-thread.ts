/**
 * Starts worker-main in a worker thread. `new Worker` cannot load TypeScript, so the thread is
 * started from a two-line bootstrap (evaluated code, so there is no extra file to ship): in the built
 * package it requires the compiled worker-main.js beside this file; from the sources (jest, tsx) it
 * loads worker-main.ts through tsx's require, as test/support/fake-bin/mongod does, unless
 * MONGO_BENCH_WORKER_JS names a compiled copy of it (the test run's global setup compiles lib/ once
 * and names it: tsx costs a thread about 1.1 CPU s to start, the compiled copy about 0.3 s).
 */
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { WorkerInit } from './worker-protocol';

export const WORKER_JS_ENV = 'MONGO_BENCH_WORKER_JS';

function bootstrapSource(): string {
  const file = join(__dirname, `worker-main${extname(__filename)}`);
  if (!file.endsWith('.ts')) return `require(${JSON.stringify(file)});`;
  const compiled = process.env[WORKER_JS_ENV];
  if (compiled) return `require(${JSON.stringify(compiled)});`;
  const tsx = require.resolve('tsx/cjs/api');
  return `require(${JSON.stringify(tsx)}).require(${JSON.stringify(file)}, ${JSON.stringify(file)});`;
}

export function startWorkerThread(init: WorkerInit): Worker {
  return new Worker(bootstrapSource(), { eval: true, workerData: init });
}
