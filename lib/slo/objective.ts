/**
 * Service-level objectives, as k6 has thresholds: `reads.p99<5ms`, `errors<0.1%`, `total>2000/s`.
 * Parsed before anything starts (a bad expression is a UsageError naming it), checked on every step.
 *
 *   latency     reads.p50 | reads.p95 | reads.p99 | reads.p999 | reads.avg | reads.max (and writes.*)
 *               with a unit: us (or µs), ms, s            e.g. reads.p99<5ms, writes.max<=200ms
 *   throughput  total | reads | writes, in ops/s           e.g. total>2000/s, writes>=100/s
 *   errors      errors in % of all operations, per second, or as a count
 *                                                         e.g. errors<0.1%, errors<5/s, errors==0
 *   scope       unscoped: every step; METRIC@N: only the step of N clients (total@8>4000/s); METRIC@best:
 *               only the sweep's best step, the one of the highest total ops/s, judged once the sweep is done
 */
import { UsageError } from '../config/errors';
import { closest } from '../config/validate';

export type Comparison = '<' | '<=' | '>' | '>=' | '==';

export interface Objective {
  /** As the user wrote it (spaces removed). */
  expression: string;
  kind: 'latency' | 'throughput' | 'errors';
  /** latency: reads or writes; throughput: total, reads or writes. */
  scope: 'reads' | 'writes' | 'total' | 'errors';
  /** latency: the percentile or avg/max. */
  statistic?: 'p50' | 'p95' | 'p99' | 'p999' | 'avg' | 'max';
  comparison: Comparison;
  /** In the objective's unit: microseconds for latency, ops/s for throughput, % / per second / count for errors. */
  limit: number;
  unit: 'µs' | 'ops/s' | '%' | 'errors/s' | 'errors';
  /** Which step is judged: absent, every step; a client count; 'best', the step of the highest total ops/s. */
  at?: number | 'best';
}

const LATENCY_STATISTICS = ['p50', 'p95', 'p99', 'p999', 'avg', 'max'] as const;
const METRICS = [
  ...['reads', 'writes'].flatMap((s) => LATENCY_STATISTICS.map((q) => `${s}.${q}`)),
  'total',
  'reads',
  'writes',
  'errors',
];
const LATENCY_UNITS: Record<string, number> = { us: 1, µs: 1, ms: 1000, s: 1_000_000 };
const EXAMPLES = "e.g. 'reads.p99<5ms', 'errors<0.1%', 'total>2000/s'";

export function parseObjective(text: string, where = 'option --slo'): Objective {
  const expression = text.replace(/\s+/g, '');
  const bad = (why: string) => new UsageError(`${where}: "${text}": ${why}`);
  const m =
    /^([A-Za-z][\w.]*)(?:@([^<>=]*))?(<=|>=|==|<|>)(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(.*)$/i.exec(
      expression,
    );
  if (!m) {
    // `--slo reads.p99>5ms` unquoted: the shell reads '>' (or '<') as a redirection, passes "reads.p99" and
    // makes (or reads) a file "5ms". A bare metric on the command line is that, most likely.
    const shell =
      where === 'option --slo' && /^[A-Za-z][\w.]*(@\w*)?$/.test(expression)
        ? `; with no comparison in it, the shell probably took an unquoted > or < as a redirection (and made a file named after the value): quote the whole expression (e.g. --slo '${expression}<5ms')`
        : '';
    throw bad(
      `expected METRIC[@CLIENTS|@best] OP VALUE[UNIT] with OP one of <, <=, >, >=, == (${EXAMPLES})${shell}`,
    );
  }
  const [, metric, scopeText, comparison, number, unitText] = m;
  let at: Objective['at'];
  if (scopeText !== undefined) {
    if (scopeText === 'best') at = 'best';
    else if (/^[1-9]\d*$/.test(scopeText)) at = Number(scopeText);
    else
      throw bad(
        `after @ give a client count or best (e.g. ${metric}@8 or ${metric}@best), got "@${scopeText}"`,
      );
  }
  const scoped = (o: Objective): Objective => (at !== undefined ? { ...o, at } : o);
  const value = Number(number);
  if (!Number.isFinite(value) || value < 0) throw bad('the value must be a number >= 0');
  if (!METRICS.includes(metric)) {
    const suggestion = closest(metric, METRICS);
    throw bad(
      `unknown metric "${metric}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; metrics: reads.p50 .. reads.p999, reads.avg, reads.max, the same for writes, total, reads, writes, errors`,
    );
  }
  const cmp = comparison as Comparison;
  if (metric.includes('.')) {
    const [scope, statistic] = metric.split('.') as ['reads' | 'writes', Objective['statistic']];
    const factor = LATENCY_UNITS[unitText];
    if (factor === undefined)
      throw bad(
        `a latency needs a unit: us, ms or s (e.g. ${metric}${comparison}5ms)${unitText ? `, got "${unitText}"` : ''}`,
      );
    return scoped({
      expression,
      kind: 'latency',
      scope,
      statistic,
      comparison: cmp,
      limit: value * factor,
      unit: 'µs',
    });
  }
  if (metric === 'errors') {
    const unit =
      unitText === '%'
        ? '%'
        : unitText === '/s'
          ? 'errors/s'
          : unitText === ''
            ? 'errors'
            : undefined;
    if (!unit)
      throw bad(
        `errors are given in % of operations, per second (/s) or as a count, got unit "${unitText}"`,
      );
    if (unit === '%' && value > 100) throw bad('a percentage is at most 100');
    return scoped({
      expression,
      kind: 'errors',
      scope: 'errors',
      comparison: cmp,
      limit: value,
      unit,
    });
  }
  if (unitText !== '/s' && unitText !== '')
    throw bad(`throughput is in operations per second: write ${metric}${comparison}${number}/s`);
  return scoped({
    expression,
    kind: 'throughput',
    scope: metric as 'total' | 'reads' | 'writes',
    comparison: cmp,
    limit: value,
    unit: 'ops/s',
  });
}

/** --slo may be given several times, and a config file may hold one expression or a list. */
export function parseObjectives(
  given: string | readonly string[] | undefined,
  where = 'option --slo',
): Objective[] {
  if (given === undefined) return [];
  const list = typeof given === 'string' ? [given] : given;
  return list.map((text, i) =>
    parseObjective(text, list.length > 1 && where !== 'option --slo' ? `${where}[${i}]` : where),
  );
}

/** Objectives scoped to a client count the run does not measure: exit 2, naming them. */
export function checkObjectiveScopes(
  objectives: readonly Objective[],
  clients: readonly number[],
  where = 'option --slo',
): void {
  for (const o of objectives) {
    if (typeof o.at === 'number' && !clients.includes(o.at)) {
      throw new UsageError(
        `${where}: "${o.expression}": the run measures no step of ${o.at} client${o.at === 1 ? '' : 's'} (its client counts: ${clients.join(', ')})`,
      );
    }
  }
}
