/**
 * What a run tells while it works: runBenchmark's events (connect, load, set-up, steps, ticks,
 * results written) and the run command's own (phases, set-up steps, notes). Plain data; the CLI's
 * printer (lib/cli/progress-printer.ts) and the API's callers subscribe to them.
 */
import type { RateProbe, ResultDocument, ScenarioEvent, StepResult } from '../result';
import type { TickEvent } from '../workload/engine/engine';
import type { ScenarioSpec } from './scenarios/scenario-spec';

/** What a scenario run tells (lib/run/scenarios/scenarios.ts); the printer words it. */
export type ScenarioNews =
  /** Before the clock starts: each scenario as planned. */
  | {
      kind: 'planned';
      scenario: Pick<ScenarioSpec, 'name' | 'clients' | 'rate' | 'start' | 'duration'>;
    }
  /** Then: how many run at once, and for how long in all (seconds). */
  | { kind: 'clock'; scenarios: number; seconds: number }
  /** No answer from the server since `since` (epoch ms). */
  | { kind: 'no-answer'; scenario: string; since: number }
  | { kind: 'step-failed'; scenario: string; clients: number; error: string }
  /** The step's clients began `lateSeconds` after its window opened (the step before still waited for an op). */
  | { kind: 'late-start'; scenario: string; clients: number; lateSeconds: number }
  /** `startSecond`: where its window opened on the run's clock. */
  | { kind: 'step-done'; scenario: string; clients: number; step: StepResult; startSecond: number }
  | { kind: 'event-done'; scenario: string; event: ScenarioEvent };

export type BenchmarkEvent =
  | { type: 'connected'; target: ResultDocument['target'] }
  | {
      type: 'load-start';
      ns: string;
      docs: number;
      docSize: number;
      batchSize: number;
      /** --docs-like: what the documents are modelled on */ like?: string;
    }
  | { type: 'load-progress'; loaded: number; total: number }
  | { type: 'load-done'; docs: number; seconds: number }
  /** The workload's own set-up ran (before the sweep, or before this step with --reset each-step). */
  | { type: 'setup-done'; clients: number; steps: number; docs: number; seconds: number }
  | {
      type: 'step-start';
      clients: number;
      trial: number;
      trials: number;
      seconds: number;
      warmupSeconds: number;
      /** --warmup auto: the cap; the warm-up lasts until steady, at most this (warmupSeconds is 0). */
      warmupMax?: number;
      ops?: number;
    }
  /** An unmeasured trial began (BenchmarkHooks.unmeasuredRound): its figures are dropped. */
  | { type: 'unmeasured-trial'; clients: number; seconds: number }
  | { type: 'tick'; clients: number; trial: number; tick: TickEvent }
  /** --warmup auto: a trial's warm-up ended, settled (steady) or at its cap. */
  | { type: 'warmup-done'; clients: number; trial: number; seconds: number; steady: boolean }
  /** The server stopped answering (since: the last answer, epoch ms), or answered again (end). */
  /** The server lost (no kind), or one kind out (no success of it for --stall-ms with ops in flight); `end`: over. */
  | {
      type: 'outage';
      clients: number;
      trial: number;
      since: number;
      end?: number;
      kind?: 'reads' | 'writes';
    }
  /** `heading`: what the step is when not a client count (a run of scenarios: their names). */
  | { type: 'step-done'; step: StepResult; heading?: string }
  | { type: 'results-written'; path: string }
  /** At the end of a sweep with client-bound steps: how many workers/cores it would have needed (an estimate). */
  | { type: 'client-bound'; advice: string }
  /** The server sampler: what it could not sample, and consistency-check warnings (one line each). */
  | { type: 'server-stats'; text: string }
  /** `--rate 80%`: a probe step's ops/s; then the probe (its maximum and the rate the run then holds). */
  | { type: 'rate-probe'; clients: number; opsPerSec: number }
  | { type: 'rate-probe'; probe: RateProbe }
  /** A scenario run (config `scenarios`): what runs, a scenario's step ended or failed, a background event ended. */
  | ({ type: 'scenario' } & ScenarioNews)
  /** --no-load: namespaces the workload reads or changes hold no document (counted before the first step). */
  | { type: 'empty-namespaces'; namespaces: string[]; advice: string }
  /** The data guard: what it could not do or record (a marker not re-recorded). */
  | { type: 'guard'; text: string }
  /** The cluster state the run changes (the balancer, the chunk size): as found, and as set back at the end. */
  | { type: 'cluster'; text: string }
  /** Fault events (--event, Toxiproxy): what was found at the start, each event done and undone. */
  | { type: 'fault'; text: string }
  /** The metrics endpoint (--metrics-port): where it serves, or a warning (both printed even with --quiet). */
  | { type: 'metrics'; text: string; warning?: true };

export type Phase =
  | 'launch'
  | 'setup'
  | 'connect'
  | 'load'
  | 'sweep'
  | 'report'
  /** What the run changed on a cluster it did not start, set back (./cluster-restore.ts). */
  | 'restore'
  | 'stop';

export type RunEvent =
  | { type: 'phase'; phase: Phase; detail: string }
  | { type: 'setup-step'; step: number; steps: number; description: string; status: string }
  | { type: 'note'; text: string }
  /** --serve: the served page listens at `url`; `warning` when other machines may reach it. */
  | { type: 'serving'; url: string; warning?: string }
  | BenchmarkEvent;
