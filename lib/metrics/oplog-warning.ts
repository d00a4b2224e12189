/**
 * The `oplog-window` warning, from the result alone: a step's `oplog` records each member's window at the
 * step's write rate and the threshold that applies (--min-oplog-window, or the server's
 * storage.oplogMinRetentionHours); no threshold, no warning.
 */
import type { StepOplog, StepWarning } from '../result';

/** "1 h 34 min", "12 min 5 s", "40 s". */
export function formatWindow(seconds: number): string {
  const s = Math.round(seconds);
  if (s >= 86_400) return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s} s`;
}

/** The members whose window falls short of the threshold, as one warning (undefined: none, or no threshold). */
export function oplogWindowWarning(oplog: StepOplog | undefined): StepWarning | undefined {
  if (!oplog || oplog.minWindowSeconds === undefined) return undefined;
  const min = oplog.minWindowSeconds;
  const short = oplog.members.filter((m) => m.windowSeconds !== undefined && m.windowSeconds < min);
  if (short.length === 0) return undefined;
  const said = short.map(
    (m) =>
      `${m.shard ? `${m.shard}/` : ''}${m.host} ${formatWindow(m.windowSeconds as number)}${m.wrapped ? ' (it wrapped within the step)' : ''}`,
  );
  return {
    code: 'oplog-window',
    message: `at this step's write rate the oplog holds less than ${formatWindow(min)} (${oplog.minWindowFrom ?? 'threshold'}): ${said.join(', ')}; a secondary that falls further behind must resync`,
    minWindowSeconds: min,
    minWindowFrom: oplog.minWindowFrom,
    members: short.map((m) => ({ host: m.host, windowSeconds: m.windowSeconds })),
  };
}
