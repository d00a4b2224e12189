import { EngineName, IoMode, StepMeasurement } from './result';

/** One step of the sweep: `threads` concurrent random 4 KB operations for `seconds`. */
export interface StepRequest {
  threads: number;
  seconds: number;
  mode: IoMode;
}

export interface StepHooks {
  /** Operations completed in one second of the step, when the engine can tell. */
  onSecond?: (sample: { t: number; reads: number; writes: number }) => void;
  /** Aborting ends the step early; the engine then returns what it measured so far, if anything. */
  signal?: AbortSignal;
}

/** Does the I/O; the sweep around it decides what to run and the report what to show. */
export interface IoEngine {
  readonly name: EngineName;
  readonly version: string;
  runStep(request: StepRequest, hooks?: StepHooks): Promise<StepMeasurement | undefined>;
  close(): Promise<void>;
}

/** What every engine is told about the test file. */
export interface TestFileSpec {
  file: string;
  fileBytes: number;
  blockSize: number;
  direct: boolean;
  maxThreads: number;
}
