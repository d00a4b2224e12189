/**
 * The run's fault events (`--event`, a config's `events`; the language in ../scenarios/event-spec.ts,
 * each action's one home ../scenarios/background-events.ts): checked at the start (the Toxiproxy and
 * its proxies, what a killed run left: ../scenarios/fault-start.ts), fired in every trial's measured
 * window at `at` seconds into it, each fault undone at its end or the window's, and every fault still
 * in force undone on every way the run ends (runBenchmark's `finally`: undoAll).
 */
import type { ScenarioEvent } from '../../result';
import { runBackgroundEvent } from '../scenarios/background-events';
import { checkFaultsAtStart } from '../scenarios/fault-start';
import type { FaultContext } from '../scenarios/faults';
import type { SweepState } from './state';

/** Before anything is measured: the Toxiproxy checked, a killed run's toxics removed, what was found said. */
export async function startFaults(state: SweepState): Promise<void> {
  const { options } = state;
  const events = [...(options.events ?? []), ...(options.scenarios ?? []).flatMap((s) => s.events)];
  if (events.length === 0 && !state.toxiproxy) return;
  const lines = await checkFaultsAtStart(state.toxiproxy, events, state.client);
  for (const text of lines) state.run.emit({ type: 'fault', text });
}

/** On every way the run ends: faults still in force undone (each bounded in time), what could not be said. */
export async function undoFaults(state: SweepState): Promise<void> {
  if (state.faults.inForce === 0) return;
  for (const undo of await state.faults.undoAll())
    state.run.emit({
      type: 'fault',
      text: undo.ok
        ? `at the run's end: ${undo.what}`
        : `warning: not undone at the run's end (${undo.what}): ${undo.error ?? ''}`,
    });
}

/** A fault context ending with `until` (the step's window, the scenarios). */
export function faultContext(state: SweepState, until: AbortSignal): FaultContext {
  return {
    keeper: state.faults,
    until,
    ...(state.toxiproxy ? { toxiproxy: state.toxiproxy } : {}),
    ...(state.server.clientOptions ? { clientOptions: state.server.clientOptions } : {}),
  };
}

/** One trial's events: scheduled when its window opens, ended (every fault undone) by finish(). */
export interface TrialEvents {
  /** The measured window opens at `atMs` (performance.now()): the events are timed from it. */
  onWindowOpen(atMs: number): void;
  /** After the window: events not yet sent are dropped, faults in force undone; their records. */
  finish(): Promise<ScenarioEvent[]>;
}

export function trialEvents(state: SweepState, trial: number): TrialEvents | undefined {
  const events = state.options.events;
  if (!events || events.length === 0) return undefined;
  const ended = new AbortController();
  const stop = () => ended.abort();
  state.hooks.signal?.addEventListener('abort', stop, { once: true });
  const context = faultContext(state, ended.signal);
  let running: Promise<ScenarioEvent[]> | undefined;
  return {
    onWindowOpen(atMs) {
      running ??= Promise.all(
        events.map((event) =>
          runBackgroundEvent(
            state.client,
            event,
            { t0: atMs, atSecond: event.at },
            state.hooks.signal,
            context,
          ).then((done) => {
            const record = { ...done, trial };
            state.run.emit({ type: 'fault', text: describeDone(record) });
            return record;
          }),
        ),
      );
    },
    async finish() {
      ended.abort();
      state.hooks.signal?.removeEventListener('abort', stop);
      return running ? await running : [];
    },
  };
}

/** One line for an event done: what, when, how it went and how it was undone. */
export function describeDone(e: ScenarioEvent): string {
  const what = e.proxy ? `${e.action} ${e.proxy}` : e.action;
  const when =
    e.startedAt !== undefined
      ? `at ${e.startedAt.toFixed(3)} s${e.endedAt !== undefined ? ` to ${e.endedAt.toFixed(3)} s` : ''}`
      : `planned at ${e.at} s`;
  const trial = e.trial !== undefined ? `, trial ${e.trial}` : '';
  const outcome = e.ok ? 'done' : `failed: ${e.error ?? 'unknown'}`;
  const undo = e.undo
    ? e.undo.ok
      ? `; ${e.undo.what}`
      : `; warning: not undone (${e.undo.what}): ${e.undo.error ?? ''}`
    : '';
  return `${what} ${when}${trial}: ${outcome}${undo}`;
}
