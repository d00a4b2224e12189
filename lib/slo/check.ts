/** Checks objectives against a step's figures: one verdict per objective and step. */
import type { SloSection, SloVerdict, StepResult } from '../result';
import type { Objective } from './objective';

function compare(actual: number, comparison: Objective['comparison'], limit: number): boolean {
  switch (comparison) {
    case '<':
      return actual < limit;
    case '<=':
      return actual <= limit;
    case '>':
      return actual > limit;
    case '>=':
      return actual >= limit;
    case '==':
      return actual === limit;
  }
}

/** The step's value of what the objective is about, in the objective's unit; undefined when the step has none (no reads measured, say). */
export function actualValue(objective: Objective, step: StepResult): number | undefined {
  switch (objective.kind) {
    case 'latency': {
      const summary = step.latencyMicros[objective.scope as 'reads' | 'writes'];
      return summary.count > 0 ? summary[objective.statistic ?? 'p99'] : undefined;
    }
    case 'throughput':
      return step.opsPerSec[objective.scope as 'total' | 'reads' | 'writes'];
    case 'errors': {
      const all = step.ops.reads + step.ops.writes + step.ops.errors;
      if (objective.unit === '%') return all > 0 ? (100 * step.ops.errors) / all : 0;
      if (objective.unit === 'errors/s') {
        const seconds = step.elapsedSeconds ?? step.seconds * Math.max(1, step.trials);
        return seconds > 0 ? step.ops.errors / seconds : 0;
      }
      return step.ops.errors;
    }
  }
}

/**
 * Verdicts for one step, of the objectives unscoped or scoped to its client count (`@best` ones:
 * addBestVerdicts); a latency objective on a step without that kind of operation is not applicable (pass: null).
 */
export function checkStepObjectives(
  objectives: readonly Objective[],
  step: StepResult,
): SloVerdict[] {
  return objectives
    .filter((o) => o.at === undefined || o.at === step.clients)
    .map((o) => {
      const actual = actualValue(o, step);
      return {
        clients: step.clients,
        objective: o.expression,
        actual: actual ?? null,
        unit: o.unit,
        pass: actual === undefined ? null : compare(actual, o.comparison, o.limit),
      };
    });
}

export function emptySloSection(
  objectives: readonly Objective[],
  abortOnFailure: boolean,
): SloSection {
  return {
    objectives: objectives.map((o) => o.expression),
    abortOnFailure,
    verdicts: [],
    pass: true,
  };
}

/**
 * Adds a finished step's verdicts to the section (a failed step is not judged: its figures are not a
 * measurement). Returns the first failed verdict of this step, if any.
 */
export function addStepVerdicts(
  section: SloSection,
  objectives: readonly Objective[],
  step: StepResult,
): SloVerdict | undefined {
  if (step.status === 'failed') return undefined;
  const verdicts = checkStepObjectives(objectives, step);
  section.verdicts.push(...verdicts);
  const failed = verdicts.find((v) => v.pass === false);
  if (failed) section.pass = false;
  return failed;
}

/**
 * Objectives scoped `@best`: judged once the sweep is done, on its best step (the highest total ops/s
 * among the steps that did not fail). The best of several noisy steps is biased upward (docs/history.md).
 * Returns the first failed verdict, if any.
 */
export function addBestVerdicts(
  section: SloSection,
  objectives: readonly Objective[],
  steps: readonly StepResult[],
): SloVerdict | undefined {
  const best = objectives.filter((o) => o.at === 'best');
  const judged = steps.filter((s) => s.status !== 'failed');
  if (best.length === 0 || judged.length === 0) return undefined;
  const top = judged.reduce((a, b) => (b.opsPerSec.total > a.opsPerSec.total ? b : a));
  const verdicts = best.map((o) => {
    const actual = actualValue(o, top);
    return {
      clients: top.clients,
      objective: o.expression,
      actual: actual ?? null,
      unit: o.unit,
      pass: actual === undefined ? null : compare(actual, o.comparison, o.limit),
    };
  });
  section.verdicts.push(...verdicts);
  const failed = verdicts.find((v) => v.pass === false);
  if (failed) section.pass = false;
  return failed;
}

export function describeVerdict(v: SloVerdict): string {
  const actual =
    v.actual === null
      ? 'n/a'
      : v.unit === 'µs'
        ? `${(v.actual / 1000).toFixed(3)}ms`
        : v.unit === '%'
          ? `${v.actual.toFixed(3)}%`
          : `${Math.round(v.actual * 100) / 100} ${v.unit}`;
  return `${v.objective} at ${v.clients} client${v.clients === 1 ? '' : 's'}: ${actual}, ${v.pass === null ? 'not applicable' : v.pass ? 'pass' : 'FAIL'}`;
}
