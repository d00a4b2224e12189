/**
 * Progress, autocannon-style: the run emits events (./events.ts), a tracker keeps the state they add
 * up to (phase, step x/y, client count, elapsed and remaining time, live ops/s), and a printer draws
 * it (lib/cli/progress-printer.ts).
 */
import type { Phase, RunEvent } from './events';
import { SweepShape, sweepSeconds, warmupUpTo } from './options/sweep-time';

export interface ProgressState {
  phase: Phase | 'start';
  detail: string;
  /** 1-based index of the current (client count, trial) among all of them. */
  step: number;
  steps: number;
  clients?: number;
  trial?: number;
  /** Ops/s of the last second (warm-up or measured). */
  liveOpsPerSec: number;
  liveErrorsPerSec: number;
  /** Within the current step: 'warmup' | 'measure'. */
  stepPhase?: 'warmup' | 'measure';
  elapsedSeconds: number;
  /** Sweep seconds still ahead (the estimate the bar shows). */
  remainingSeconds: number;
  loaded?: { docs: number; total: number };
}

export class ProgressTracker {
  readonly state: ProgressState;
  private readonly startedAt: number;
  private stepSecondsDone = 0;

  constructor(
    private readonly sweep: SweepShape,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.state = {
      phase: 'start',
      detail: '',
      step: 0,
      steps: sweep.clients.length * sweep.trials,
      liveOpsPerSec: 0,
      liveErrorsPerSec: 0,
      elapsedSeconds: 0,
      remainingSeconds: sweepSeconds(sweep),
    };
  }

  handle(event: RunEvent): ProgressState {
    const s = this.state;
    const perStep = this.sweep.seconds + warmupUpTo(this.sweep);
    switch (event.type) {
      case 'phase':
        s.phase = event.phase;
        s.detail = event.detail;
        break;
      case 'connected':
        s.phase = 'connect';
        s.detail = event.target.uri;
        break;
      case 'load-start':
        s.phase = 'load';
        s.detail = `${event.docs} documents into ${event.ns}`;
        s.loaded = { docs: 0, total: event.docs };
        break;
      case 'load-progress':
        s.loaded = { docs: event.loaded, total: event.total };
        break;
      case 'step-start':
        s.phase = 'sweep';
        s.step += 1;
        s.clients = event.clients;
        s.trial = event.trial;
        s.stepPhase = warmupUpTo(event) > 0 ? 'warmup' : 'measure';
        s.liveOpsPerSec = 0;
        s.liveErrorsPerSec = 0;
        this.stepSecondsDone = 0;
        s.remainingSeconds = (s.steps - s.step + 1) * perStep;
        s.detail = `${event.clients} client${event.clients === 1 ? '' : 's'}`;
        break;
      case 'tick':
        // The step's final tick covers part of a second: no rate, no second done.
        if (event.tick.final) break;
        s.stepPhase = event.tick.phase;
        s.liveOpsPerSec = event.tick.reads + event.tick.writes;
        s.liveErrorsPerSec = event.tick.errors;
        this.stepSecondsDone = Math.min(perStep, this.stepSecondsDone + 1);
        s.remainingSeconds = Math.max(0, (s.steps - s.step + 1) * perStep - this.stepSecondsDone);
        break;
      case 'warmup-done':
        // --warmup auto settled (or hit its cap): what is left of the step is its measured seconds.
        this.stepSecondsDone = perStep - this.sweep.seconds;
        s.remainingSeconds = Math.max(0, (s.steps - s.step + 1) * perStep - this.stepSecondsDone);
        break;
      case 'step-done':
        s.remainingSeconds = Math.max(0, (s.steps - s.step) * perStep);
        break;
      default:
        break;
    }
    s.elapsedSeconds = (this.now() - this.startedAt) / 1000;
    return s;
  }
}
