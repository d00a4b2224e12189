/** Draws the run's progress: a cli-progress bar on a terminal, plain lines otherwise, nothing with --quiet. */
import { counted } from '../common/values';
import { clockTime } from '../run/outages';
import { SingleBar } from 'cli-progress';
import { formatStepTable } from '../metrics/format-step';
import { serverWarning, targetServerLabel } from '../report/describe';
import type { RunEvent, ScenarioNews } from '../run/events';
import type { ProbeNews } from '../run/rate-probe';
import { ProgressState, ProgressTracker } from '../run/progress';
import { describeWarmup, formatDuration } from '../run/options/sweep-time';

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
  /** The current step's op count under --ops (its table says "N ops", not seconds). */
  private stepOps: number | undefined;

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
        if (event.status !== 'running')
          say(`  setup ${event.step}/${event.steps} ${event.status}: ${event.description}`);
        break;
      case 'note':
        say(`  ${event.text}`);
        break;
      case 'serving':
        for (const line of servingLines(event)) say(line);
        break;
      case 'connected': {
        const t = event.target;
        // The product as it is (target.product), named as summary.md names it: "FerretDB 1.24.2, reports MongoDB 7.0.42", never just a version.
        say(
          `[connect] ${t.uri}: ${t.product ? targetServerLabel(t) : `server ${t.serverVersion ?? 'unknown'}`}, ${t.topology}`,
        );
        const warning = connectWarning(event);
        if (warning) say(warning);
        break;
      }
      case 'load-start':
        say(
          `[load] ${event.docs} documents ${event.like ? `like ${event.like}` : `of ~${event.docSize} bytes`} into ${event.ns} (batches of ${event.batchSize})`,
        );
        break;
      case 'load-progress': {
        const milestone = Math.floor((event.loaded / Math.max(1, event.total)) * 4);
        if (
          !this.options.tty &&
          milestone > this.loadMilestone &&
          event.loaded > 0 &&
          event.loaded < event.total
        ) {
          this.loadMilestone = milestone;
          say(`  loaded ${event.loaded}/${event.total}`);
        } else if (this.options.tty) this.drawBar(state, `loaded ${event.loaded}/${event.total}`);
        break;
      }
      case 'load-done':
        say(`  loaded ${event.docs} documents in ${event.seconds.toFixed(1)} s`);
        break;
      case 'step-start':
        this.stepOps = event.ops;
        if (this.options.tty) this.drawBar(state, 'warming up');
        else
          say(
            `[sweep] step ${state.step}/${state.steps}: ${event.clients} client${event.clients === 1 ? '' : 's'}${event.trials > 1 ? ` (trial ${event.trial}/${event.trials})` : ''}, ${describeWarmup(event)} + ${event.ops !== undefined ? `${event.ops} ops measured` : `${event.seconds} s measured; ${event.warmupMax !== undefined ? 'at most ' : '~'}${formatDuration(state.remainingSeconds)} of sweep left`}`,
          );
        break;
      case 'tick':
        if (this.options.tty)
          this.drawBar(state, event.tick.phase === 'warmup' ? 'warming up' : 'measuring');
        break;
      case 'step-done':
        this.pauseBar();
        this.options.tables(`${formatStepTable(event.step, event.heading, this.stepOps)}\n`);
        break;
      case 'empty-namespaces':
        say(`warning: ${event.advice}`);
        break;
      case 'server-stats':
        say(`[server] ${event.text}`);
        break;
      case 'guard':
        say(`[guard] ${event.text}`);
        break;
      case 'cluster':
        say(`[cluster] ${event.text}`);
        break;
      case 'fault':
        say(`[faults] ${event.text}`);
        break;
      case 'metrics':
        say(`[metrics] ${event.text}`);
        break;
      case 'outage':
        this.pauseBar();
        say(
          event.kind !== undefined
            ? event.end === undefined
              ? `[outage] ${event.kind}: none succeeded since ${clockTime(event.since)}`
              : `[outage] ${event.kind} succeed again (by ${clockTime(event.end)}, out since ${clockTime(event.since)})`
            : event.end === undefined
              ? `[outage] no answer from the server since ${clockTime(event.since)}`
              : `[outage] the server answered again at ${clockTime(event.end)}, after ${((event.end - event.since) / 1000).toFixed(1)} s without an answer`,
        );
        break;
      case 'scenario':
        say(`[scenario] ${scenarioLine(event)}`);
        break;
      case 'rate-probe':
        say(`[rate] ${rateProbeLine(event)}`);
        break;
      case 'warmup-done':
        if (!this.options.tty)
          say(
            `[sweep] ${event.clients} client${event.clients === 1 ? '' : 's'}: warmed up for ${event.seconds} s, ${event.steady ? 'steady' : 'not steady at the cap (--warmup-max): measured anyway'}`,
          );
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
      clients:
        state.clients === undefined
          ? '-'
          : `${state.clients} client${state.clients === 1 ? '' : 's'}`,
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

/**
 * The server's own warning when a run connects, in the words of summary.md and the charts
 * (report/describe.ts serverWarning): "warning: NOT MongoDB: FerretDB 1.24.2, reports MongoDB 7.0.42; ...".
 */
export function connectWarning(event: RunEvent): string | undefined {
  const warning = event.type === 'connected' ? serverWarning(event.target) : undefined;
  return warning === undefined ? undefined : `warning: ${warning}`;
}

function scenarioLine(news: ScenarioNews): string {
  switch (news.kind) {
    case 'planned': {
      const spec = news.scenario;
      const load = spec.rate
        ? spec.rate.kind === 'constant'
          ? `${spec.rate.opsPerSecond} ops/s`
          : 'a ramping rate'
        : counted(spec.clients!, 'client');
      return `${spec.name}: ${load} from ${spec.start} s, ${spec.duration} s per step`;
    }
    case 'clock':
      return `${news.scenarios} scenarios at once, ${news.seconds} s in all`;
    case 'no-answer':
      return `${news.scenario}: no answer from the server since ${clockTime(news.since)}`;
    case 'step-failed':
      return `${news.scenario}: step with ${counted(news.clients, 'client')} failed: ${news.error}`;
    case 'late-start':
      return `${news.scenario}: the step with ${counted(news.clients, 'client')} began ${news.lateSeconds} s after its window opened (the step before still waited for an op)`;
    case 'step-done': {
      const { step } = news;
      return `${news.scenario}: ${counted(news.clients, 'client')}, ${step.opsPerSec.total} ops/s (${step.ops.reads} reads, ${step.ops.writes} writes, ${step.ops.errors} errors) from ${news.startSecond} s`;
    }
    case 'event-done': {
      const done = news.event;
      return `${news.scenario}: ${done.action} ${done.ok ? `done (${done.startedAt} s to ${done.endedAt} s)` : `failed: ${done.error ?? ''}`}`;
    }
  }
}

function rateProbeLine(news: ProbeNews): string {
  if ('clients' in news)
    return `probe: ${counted(news.clients, 'client')}, ${news.opsPerSec} ops/s`;
  const { probe } = news;
  return `maximum ${probe.maxOpsPerSec} ops/s (${counted(probe.clientsAtMax, 'client')}): the run holds ${Math.round(probe.share * 1000) / 10}% of it, ${probe.targetOpsPerSec} ops/s`;
}

/** For --quiet: the tracker still runs (for tests and hooks), nothing is drawn but the server's warning (to `warn`). */
export class SilentPrinter {
  constructor(
    private readonly tracker: ProgressTracker,
    private readonly warn?: (text: string) => void,
  ) {}
  handle(event: RunEvent): void {
    this.tracker.handle(event);
    const warning = connectWarning(event);
    if (warning) this.warn?.(`${warning}\n`);
    // Asked for by --serve: the address is said even under --quiet.
    if (event.type === 'serving') for (const line of servingLines(event)) this.warn?.(`${line}\n`);
    // Asked for by --metrics-port: where it serves (a free port's number) and its warning, even under --quiet.
    if (event.type === 'metrics') this.warn?.(`[metrics] ${event.text}\n`);
  }
  stop(): void {}
}

/** --serve's address, and the warning when other machines may reach it. */
function servingLines(event: Extract<RunEvent, { type: 'serving' }>): string[] {
  return [
    `[serve] the served page: ${event.url} (updated each second while the run goes)`,
    ...(event.warning ? [`warning: ${event.warning}`] : []),
  ];
}
