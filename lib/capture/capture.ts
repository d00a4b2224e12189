/**
 * The capture itself: served ops in (from logs or the profiler), a weighted workload and its summary
 * out, as plain data. Reading files and writing the folder are the callers' jobs (./read-lines, ./write).
 */
import { UsageError } from '../config/errors';
import { dropUndefined } from '../common/values';
import { composePrefix, cursorIdOf, parseLogLine } from './log-line';
import { QueryStatsMetrics, ServedOp, Skip, SkipReason } from './served-op';
import type { LiteralCounts } from './query-stats-values';
import { Shape, ShapeTable, shapeOp } from './shapes';
import {
  CAPTURED_BY,
  cursorStatements,
  firstBatchOf,
  Statements,
  statementsOf,
  StatementType,
  SYNTHETIC_MARK,
} from './statements';
import { pairWrites, WriteEvent } from './pairing';
import { SourceLine } from './read-lines';
import type { CapturedCurve } from '../workload/language/replay-curve';

/** An insert's documents are not logged: without --docs-like, inserts write this placeholder (about 150 bytes). */
export const PLACEHOLDER_DOCUMENT = {
  _id: { '#OID': 1 },
  capturedBy: CAPTURED_BY,
  n: { '#RAND_INT': [0, 1000000] },
  payload: { '#RAND_STRING': [100] },
};

/**
 * The default slowms (the Manual's profiler and log settings: 100 ms). An op is logged when its time is
 * at or above slowms: shouldLogSlowOpWithSampling, src/mongo/util/log_with_sampling.h, `opDuration >=
 * slowMS` (the versions read here, 4.4-era and master).
 */
export const DEFAULT_SLOWMS = 100;

/** Lines looked at before a file that holds no log entry at all is refused (it is not a mongod log). */
const LINES_BEFORE_REFUSING = 20;
const EXAMPLES_PER_REASON = 5;

export interface ShapeSummary {
  /** Index of its op in workload.json. */
  op: number;
  type: StatementType;
  ns: string;
  description: string;
  count: number;
  sharePercent: number;
  serverMillis: number;
  serverSharePercent: number;
  /** As logged (durationMillis), not measured by mongo-bench. */
  latencyMillis: { p50: number; p95: number; max: number } | null;
  planSummary?: string;
  shapeHashes: string[];
  firstSeen: string;
  /** The source did not hold the op's filter: a stand-in form (docs/capture.md, "Writes logged without their statements"). */
  synthetic?: typeof SYNTHETIC_MARK;
  /** From $queryStats: the server's own latency for the shape in the span read (microseconds). */
  queryStats?: ShapeQueryStats;
  /** How many of its statements are cursors known by their getMores only (their opening command was not logged). */
  cursorsFromGetMores?: number;
}

/** A $queryStats shape's latency as the server measured it (the span read: a window or the entry's lifetime). */
export interface ShapeQueryStats {
  execCount: number;
  /** totalExecMicros.sum / execCount: includes its getMores, not the time waiting for the client. */
  meanExecMicros?: number;
  /** firstResponseExecMicros.sum / execCount: until the first batch. */
  meanFirstResponseMicros?: number;
  meanDocsReturned?: number;
  /** The entry's slowest and fastest since it was first seen (not only the window's). */
  maxExecMicros?: number;
  minExecMicros?: number;
  firstSeen?: string;
  latestSeen?: string;
}

/** How a $queryStats capture was read: what its weights are, what span they cover, where its values came from. */
export interface QueryStatsReading {
  /** `window`: two snapshots' difference; `cumulative`: each entry's counts since it was first seen. */
  mode: 'window' | 'cumulative';
  snapshots: { source: string; entries: number; asOf?: string }[];
  windowSeconds?: number;
  /** The earliest firstSeenTimestamp and latest latestSeenTimestamp of the shapes kept. */
  firstSeen?: string;
  latestSeen?: string;
  /** `sample`: the sampled values (--keep-sample), else the template; `docs-like`: the --docs-like template where it has the field; `type`: generators of each literal's type only. */
  values: 'sample' | 'docs-like' | 'type';
  literals?: LiteralCounts;
}

/** How update/delete statement lines and their commands were counted (see ./pairing). */
export interface SamplingSummary {
  /** `option`: --sampled; `detected`: statement lines whose command was not logged (the server samples each independently). */
  sampled: false | 'option' | 'detected';
  /** Statement lines no command on their connection paired with (within [command t - durationMillis, command t]). */
  unpairedStatements: number;
}

/** The getMores of a log: those of cursors whose opening command it holds, and those it holds alone. */
export interface GetMoreSummary {
  /** getMores whose find or aggregate is in the source: skipped, their time added to it. */
  ofLoggedCursors: number;
  /** Their summed server time (ms) added to the shapes of their opening commands. */
  millisAddedToOpeners: number;
  /** getMores whose opening command is not in the source, and the cursors they make (each one statement). */
  alone: number;
  cursors: number;
  /** Of those cursors, the ones replayed with a limit (no getMore of theirs said cursorExhausted). */
  limited: number;
}

/** What a source says of the slowms it was written with (every op logged took at least slowms). */
export interface SlowmsReading {
  /** The shortest time logged: workingMillis where the server writes it (8.0 and later), else durationMillis. */
  shortestMillis: number;
  /** Every logged op took 100 ms (the default slowms) or more: the slow tail, not the load. */
  slowTail: boolean;
  /** 100 (the default) when every op took at least that; otherwise the shortest, above which slowms cannot have been. */
  suggested: number;
}

/** One source of a capture as workload.json names it: base name only (a full path can name a host or a customer). */
export interface SourceRecord {
  name: string;
  /** Lines read (a log, a saved $queryStats file). */
  lines?: number;
  /** Documents read (the profiler, a live $queryStats). */
  documents?: number;
  /** SHA-256 of the file as read (a gzip file's compressed bytes), hex. */
  sha256?: string;
}

/** Where a workload came from: written to workload.json so a replay points back to its capture. */
export interface CapturedFrom {
  kind: 'log' | 'profiler' | 'queryStats';
  sources: SourceRecord[];
  slowms?: SlowmsReading;
}

export interface SkipSummary {
  reason: SkipReason;
  count: number;
  /** `file:line` (and the detail) of the first few. */
  examples: string[];
}

export interface CaptureSummary {
  sources: string[];
  /** Lines (log) or documents (profiler) read. */
  recordsRead: number;
  /** Slow query entries (log) or profile documents that were operations. */
  servedOps: number;
  statements: number;
  shapes: ShapeSummary[];
  skipped: SkipSummary[];
  /** Log entries that are not Slow query entries (connections, storage, ...): not listed one by one. */
  otherEntries: number;
  firstAt?: string;
  lastAt?: string;
  /** Statements per second over the source's time span (the average of `perSecond`). */
  opsPerSecond?: number;
  insertDocuments: 'placeholder' | 'docs-like';
  /** Present when the source held update/delete statement lines or commands. */
  sampling?: SamplingSummary;
  /** Statements whose command a mongos forwarded (a shard's log): mongos-added fields were stripped. */
  forwardedByMongos?: number;
  /** Inserts kept although the server cut their logged `documents` (ninserted is whole). */
  truncatedInsertsKept?: number;
  /** Lines that carried a `docker compose logs` prefix (`db_1  | `), stripped. */
  composePrefixesStripped?: number;
  /** Failed operations kept as workload (--keep-failed). */
  failedKept?: number;
  /** The source was $queryStats output: its weights, span and values. */
  queryStats?: QueryStatsReading;
  /** Present when the source held getMores. */
  getMores?: GetMoreSummary;
  /** Seconds from the first statement to the last. */
  spanSeconds?: number;
  /** The sources (base names, counts, hashes) and the slowms they suggest, as workload.json has them. */
  capturedFrom?: CapturedFrom;
}

/** How a capture counts what it reads. */
export interface CaptureOptions {
  /** The source was logged with a sampleRate below 1 (--sampled): count update/delete statement lines only. */
  sampled?: boolean;
  /** Keep operations that failed on the server (ok: 0) as workload (--keep-failed); skipped by default. */
  keepFailed?: boolean;
}

export interface CapturedWorkload {
  name: string;
  ops: Record<string, unknown>[];
  /**
   * The source's rate over its time span, and second by second: what `run --replay-rate 1x` replays.
   * `perSecond[i]`: statements per second in the i-th bucket of `bucketSeconds` (1 unless the span is
   * longer than MAX_CURVE_BUCKETS seconds) from the first logged second on. Not in the summary: the
   * curve can be long, and capture.json is for reading.
   */
  capture?: { opsPerSecond: number; firstAt?: string; lastAt?: string } & Partial<CapturedCurve>;
  /** The sources it was captured from (base names, line counts, hashes) and the slowms they suggest. */
  capturedFrom?: CapturedFrom;
}

export interface CaptureOutcome {
  workload: CapturedWorkload;
  summary: CaptureSummary;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Accumulates served ops from any source into shapes and skip counts. */
export class CaptureBuilder {
  private readonly table = new ShapeTable();
  private readonly skips = new Map<SkipReason, SkipSummary>();
  /** Update/delete statements and commands by connection, counted at finish (see ./pairing). */
  private readonly writes = new Map<string, WriteEvent[]>();
  recordsRead = 0;
  /** Every line read, empty ones included (the progress line's count). */
  linesRead = 0;
  servedOps = 0;
  statements = 0;
  otherEntries = 0;
  private forwarded = 0;
  private truncatedKept = 0;
  private prefixed = 0;
  private failedKept = 0;
  private sampling?: SamplingSummary;
  private first?: Date;
  private last?: Date;
  /** Statements by the epoch second their entry was logged in. */
  private readonly bySecond = new Map<number, number>();
  /** What to do when nothing was found (default: the slowms advice for logs). */
  noWorkloadHint?: string;
  /** Set by the $queryStats reader: how it was read. */
  queryStats?: QueryStatsReading;
  /** The source's pace when it is not a list of timed ops (two $queryStats snapshots). */
  pace?: { opsPerSecond: number; firstAt?: string; lastAt?: string };
  /** What workload.json names as the sources (set by the reader: base names, counts, hashes). */
  sources: SourceRecord[] = [];
  sourceKind: CapturedFrom['kind'] = 'log';
  /** getMores, resolved at finish: their cursor's opening command may come later (rotated files). */
  private readonly getMores: ServedOp[] = [];
  /** Cursors opened by a find or aggregate of the source, with the shape it counted in (undefined: skipped). */
  private readonly cursorOpeners = new Map<string, Shape | undefined>();
  private getMoreSummary?: GetMoreSummary;
  /** The shortest time an op of the source took (what slowms was at most). */
  private shortestMillis?: number;

  constructor(private readonly options: CaptureOptions = {}) {}

  skip(skip: Skip): void {
    let s = this.skips.get(skip.reason);
    if (!s) this.skips.set(skip.reason, (s = { reason: skip.reason, count: 0, examples: [] }));
    s.count++;
    if (s.examples.length < EXAMPLES_PER_REASON)
      s.examples.push(skip.detail ? `${skip.origin}: ${skip.detail}` : skip.origin);
  }

  /**
   * One served op. Update and delete statements (WRITE component, type update/remove) and the
   * update/delete commands that carried them are held by connection and counted when the source is
   * read (./pairing decides which count); everything else counts now.
   */
  addServed(served: ServedOp, connectionKey?: string): void {
    this.servedOps++;
    const time = served.workingMillis ?? served.durationMillis;
    if (time !== undefined && (this.shortestMillis === undefined || time < this.shortestMillis))
      this.shortestMillis = time;
    const name = Object.keys(served.command)[0];
    if (name === 'getMore') {
      this.getMores.push(served);
      return;
    }
    if (
      connectionKey !== undefined &&
      (served.kind !== 'command' || name === 'update' || name === 'delete')
    ) {
      let list = this.writes.get(connectionKey);
      if (!list) this.writes.set(connectionKey, (list = []));
      list.push({ served, statement: served.kind !== 'command' });
      return;
    }
    this.count(served);
  }

  /** Counts one served op as its statements, or its skip; true when it counted. */
  private count(served: ServedOp, outcome: Statements = statementsOf(served)): boolean {
    const opener = openedCursor(served);
    if (opener !== undefined && !this.cursorOpeners.has(opener))
      this.cursorOpeners.set(opener, undefined);
    if ('skip' in outcome) {
      this.skip(outcome.skip);
      return false;
    }
    if (served.failed && !this.options.keepFailed) {
      // A duplicate key, MaxTimeMSExpired, an interrupted op: not what the application's workload is.
      const name =
        served.kind === 'command' ? Object.keys(served.command)[0] : `${served.kind} statement`;
      const err = [
        served.failed.errName,
        served.failed.errCode !== undefined ? `(${served.failed.errCode})` : undefined,
      ]
        .filter(Boolean)
        .join(' ');
      this.skip({
        origin: served.origin,
        reason: 'failed on the server',
        detail: `${name} on ${served.ns}${err ? `: ${err}` : ''}`,
      });
      return false;
    }
    if (served.failed) this.failedKept++;
    if (served.truncated) this.truncatedKept++;
    for (const st of outcome.statements) {
      const shape = this.table.add(st);
      if (opener !== undefined) this.cursorOpeners.set(opener, shape);
      this.statements++;
      if (st.forwarded) this.forwarded++;
    }
    if (served.at) {
      const second = Math.floor(served.at.getTime() / 1000);
      this.bySecond.set(second, (this.bySecond.get(second) ?? 0) + outcome.statements.length);
      if (!this.first || served.at < this.first) this.first = served.at;
      if (!this.last || served.at > this.last) this.last = served.at;
    }
    return true;
  }

  /**
   * The held getMores, once the whole source is read. One whose cursor's find or aggregate is in the
   * source belongs to it: skipped, its time added to that command's shape. The others are grouped by
   * cursor, and each cursor counts once, as its `originatingCommand` (OpDebug::report writes it on every
   * getMore) with their summed time, read as far as they show it went (see cursorStatements).
   */
  private countGetMores(): void {
    if (this.getMores.length === 0) return;
    const summary: GetMoreSummary = {
      ofLoggedCursors: 0,
      millisAddedToOpeners: 0,
      alone: 0,
      cursors: 0,
      limited: 0,
    };
    const alone = new Map<string, ServedOp[]>();
    for (const g of this.getMores) {
      const id = cursorIdOf(g.command.getMore) ?? g.cursorId;
      const key = id !== undefined ? `${g.ns}\u0000${id}` : undefined;
      if (key !== undefined && this.cursorOpeners.has(key)) {
        const opener = this.cursorOpeners.get(key);
        summary.ofLoggedCursors++;
        if (opener && g.durationMillis !== undefined) {
          opener.serverMillis += g.durationMillis;
          summary.millisAddedToOpeners += g.durationMillis;
        }
        this.skip({
          origin: g.origin,
          reason: 'getMore (part of its cursor)',
          detail: `on ${g.ns}: its opening command is in the source${opener ? ', its time added to it' : ' (skipped)'}`,
        });
      } else if (!g.originatingCommand) {
        this.skip({
          origin: g.origin,
          reason: 'getMore (part of its cursor)',
          detail: `on ${g.ns}: without its opening command or originatingCommand`,
        });
      } else {
        const group = alone.get(key ?? g.origin);
        if (group) group.push(g);
        else alone.set(key ?? g.origin, [g]);
      }
    }
    for (const group of alone.values()) {
      const { served, readLimit } = cursorOf(group);
      if (!this.count(served, cursorStatements(served, readLimit))) continue;
      summary.alone += group.length;
      summary.cursors++;
      if (readLimit !== undefined) summary.limited++;
    }
    this.getMoreSummary = summary;
    this.getMores.length = 0;
  }

  /**
   * A shape that ran `metrics.execCount` times ($queryStats): one statement weighted by its count.
   * False when it was skipped (the reason is counted).
   */
  addWeighted(served: ServedOp, metrics: QueryStatsMetrics): boolean {
    const outcome = statementsOf(served);
    if ('skip' in outcome) {
      this.skip(outcome.skip);
      return false;
    }
    for (const st of outcome.statements) {
      st.queryStats = metrics;
      // Its values are already templates (the shape had none of the user's): nothing to collect.
      st.valuePaths = [];
      this.table.add(st);
    }
    this.statements += metrics.execCount;
    return true;
  }

  /** Counts the held update/delete statements and commands (once, at finish). */
  private countWrites(): void {
    if (this.writes.size === 0) return;
    const decision = pairWrites(this.writes, this.options.sampled === true);
    this.sampling = { sampled: decision.sampled, unpairedStatements: decision.unpairedStatements };
    for (const item of decision.items) {
      if ('skip' in item) this.skip(item.skip);
      else this.count(item.count);
    }
    this.writes.clear();
  }

  /** One log line (empty lines are ignored). */
  addLogLine(line: SourceLine): 'entry' | 'bad' | 'empty' {
    this.linesRead++;
    if (line.text.trim() === '') return 'empty';
    this.recordsRead++;
    const origin = `${line.file}:${line.line}`;
    const prefix = composePrefix(line.text);
    if (prefix !== undefined) this.prefixed++;
    const outcome = parseLogLine(
      prefix !== undefined ? line.text.slice(prefix.length) : line.text,
      origin,
    );
    if (outcome === undefined) {
      this.otherEntries++;
      return 'entry';
    }
    if ('skip' in outcome) {
      this.skip(outcome.skip);
      return outcome.skip.reason === 'does not parse' ? 'bad' : 'entry';
    }
    this.addServed(outcome.served, `${line.file}\u0000${outcome.served.connection ?? ''}`);
    return 'entry';
  }

  finish(
    name: string,
    insertDocument: unknown,
    insertDocuments: CaptureSummary['insertDocuments'],
    sources: string[],
  ): CaptureOutcome {
    this.countGetMores();
    this.countWrites();
    const shapes = this.table.list().sort((a, b) => b.count - a.count);
    if (shapes.length === 0) {
      const skipped = [...this.skips.values()].map((s) => `${s.reason}: ${s.count}`).join('; ');
      throw new UsageError(
        `capture: no workload found in ${sources.join(', ')} (${this.recordsRead} records read${skipped ? `; skipped ${skipped}` : ''}). ` +
          (this.noWorkloadHint ??
            'The server logs an operation only when it is slower than slowms: set db.setProfilingLevel(0, {slowms: 0}) (or a sampleRate) while the workload runs; see docs/capture.md'),
      );
    }
    const ops = shapes.map((shape) => shapeOp(shape, insertDocument));
    const summary = this.summaryOf(shapes, insertDocuments, sources);
    const capturedFrom = summary.capturedFrom;
    if (this.pace) {
      summary.opsPerSecond = this.pace.opsPerSecond;
      if (this.pace.firstAt) summary.firstAt = this.pace.firstAt;
      if (this.pace.lastAt) summary.lastAt = this.pace.lastAt;
      return { workload: { name, ops, capture: { ...this.pace }, capturedFrom }, summary };
    }
    if (this.queryStats) {
      // Cumulative counts have no pace: each entry counts from its own first sighting.
      delete summary.opsPerSecond;
      return { workload: { name, ops, capturedFrom }, summary };
    }
    const capture =
      summary.opsPerSecond !== undefined
        ? {
            capture: {
              opsPerSecond: summary.opsPerSecond,
              firstAt: summary.firstAt,
              lastAt: summary.lastAt,
              ...perSecondCurve(this.bySecond),
            },
          }
        : {};
    return { workload: { name, ops, ...capture, capturedFrom }, summary };
  }

  private summaryOf(
    shapes: Shape[],
    insertDocuments: CaptureSummary['insertDocuments'],
    sources: string[],
  ): CaptureSummary {
    const totalCount = shapes.reduce((s, x) => s + x.count, 0);
    const totalMillis = shapes.reduce((s, x) => s + x.serverMillis, 0);
    const seconds =
      this.first && this.last ? (this.last.getTime() - this.first.getTime()) / 1000 : undefined;
    const slowms = slowmsReading(this.shortestMillis);
    return {
      sources,
      recordsRead: this.recordsRead,
      servedOps: this.servedOps,
      statements: this.statements,
      shapes: shapes.map((shape, op) => summarize(shape, op, totalCount, totalMillis)),
      skipped: [...this.skips.values()].sort((a, b) => b.count - a.count),
      otherEntries: this.otherEntries,
      ...(this.first ? { firstAt: this.first.toISOString() } : {}),
      ...(this.last ? { lastAt: this.last.toISOString() } : {}),
      ...(seconds !== undefined && seconds > 0
        ? {
            opsPerSecond: Number((this.statements / seconds).toPrecision(4)),
            spanSeconds: seconds,
          }
        : {}),
      insertDocuments,
      ...(this.sampling ? { sampling: this.sampling } : {}),
      ...(this.forwarded > 0 ? { forwardedByMongos: this.forwarded } : {}),
      ...(this.truncatedKept > 0 ? { truncatedInsertsKept: this.truncatedKept } : {}),
      ...(this.prefixed > 0 ? { composePrefixesStripped: this.prefixed } : {}),
      ...(this.failedKept > 0 ? { failedKept: this.failedKept } : {}),
      ...(this.queryStats ? { queryStats: this.queryStats } : {}),
      ...(this.getMoreSummary ? { getMores: this.getMoreSummary } : {}),
      capturedFrom: {
        kind: this.sourceKind,
        sources: this.sources,
        ...(slowms ? { slowms } : {}),
      },
    };
  }
}

/** The key of the cursor a find or aggregate left open (its namespace and `cursorid`), if any. */
function openedCursor(served: ServedOp): string | undefined {
  const name = Object.keys(served.command)[0];
  if (served.cursorId === undefined || (name !== 'find' && name !== 'aggregate')) return undefined;
  return `${served.ns}\u0000${served.cursorId}`;
}

/**
 * The getMores of one cursor as one served op: its originatingCommand, their summed time, and how far
 * the log shows it read: the first batch (the command's batchSize, or the default) and every logged
 * getMore's nreturned; no limit when one says cursorExhausted (the application read to the end).
 */
function cursorOf(getMores: ServedOp[]): { served: ServedOp; readLimit?: number } {
  const [first] = getMores;
  const command = first.originatingCommand ?? {};
  const times = getMores.flatMap((g) => (g.durationMillis !== undefined ? [g.durationMillis] : []));
  const failed = getMores.find((g) => g.failed)?.failed;
  const returned = getMores.reduce((n, g) => n + (g.nreturned ?? 0), 0);
  const served: ServedOp = {
    origin: first.origin,
    ...(first.at ? { at: first.at } : {}),
    ns: first.ns,
    kind: 'command',
    command,
    ...(times.length > 0 ? { durationMillis: times.reduce((a, b) => a + b, 0) } : {}),
    planSummary: first.planSummary,
    shapeHash: first.shapeHash,
    connection: first.connection,
    ...(failed ? { failed } : {}),
  };
  const exhausted = getMores.some((g) => g.cursorExhausted === true);
  return { served, readLimit: exhausted ? undefined : firstBatchOf(command) + returned };
}

/** The slowms a source suggests: every op it holds took at least that long (shouldLogSlowOpWithSampling). */
export function slowmsReading(shortestMillis: number | undefined): SlowmsReading | undefined {
  if (shortestMillis === undefined) return undefined;
  const slowTail = shortestMillis >= DEFAULT_SLOWMS;
  return {
    shortestMillis,
    slowTail,
    suggested: slowTail ? DEFAULT_SLOWMS : Math.floor(shortestMillis),
  };
}

/**
 * Six hours second by second; a longer span is kept in wider buckets so the workload file stays small
 * (a replay lasts minutes: it replays the curve's first seconds, see workload/replay-curve).
 */
export const MAX_CURVE_BUCKETS = 21_600;

/** The per-second curve of the logged statements, from the first logged second to the last. */
function perSecondCurve(bySecond: Map<number, number>): CapturedCurve | Record<string, never> {
  if (bySecond.size === 0) return {};
  let first = Infinity;
  let last = -Infinity;
  for (const second of bySecond.keys()) {
    first = Math.min(first, second);
    last = Math.max(last, second);
  }
  const span = last - first + 1;
  const bucket = Math.ceil(span / MAX_CURVE_BUCKETS);
  const counts = new Array<number>(Math.ceil(span / bucket)).fill(0);
  for (const [second, n] of bySecond) counts[Math.floor((second - first) / bucket)] += n;
  return {
    perSecond: counts.map((c) => Number((c / bucket).toPrecision(4))),
    ...(bucket > 1 ? { bucketSeconds: bucket } : {}),
  };
}

function summarize(
  shape: Shape,
  op: number,
  totalCount: number,
  totalMillis: number,
): ShapeSummary {
  const sorted = [...shape.durations].sort((a, b) => a - b);
  const plan = [...shape.plans].sort((a, b) => b[1] - a[1])[0]?.[0];
  return {
    op,
    type: shape.type,
    ns: shape.ns,
    description: shape.description,
    count: shape.count,
    sharePercent: round2((shape.count / totalCount) * 100),
    serverMillis: round2(shape.serverMillis),
    serverSharePercent: totalMillis > 0 ? round2((shape.serverMillis / totalMillis) * 100) : 0,
    latencyMillis:
      sorted.length > 0
        ? {
            p50: round2(percentile(sorted, 50)),
            p95: round2(percentile(sorted, 95)),
            max: round2(sorted[sorted.length - 1]),
          }
        : null,
    ...(plan ? { planSummary: plan } : {}),
    shapeHashes: [...shape.hashes].slice(0, 5),
    firstSeen: shape.firstOrigin,
    ...(shape.synthetic ? { synthetic: SYNTHETIC_MARK } : {}),
    ...(shape.queryStats ? { queryStats: shapeQueryStats(shape.queryStats) } : {}),
    ...(shape.cursorsFromGetMores > 0 ? { cursorsFromGetMores: shape.cursorsFromGetMores } : {}),
  };
}

function shapeQueryStats(m: QueryStatsMetrics): ShapeQueryStats {
  const mean = (sum: number | undefined) =>
    sum !== undefined && m.execCount > 0 ? round2(sum / m.execCount) : undefined;
  const out: ShapeQueryStats = {
    execCount: m.execCount,
    meanExecMicros: mean(m.execMicros),
    meanFirstResponseMicros: mean(m.firstResponseMicros),
    meanDocsReturned: mean(m.docsReturned),
    maxExecMicros: m.maxMicros,
    minExecMicros: m.minMicros,
    firstSeen: m.firstSeen?.toISOString(),
    latestSeen: m.latestSeen?.toISOString(),
  };
  return { ...dropUndefined(out), execCount: m.execCount };
}

/**
 * Reads log lines into a builder. A file that holds no log entry in its first lines (a text log of
 * 4.2 or older, a binary file, the wrong file) is refused with the first bad line's file:line.
 */
export async function addLogFile(
  builder: CaptureBuilder,
  lines: AsyncIterable<SourceLine>,
  onLine?: (n: number) => void,
): Promise<void> {
  let entries = 0;
  let looked = 0;
  let firstBad: { line: SourceLine; detail: string } | undefined;
  for await (const line of lines) {
    const kind = builder.addLogLine(line);
    onLine?.(builder.linesRead);
    if (kind === 'empty') continue;
    looked++;
    if (kind === 'entry') entries++;
    else if (!firstBad) firstBad = { line, detail: describeBad(line.text) };
    if (entries === 0 && looked >= LINES_BEFORE_REFUSING) break;
  }
  if (entries === 0 && firstBad) {
    throw new UsageError(
      `capture: ${firstBad.line.file}:${firstBad.line.line}: not a mongod/mongos JSON log (4.4 or later): ${firstBad.detail}`,
    );
  }
}

function describeBad(text: string): string {
  const outcome = parseLogLine(text, '');
  return outcome && 'skip' in outcome ? (outcome.skip.detail ?? outcome.skip.reason) : 'unreadable';
}
