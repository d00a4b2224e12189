/** summary.md's servers part for one result: the consistency check per step, what could not be sampled, why there are no server charts. */
import { ResultDocument } from '../result';
import { checkWarning } from '../server-stats/consistency';
import { isNotMongoDB } from './describe';
import { formatOps } from './format';
import { serverChartsAbsence } from './server-charts';
import { Table } from './tables';

export function consistencyTable(result: ResultDocument): Table | undefined {
  const checks = result.server?.checks ?? [];
  if (checks.length === 0) return undefined;
  return {
    title: 'Servers against clients',
    columns: [
      'clients',
      'servers counted',
      'clients counted',
      'difference',
      'allowed',
      'check',
      'counted on',
    ],
    align: ['right', 'right', 'right', 'right', 'right', 'left', 'left'],
    rows: checks.map((c) => [
      String(c.clients),
      c.serverOps === null ? '–' : formatOps(c.serverOps),
      formatOps(c.clientOps),
      c.difference === null ? '–' : `${c.difference > 0 ? '+' : ''}${c.difference}`,
      `±${c.allowance}`,
      c.status === 'unchecked' ? `unchecked: ${c.note ?? ''}` : c.status,
      c.counted,
    ]),
  };
}

/**
 * A process by its role, `mongod` or `mongos`, on MongoDB; on another product (FerretDB answers as a
 * standalone) by the product's name, never as a mongod.
 */
function processLabel(result: ResultDocument, kind: string): string {
  const product = result.target.product;
  if (result.target.testDouble === true) return 'test double';
  return isNotMongoDB(result) ? (product?.name ?? 'unidentified server') : kind;
}

/** Markdown lines (no heading level above ###), empty when there is nothing to say. */
export function serverSummaryLines(
  result: ResultDocument,
  markdownTable: (t: Table) => string,
): string[] {
  const out: string[] = ['', '### Servers'];
  const server = result.server;
  if (server) {
    out.push(
      '',
      `serverStatus every ${server.intervalMs / 1000} s from ${server.processes.map((p) => `${p.shard ? `${p.shard}/` : ''}${p.id} (${processLabel(result, p.kind)})`).join(', ') || 'no process'}.`,
    );
    for (const check of server.checks) {
      const warning = checkWarning(check);
      if (warning) out.push('', `> **Warning: ${warning}**`);
    }
    const table = consistencyTable(result);
    if (table)
      out.push(
        '',
        markdownTable(table),
        '',
        "Servers' counts: opcounters query + insert + update + delete between readings taken as each measured window opened and closed; allowed = 2% of the clients' ops + the sampler's own commands + failed ops.",
      );
    // A gap's note is in its warning above and an unchecked one's in the table; an ok check's caveat goes here, once.
    for (const note of new Set(
      server.checks.filter((c) => c.status === 'ok' && c.note).map((c) => c.note!),
    ))
      out.push('', `Note: ${note}.`);
    for (const note of server.notes) out.push(`- Could not sample: ${note}`);
  }
  const absence = serverChartsAbsence(result);
  if (absence) out.push('', `No server charts: ${absence}.`);
  return out;
}
