/**
 * history's JUnit cases (--junit): one per series (label, metric, client count), in history.json's order.
 * A gated series fails when the gate fails on it (its newest change point a regression beyond the
 * threshold, or its newest run failing the newest-run check), with the lines the terminal prints; a gated
 * series neither test could check, and a series the gate does not watch, are skipped, saying why.
 */
import type { JunitCase, JunitSuite } from '../report/junit';
import { counted } from '../common/values';
import type { HistoryDocument, HistorySeries } from './history';
import { changePointLine, newestRunFailureLine } from './render-md';

function sameSeries(s: HistorySeries, o: { label: string; clients: number; metric: string }) {
  return o.label === s.label && o.clients === s.clients && o.metric === s.name;
}

function seriesCase(h: HistoryDocument, s: HistorySeries): JunitCase {
  const base = {
    name: `${s.name} at ${counted(s.clients, 'client')}`,
    classname: `mongo-bench.history.${s.label}`,
  };
  const changes = s.changePoints.map((cp) => `${s.label}: ${changePointLine(h, s, cp)}`);
  if (!s.gated)
    return {
      ...base,
      outcome: {
        kind: 'skipped',
        message: [`not gated (history --gate adds it)`, ...changes].join('\n'),
      },
    };
  const failures = [
    ...h.regressions
      .filter((r) => sameSeries(s, r))
      .map((r) => `${s.label}: ${changePointLine(h, s, r.changePoint)}`),
    ...h.newestRunFailures.filter((f) => sameSeries(s, f)).map(newestRunFailureLine),
  ];
  if (failures.length > 0)
    return { ...base, outcome: { kind: 'failure', message: failures.join('\n') } };
  const notTested = h.notTested.find((t) => sameSeries(s, t));
  if (notTested)
    return { ...base, outcome: { kind: 'skipped', message: `not tested (${notTested.why})` } };
  return { ...base, outcome: { kind: 'pass' } };
}

export function historyJunitSuite(h: HistoryDocument): JunitSuite {
  return {
    name: `mongo-bench history ${h.options.label ?? h.store}`,
    timestamp: h.generatedAt,
    cases: h.series.map((s) => seriesCase(h, s)),
  };
}
