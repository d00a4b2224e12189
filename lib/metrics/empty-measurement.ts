/** A step's measurement with nothing in it: a step stopped before it began, or one whose every runner vanished. */
import { LatencyRecorder } from './latency';
import { StepMeasurement } from './measurement';

export function emptyMeasurement(plan: { clients: number; seconds: number }): StepMeasurement {
  return {
    clients: plan.clients,
    seconds: plan.seconds,
    elapsedSeconds: 0,
    interrupted: false,
    reads: 0,
    writes: 0,
    errors: 0,
    latency: { reads: new LatencyRecorder(), writes: new LatencyRecorder(), byOp: new Map() },
    perSecond: { reads: [], writes: [], errors: [] },
    errorTallies: [],
  };
}
