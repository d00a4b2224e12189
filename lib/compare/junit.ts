/**
 * compare's JUnit cases (--junit): one per client count. A regression (B significantly slower than A
 * beyond --threshold) fails with the verdict as the terminal's table words it; a client count that could
 * not be compared is skipped, saying why; any other verdict passes (faster, no difference, slower within
 * the threshold).
 */
import type { JunitCase, JunitSuite } from '../report/junit';
import { counted } from '../common/values';
import type { Comparison, StepComparison } from './compare';
import { formatP, formatRatio } from './render-text';

/** The figures behind a verdict: the row's ratio and p-value. */
function verdictLine(s: StepComparison): string {
  const base = s.regression ? `${s.verdict.toUpperCase()} (regression)` : s.verdict;
  return `${counted(s.clients, 'client')}: ${base}${s.note ? `: ${s.note}` : ''}; ops/s B/A ${formatRatio(s.opsRatio)}, p ${formatP(s.pValue)}, runs ${s.samples.a}+${s.samples.b}`;
}

function stepCase(c: Comparison, s: StepComparison): JunitCase {
  const base = {
    name: counted(s.clients, 'client'),
    classname: `mongo-bench.compare.${c.b.label}-vs-${c.a.label}`,
  };
  if (s.regression) return { ...base, outcome: { kind: 'failure', message: verdictLine(s) } };
  if (s.verdict === 'not compared')
    return { ...base, outcome: { kind: 'skipped', message: verdictLine(s) } };
  return { ...base, outcome: { kind: 'pass' } };
}

export function compareJunitSuite(c: Comparison): JunitSuite {
  return {
    name: `mongo-bench compare ${c.b.label} against ${c.a.label}`,
    cases: c.steps.map((s) => stepCase(c, s)),
  };
}
