/** The messages between parallel-step (the parent) and worker-main (one worker thread). */
import type { MongoClientOptions } from 'mongodb';
import type { EncodedMeasurement } from '../../metrics/measurement-codec';
import type { StepPlan, TickEvent } from './engine';
import type { EncodedStepWorkload } from './worker-workload';
import type { Driver } from './op-client';

/** workerData: everything a worker needs to connect and run its share of a step. */
export interface WorkerInit {
  /** 0-based, for messages. */
  workerIndex: number;
  uri: string;
  /** The client the worker's ops go through (a worker owns its sockets); absent: node. */
  driver?: Driver;
  clientOptions?: MongoClientOptions;
  serverSelectionTimeoutMS: number;
  opTimeoutMS?: number;
  workload: EncodedStepWorkload;
  /** The whole step's plan (clients = the step's total), with this worker's slice of the clients. */
  plan: Omit<StepPlan, 'startAt'> & { clientSlice: { first: number; count: number } };
}

export type ToWorker =
  /** Begin the step at this instant (ms since the epoch, performance.timeOrigin + performance.now()). */
  | { type: 'start'; startAtEpochMs: number }
  /** Stop: clients finish their op in flight, the measurement comes back as interrupted. */
  | { type: 'stop' };

export type FromWorker =
  /** Connected, connections opened and the ops compiled: waiting for 'start'. */
  | { type: 'ready' }
  /**
   * Once a second, with the latency buckets since the last (TickEvent.latency); the step's final tick
   * (`final`) comes before 'done', so the parent's TickMerger has every worker's before it ends the step.
   */
  | { type: 'tick'; tick: TickEvent }
  | { type: 'done'; measurement: EncodedMeasurement }
  /** It could not run (connection refused, bad option...): message already free of credentials. */
  | { type: 'failed'; name: string; message: string };
