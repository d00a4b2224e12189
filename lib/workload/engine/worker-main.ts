/**
 * One worker thread of a parallel step: its own client, either driver (same URI and options as the parent's),
 * its slice of the step's clients, the engine as it runs in-process. It reports 'ready', waits for
 * the common start instant, posts a tick a second and the encoded measurement, then closes its
 * client and lets the thread end. parallel-step.ts starts it (through a bootstrap that loads this
 * file compiled, or through tsx from the sources).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { encodeMeasurement } from '../../metrics/measurement-codec';
import { redactUri } from '../../security/redact';
import { bindWorkload } from './compile-ops';
import { runStep } from './engine';
import { EngineClient, openEngineClient } from './op-client';
import { FromWorker, ToWorker, WorkerInit } from './worker-protocol';
import { compileStepWorkload, decodeStepWorkload } from './worker-workload';

function post(message: FromWorker): void {
  parentPort?.postMessage(message);
}

async function runWorker(init: WorkerInit): Promise<void> {
  const port = parentPort!;
  const stop = new AbortController();
  let startAtEpochMs: number | undefined;
  let onStart: (() => void) | undefined;
  port.on('message', (message: ToWorker) => {
    if (message.type === 'stop') {
      stop.abort('stopped by the parent');
      onStart?.();
    } else if (message.type === 'start') {
      startAtEpochMs = message.startAtEpochMs;
      onStart?.();
    }
  });

  let client: EngineClient | undefined;
  try {
    const workload = decodeStepWorkload(init.workload);
    const prepared = compileStepWorkload(workload);
    const slice = init.plan.clientSlice;
    client = openEngineClient(init.driver ?? 'node', init.uri, {
      serverSelectionTimeoutMS: init.serverSelectionTimeoutMS,
      maxClients: slice.count,
      clientOptions: init.clientOptions,
      opTimeoutMS: init.opTimeoutMS,
    });
    await client.connect();
    await client.warm(slice.count);
    const ops = bindWorkload(prepared, client.client, {
      writes: workload.writes,
      maxTimeMS: init.opTimeoutMS,
    });
    post({ type: 'ready' });
    if (startAtEpochMs === undefined && !stop.signal.aborted)
      await new Promise<void>((resolve) => (onStart = resolve));
    const startAt =
      startAtEpochMs !== undefined ? startAtEpochMs - performance.timeOrigin : undefined;
    const measurement = await runStep(
      ops,
      prepared.scope,
      { ...init.plan, startAt },
      { signal: stop.signal, onTick: (tick) => post({ type: 'tick', tick }) },
    );
    post({ type: 'done', measurement: encodeMeasurement(measurement) });
  } catch (err) {
    const e = err as Error;
    post({
      type: 'failed',
      name: String(e?.name ?? 'Error'),
      message: redactUri(String(e?.message ?? err)),
    });
  } finally {
    await client?.close().catch(() => undefined);
    port.close();
  }
}

if (parentPort) void runWorker(workerData as WorkerInit);
