import { clientBoundClients, clientBoundWarningLines } from '../metrics/client-load';
import { resultWarnings } from '../metrics/warnings';
import { counted } from '../common/values';
import { ResultDocument, StepResult } from '../result';

/** What a result measured, as short human strings (used in chart subtitles and summaries). */
export interface ResultFacts {
  workload: string;
  topology: string;
  server: string;
  docSize: string;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trimNumber(bytes / 1024)} KiB`;
  return `${trimNumber(bytes / (1024 * 1024))} MiB`;
}

function trimNumber(n: number): string {
  return String(Math.round(n * 10) / 10);
}

/** The line every chart and summary of test-double numbers carries. */
export const TEST_DOUBLE_WARNING = 'TEST DOUBLE server: these numbers are not MongoDB numbers';

export function isTestDouble(result: ResultDocument): boolean {
  return result.target.testDouble === true;
}

/** What a target says of the server that answered: enough to name it (a result's `target`, a run's `connected` event). */
export type ServerFacts = Pick<
  ResultDocument['target'],
  'testDouble' | 'product' | 'serverVersion'
>;

/**
 * The server as it is: the identified product's label (lib/server/identify-server.ts), marked when it
 * is a test double; results written before the product was recorded keep the old wording.
 */
export function serverLabel(result: ResultDocument): string {
  return targetServerLabel(result.target);
}

/** serverLabel of a target (a result's, or the one a run just connected to). */
export function targetServerLabel(target: ServerFacts): string {
  const product = target.product;
  const version = target.serverVersion;
  if (product)
    return product.testDouble
      ? `TEST DOUBLE server ${product.label.replace(' (test double)', '')}, not MongoDB`
      : product.label;
  return target.testDouble === true
    ? `TEST DOUBLE server${version ? ` (reports ${version})` : ''}, not MongoDB`
    : version
      ? `MongoDB ${version}`
      : 'MongoDB (version unknown)';
}

/** True when the result names a product other than MongoDB (FerretDB, DocumentDB, ...; test doubles too). */
export function isNotMongoDB(result: ResultDocument): boolean {
  return targetIsNotMongoDB(result.target);
}

/** True when the target names a product other than MongoDB, or is a test double (results before products were recorded: MongoDB unless marked). */
export function targetIsNotMongoDB(target: ServerFacts): boolean {
  const name = target.product?.name;
  return target.testDouble === true || (name !== undefined && name !== 'MongoDB');
}

/**
 * The warning every chart and summary carries for a result measured on another product (FerretDB,
 * DocumentDB, ...); undefined for MongoDB and for test doubles, which carry the TEST DOUBLE line.
 * `label`: which result, where several are shown together.
 */
export function notMongoDBWarning(result: ResultDocument, label?: string): string | undefined {
  return targetNotMongoDBWarning(result.target, label);
}

function targetNotMongoDBWarning(target: ServerFacts, label?: string): string | undefined {
  if (target.testDouble === true || !targetIsNotMongoDB(target)) return undefined;
  return `NOT MongoDB: ${label !== undefined ? `${label} ran on ` : ''}${target.product?.label ?? 'another server'}; these are its numbers, not MongoDB's`;
}

/**
 * The one warning about the server itself, in the words summary.md and the charts use: the TEST DOUBLE
 * line, the NOT MongoDB line (FerretDB, an unidentified server, ...), or undefined for MongoDB. The
 * terminal prints it when the run connects, --quiet included.
 */
export function serverWarning(target: ServerFacts): string | undefined {
  return target.testDouble === true ? TEST_DOUBLE_WARNING : targetNotMongoDBWarning(target);
}

/**
 * The server named with its mark, for a sentence that sets two servers side by side: "MongoDB Community
 * 7.0.14", "NOT MongoDB: unidentified server, reports MongoDB 7.0.0", "TEST DOUBLE server ..., not MongoDB".
 */
export function markedServerLabel(target: ServerFacts): string {
  const label = targetServerLabel(target);
  return target.testDouble !== true && targetIsNotMongoDB(target) ? `NOT MongoDB: ${label}` : label;
}

function formatGiB(bytes: number): string {
  return `${trimNumber(bytes / 1024 ** 3)} GiB`;
}

/** "64 GiB", or "2 GiB of a 64 GiB host" when the server may use less than the host has (hostInfo memLimitMB). */
function hostMemory(h: { memoryMB?: number; memoryLimitMB?: number }): string {
  const gib = (mb: number) => `${trimNumber(mb / 1024)} GiB`;
  if (h.memoryLimitMB !== undefined)
    return h.memoryMB !== undefined
      ? `${gib(h.memoryLimitMB)} memory limit of a ${gib(h.memoryMB)} host`
      : `${gib(h.memoryLimitMB)} memory limit`;
  return h.memoryMB !== undefined ? gib(h.memoryMB) : '';
}

/**
 * "Key: value" lines about the server processes and the load machine, for summaries: what a reader
 * needs to repeat the run. A fact the server did not give says why (from `unavailable`).
 */
export function environmentDetails(result: ResultDocument): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const product = result.target.product;
  if (product) out.push(['Identified by', product.evidence.join('; ')]);
  for (const p of result.target.processes ?? []) {
    const parts = [
      p.version ? `version ${p.version}` : '',
      p.gitVersion ? `git ${p.gitVersion.slice(0, 12)}` : '',
      p.storageEngine ? `storage engine ${p.storageEngine}` : '',
      p.cacheBytes !== undefined ? `WiredTiger cache ${formatGiB(p.cacheBytes)}` : '',
      p.featureCompatibilityVersion ? `FCV ${p.featureCompatibilityVersion}` : '',
      p.hostInfo
        ? `host ${[p.hostInfo.cores !== undefined ? `${p.hostInfo.cores} cores` : '', hostMemory(p.hostInfo), p.hostInfo.os ?? ''].filter(Boolean).join(', ')}`
        : '',
      p.options ? `options ${JSON.stringify(p.options)}` : '',
    ].filter(Boolean);
    out.push([`Process ${p.host}`, parts.length > 0 ? parts.join(' · ') : 'no facts given']);
    if (p.unavailable && p.unavailable.length > 0)
      out.push([`Not recorded for ${p.host}`, p.unavailable.join('; ')]);
  }
  const sized = result.steps.filter((st) => st.dataVsCache);
  if (sized.length > 0) {
    const said = sized.map((st) => {
      const d = st.dataVsCache!;
      if (d.dataBytes === undefined) return `not read (${d.unavailable ?? 'no figures'})`;
      const size = `${formatBytes(d.dataBytes)} data + ${formatBytes(d.indexBytes ?? 0)} indexes`;
      return `${size}${d.ratio !== undefined && d.cacheBytes !== undefined ? ` = ${trimNumber(d.ratio * 100)}% of the ${formatGiB(d.cacheBytes)} cache` : ` (${d.unavailable ?? 'cache size unknown'})`}`;
    });
    // One sentence said once: the steps that read the same are named together ("every step" when all do).
    const texts = [...new Set(said)];
    const lines = texts.map((text) => {
      const clients = sized.filter((_st, i) => said[i] === text).map((st) => st.clients);
      return texts.length === 1 && sized.length > 1
        ? `every step: ${text}`
        : `${counted(clients, 'client')}: ${text}`;
    });
    out.push(['Collection vs cache', lines.join('; ')]);
  }
  const m = result.environment?.loadMachine;
  if (m) {
    // The client the ops went through (--driver), beside the driver's version.
    const client =
      result.config.driver === 'wire'
        ? `client wire (ops over mongo-bench's own OP_MSG connections; driver ${m.driver} for set-up and sampling)`
        : `driver ${m.driver}`;
    out.push([
      'Load machine',
      `${m.cpuModel}, ${m.cores} cores, ${formatGiB(m.memoryBytes)}, ${m.os}; Node ${m.node}, ${client}, mongo-bench ${m.mongoBench}${m.gitCommit ? ` (commit ${m.gitCommit.slice(0, 12)})` : ''}`,
    ]);
  }
  return out;
}

export function resultFacts(result: ResultDocument): ResultFacts {
  const server = serverLabel(result);
  return {
    workload: result.workload.name,
    topology: result.target.topology,
    server,
    docSize: result.workload.ownData
      ? "the workload's own documents"
      : result.workload.docSize === undefined
        ? 'doc size not recorded'
        : `${formatBytes(result.workload.docSize)} docs`,
  };
}

/** One line saying what was measured; for several results, facts they do not share read "varies". */
export function measuredLine(results: readonly ResultDocument[]): string {
  const all = results.map(resultFacts);
  const pick = (key: keyof ResultFacts, name: string) => {
    const values = [...new Set(all.map((f) => f[key]))];
    return values.length === 1 ? values[0] : `${name} varies`;
  };
  return [
    `workload: ${pick('workload', 'workload')}`,
    pick('topology', 'topology'),
    pick('server', 'server'),
    pick('docSize', 'doc size'),
  ].join(' · ');
}

/** Each result's own label, made unique when two results share one ("w:1", "w:1 #2"). */
export function uniqueLabels(results: readonly ResultDocument[]): string[] {
  const seen = new Map<string, number>();
  return results.map((r, i) => {
    const base = r.label.trim() || `result ${i + 1}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} #${n}`;
  });
}

/** Legend labels: the unique label, marked when the run is incomplete or ran against a test double. */
export function seriesLabels(results: readonly ResultDocument[]): string[] {
  return uniqueLabels(results).map((label, i) => {
    const r = results[i];
    const other =
      !isTestDouble(r) && isNotMongoDB(r) ? ` (${r.target.product?.name ?? 'not MongoDB'})` : '';
    return `${label}${r.complete ? '' : ' (incomplete)'}${isTestDouble(r) ? ' (test double)' : ''}${other}`;
  });
}

/** Warnings every chart and table of these results must carry. */
export function warnings(results: readonly ResultDocument[]): string[] {
  const out: string[] = [];
  const labels = uniqueLabels(results);
  const incomplete = results.map((r, i) => ({ r, label: labels[i] })).filter((x) => !x.r.complete);
  if (results.length === 1 && incomplete.length === 1) {
    out.push(
      `INCOMPLETE run${results[0].incompleteReason ? `: ${results[0].incompleteReason}` : ''} (showing the steps it finished)`,
    );
  } else if (incomplete.length > 0) {
    out.push(
      `INCOMPLETE (showing the steps that finished): ${incomplete.map((x) => x.label).join(', ')}`,
    );
  }
  results.forEach((r, i) => {
    const line = notMongoDBWarning(r, results.length > 1 ? labels[i] : undefined);
    if (line) out.push(line);
  });
  // Each step's warnings (lib/metrics/warnings.ts), client-bound aside: clientBoundWarnings says it in its own lines.
  results.forEach((r, i) => {
    const prefix = results.length > 1 ? `${labels[i]}: ` : '';
    for (const { where, warning } of resultWarnings(r))
      if (warning.code !== 'client-bound')
        out.push(`${prefix}WARNING ${where} [${warning.code}]: ${warning.message}`);
  });
  if (results.some(isTestDouble)) {
    out.push(
      results.length === 1
        ? TEST_DOUBLE_WARNING
        : `TEST DOUBLE server (not MongoDB numbers): ${labels.filter((_l, i) => isTestDouble(results[i])).join(', ')}`,
    );
  }
  return out;
}

/**
 * Results with client-bound steps: the warning as two short lines each (a chart draws them under
 * its axis; summary.md joins them). Empty for results that recorded no such step (older files too).
 */
export function clientBoundWarnings(results: readonly ResultDocument[]): Array<[string, string]> {
  const labels = uniqueLabels(results);
  return results.flatMap((r, i) => {
    const clients = clientBoundClients(r.steps);
    return clients.length > 0
      ? [clientBoundWarningLines(clients, results.length > 1 ? labels[i] : undefined)]
      : [];
  });
}

/** A step's status for display: the recorded status, else 'ok'. */
export function stepStatus(step: StepResult): 'ok' | 'failed' | 'interrupted' {
  return step.status ?? 'ok';
}
