/**
 * The latency recorders of one step: one per server op of the array (two aggregates stay apart), the
 * only one an op records into; per class and per type they merge at the end (one histogram write per
 * op, not two).
 */
import { LatencyRecorder, mergeRecorders } from '../../metrics/latency';
import { OpLatency, StepMeasurement } from '../../metrics/measurement';
import { BoundOp } from './compile-ops';

/** Where one op's outcome goes: resolved once per step so the hot path does no lookups. */
export interface Slot {
  isRead: boolean;
  /** The op's own recorder (a client-side op's is never written). */
  latency: LatencyRecorder;
}

export class OpRecorders {
  readonly byIndex: OpLatency[] = [];
  private readonly readRecorders: LatencyRecorder[] = [];
  private readonly writeRecorders: LatencyRecorder[] = [];
  /** One per op of the array, by index. */
  readonly slots: Slot[];

  constructor(ops: readonly BoundOp[]) {
    let clientSideLatency: LatencyRecorder | undefined; // shared by nop/let ops, never written
    this.slots = ops.map((op, index) => {
      if (op.opClass === 'none')
        return { isRead: false, latency: (clientSideLatency ??= new LatencyRecorder()) };
      const latency = new LatencyRecorder();
      this.byIndex.push({ index, op: op.type, name: op.name ?? op.type, recorder: latency });
      (op.opClass === 'read' ? this.readRecorders : this.writeRecorders).push(latency);
      return { isRead: op.opClass === 'read', latency };
    });
  }

  /** The step's latency: per class, per op type and per op of the array. */
  merged(): StepMeasurement['latency'] {
    return {
      reads: mergeRecorders(this.readRecorders),
      writes: mergeRecorders(this.writeRecorders),
      byOp: latencyByType(this.byIndex),
      byIndex: this.byIndex,
    };
  }
}

/** The per-op recorders merged per op type (findOne, update, ...), in order of first appearance. */
function latencyByType(byIndex: readonly OpLatency[]): Map<string, LatencyRecorder> {
  const types = [...new Set(byIndex.map((o) => o.op))];
  return new Map(
    types.map((type) => [
      type,
      mergeRecorders(byIndex.filter((o) => o.op === type).map((o) => o.recorder)),
    ]),
  );
}
