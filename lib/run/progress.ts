/**
 * Progress, autocannon-style: the run emits events, a tracker keeps the state they add up to
 * (phase, step x/y, client count, elapsed and remaining time, live ops/s), and a printer draws it:
 * a cli-progress bar on a terminal, plain lines otherwise, nothing with --quiet.
 */
import { SingleBar } from 'cli-progress';
import { BenchmarkEvent } from './benchmark';
import { formatStepTable } from '../metrics/format-step';

export type Phase = 'launch' | 'setup' | 'connect' | 'load' | 'sweep' | 'report' | 'stop';

export type RunEvent =
  | { type: 'phase'; phase: Phase; detail: string }
  | { type: 'setup-step'; step: number; steps: number; description: string; status: string }
  | { type: 'note'; text: string }
  | BenchmarkEvent;

export interface SweepShape {
  clients: number[];
  trials: number;
  seconds: number;
  warmupSeconds: number;
}

/** Seconds of sweep: every trial of every client count, warm-up included (connection set-up and loading are extra). */
export function sweepSeconds(s: SweepShape): number {
  return s.clients.length * s.trials * (s.seconds + s.warmupSeconds);
}

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
    const perStep = this.sweep.seconds + this.sweep.warmupSeconds;
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
        s.stepPhase = event.warmupSeconds > 0 ? 'warmup' : 'measure';
        s.liveOpsPerSec = 0;
        s.liveErrorsPerSec = 0;
        this.stepSecondsDone = 0;
        s.remainingSeconds = (s.steps - s.step + 1) * perStep;
        s.detail = `${event.clients} client${event.clients === 1 ? '' : 's'}`;
        break;
      case 'tick':
        s.stepPhase = event.tick.phase;
        s.liveOpsPerSec = event.tick.reads + event.tick.writes;
        s.liveErrorsPerSec = event.tick.errors;
        this.stepSecondsDone = Math.min(perStep, this.stepSecondsDone + 1);
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

/** 75 -> "1m15s", 3700 -> "1h01m" */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface PrinterOptions {
  /** Progress lines and the live bar (stderr). */
  progress: (text: string) => void;
  /** Per-step tables: stdout, or stderr with --json. */
  tables: (text: string) => void;
  /** Draw a live bar (a terminal) instead of plain lines. */
  tty: boolean;
  stream?: NodeJS.WriteStream;
}

/** Draws the tracker's state; subscribe it to the run's events. */
export class ProgressPrinter {
  private bar?: SingleBar;
  private loadMilestone = -1;

  constructor(
    private readonly tracker: ProgressTracker,
    private readonly options: PrinterOptions,
  ) {}

  handle(event: RunEvent): void {
    const state = this.tracker.handle(event);
    const say = (text: string) => {
      this.pauseBar();
      this.options.progress(`${text}\n`);
    };
    switch (event.type) {
      case 'phase':
        say(`[${event.phase}] ${event.detail}`);
        break;
      case 'setup-step':
        if (event.status !== 'running') say(`  setup ${event.step}/${event.steps} ${event.status}: ${event.description}`);
        break;
      case 'note':
        say(`  ${event.text}`);
        break;
      case 'connected': {
        const t = event.target;
        const double = t.testDouble ? ' [TEST DOUBLE: these numbers are not MongoDB numbers]' : '';
        // The product as it is (target.product): "FerretDB 1.24.2, reports MongoDB 7.0.42", never just a version.
        say(`[connect] ${t.uri}: ${t.product ? t.product.label : `server ${t.serverVersion ?? 'unknown'}`}, ${t.topology}${double}`);
        break;
      }
      case 'load-start':
        say(`[load] ${event.docs} documents of ~${event.docSize} bytes into ${event.ns} (batches of ${event.batchSize})`);
        break;
      case 'load-progress': {
        const milestone = Math.floor((event.loaded / Math.max(1, event.total)) * 4);
        if (!this.options.tty && milestone > this.loadMilestone && event.loaded > 0 && event.loaded < event.total) {
          this.loadMilestone = milestone;
          say(`  loaded ${event.loaded}/${event.total}`);
        } else if (this.options.tty) this.drawBar(state, `loaded ${event.loaded}/${event.total}`);
        break;
      }
      case 'load-done':
        say(`  loaded ${event.docs} documents in ${event.seconds.toFixed(1)} s`);
        break;
      case 'step-start':
        if (this.options.tty) this.drawBar(state, 'warming up');
        else say(`[sweep] step ${state.step}/${state.steps}: ${event.clients} client${event.clients === 1 ? '' : 's'}${event.trials > 1 ? ` (trial ${event.trial}/${event.trials})` : ''}, ${event.warmupSeconds} s warm-up + ${event.seconds} s measured; ~${formatDuration(state.remainingSeconds)} of sweep left`);
        break;
      case 'tick':
        if (this.options.tty) this.drawBar(state, event.tick.phase === 'warmup' ? 'warming up' : 'measuring');
        break;
      case 'step-done':
        this.pauseBar();
        this.options.tables(`${formatStepTable(event.step)}\n`);
        break;
      case 'server-stats':
        say(`[server] ${event.text}`);
        break;
      case 'client-bound':
        this.pauseBar();
        this.options.tables(`Load generator: ${event.advice}\n`);
        break;
      default:
        break;
    }
  }

  private drawBar(state: ProgressState, what: string): void {
    const stream = this.options.stream ?? process.stderr;
    const payload = {
      phase: state.phase,
      step: state.step,
      steps: state.steps,
      clients: state.clients === undefined ? '-' : `${state.clients} client${state.clients === 1 ? '' : 's'}`,
      what,
      ops: Math.round(state.liveOpsPerSec).toLocaleString('en-US'),
      errors: state.liveErrorsPerSec > 0 ? ` (${state.liveErrorsPerSec} errors/s)` : '',
      elapsed: formatDuration(state.elapsedSeconds),
      remaining: formatDuration(state.remainingSeconds),
    };
    const loading = state.phase === 'load' && state.loaded;
    const total = loading ? state.loaded!.total : Math.max(1, state.steps);
    const value = loading ? state.loaded!.docs : Math.max(0, state.step - 1);
    if (!this.bar) {
      this.bar = new SingleBar({
        stream,
        hideCursor: true,
        clearOnComplete: true,
        format: loading
          ? '{phase} [{bar}] {what} | elapsed {elapsed}'
          : '{phase} [{bar}] step {step}/{steps} | {clients}, {what} | {ops} ops/s{errors} | elapsed {elapsed} | sweep left ~{remaining}',
        barsize: 20,
      });
      this.bar.start(total, value, payload);
    } else {
      this.bar.setTotal(total);
      this.bar.update(value, payload);
    }
  }

  private pauseBar(): void {
    if (this.bar) {
      this.bar.stop();
      this.bar = undefined;
    }
  }

  stop(): void {
    this.pauseBar();
  }
}

/** For --quiet: the tracker still runs (for tests and hooks), nothing is drawn. */
export class SilentPrinter {
  constructor(private readonly tracker: ProgressTracker) {}
  handle(event: RunEvent): void {
    this.tracker.handle(event);
  }
  stop(): void {}
}
