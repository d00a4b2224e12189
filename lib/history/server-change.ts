/**
 * Which server each run of a series measured, and whether it changed: a run that fails against its
 * baseline on another server (another product, version, topology or host) most likely fails because
 * of the server, not the code, and the gate says so beside its verdict. Servers are named as every
 * summary names them (lib/report/describe.ts serverLabel: the product and its version), never
 * "MongoDB" for a server that only reports a MongoDB version.
 */
import type { ResultDocument } from '../result';
import { serverLabel } from '../report/describe';
import { firstHostName } from '../server/identify-server';

/** A run's server: "FerretDB 1.24.2, reports MongoDB 7.0.42 (standalone, host 127.0.0.1)". */
export function serverIdentity(result: ResultDocument): string {
  const host = firstHostName(result.target.uri);
  return `${serverLabel(result)} (${result.target.topology}${host ? `, host ${host}` : ''})`;
}

/** The product as a kind (name, edition, test double or not): runs of two kinds do not belong in one series. */
function productKind(result: ResultDocument): string {
  const p = result.target.product;
  const double = result.target.testDouble === true;
  return p ? `${p.name}\u0000${p.edition ?? ''}\u0000${double}` : `legacy\u0000${double}`;
}

/**
 * The servers of a label's runs with their counts (oldest first) when the runs span more than one
 * product (a test double and FerretDB, FerretDB and MongoDB, ...); undefined when they share one (a
 * new version of the same product is the history a series tracks, and the gate names it when it coincides
 * with a failure).
 */
export function mixedServers(
  results: readonly { result: ResultDocument }[],
): { server: string; runs: number }[] | undefined {
  if (new Set(results.map((r) => productKind(r.result))).size < 2) return undefined;
  const counts = new Map<string, number>();
  for (const { result } of results) {
    const server = serverLabel(result);
    counts.set(server, (counts.get(server) ?? 0) + 1);
  }
  return [...counts].map(([server, runs]) => ({ server, runs }));
}

/** "X (6 runs); Y (1 run)" */
export function formatServerRuns(servers: readonly { server: string; runs: number }[]): string {
  return servers.map((s) => `${s.server} (${s.runs} run${s.runs === 1 ? '' : 's'})`).join('; ');
}

/**
 * When a run's server is none of its baseline's: the sentence the gate prints beside the verdict
 * (`words`: how the two are called, e.g. "the baseline" and "the newest"). Undefined when the run
 * was on a server of the baseline.
 */
export function serverChange(
  baseline: readonly ResultDocument[],
  run: ResultDocument,
  words: { before: string; after: string } = { before: 'the baseline', after: 'the newest' },
): string | undefined {
  const before = [...new Set(baseline.map(serverIdentity))];
  const now = serverIdentity(run);
  if (before.length === 0 || before.includes(now)) return undefined;
  return `the server changed, likely the cause: ${words.before} ran on ${before.join('; ')}, ${words.after} on ${now}`;
}
