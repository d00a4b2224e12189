/**
 * The "Storage" part of a result's report (summary.md and index.html show the same tables): per step, what
 * the benchmarked collection cost on disk (steps[].storage) and, on replica sets, each member's oplog
 * window at the step's write rate beside the replication lag sampled. Storage on WiredTiger is as of the
 * last checkpoint; a figure the server did not report shows "–" and the reason below the table.
 */
import { formatWindow } from '../metrics/oplog-warning';
import type { ResultDocument, StepResult } from '../result';
import { formatBytes } from './describe';
import { Table } from './tables';

const NONE = '–';
const bytes = (v: number | undefined): string => (v === undefined ? NONE : formatBytes(v));
const plain = (v: number | undefined): string =>
  v === undefined ? NONE : String(Math.round(v * 10) / 10);

export const STORAGE_NOTE =
  "The benchmarked collection after each step's measured window closed. On disk, free and compression are as of the last checkpoint (WiredTiger updates storageSize at checkpoints, storage.syncPeriodSecs, 60 s by default): a shorter step may show the previous checkpoint's figure.";

/** One row per step with storage figures; undefined when no step recorded them. */
export function storageTable(result: ResultDocument): Table | undefined {
  const steps = result.steps.filter((s) => s.storage);
  if (steps.length === 0) return undefined;
  return {
    title: 'Storage (the benchmarked collection after each step, as of the last checkpoint)',
    columns: [
      'clients',
      'documents',
      'data',
      'on disk',
      'free',
      'indexes',
      'bytes/doc on disk',
      'bytes/doc data',
      'index bytes/doc',
      'compression',
      'read at',
    ],
    align: [
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'left',
    ],
    rows: steps.map((s) => {
      const st = s.storage!;
      return [
        String(s.clients),
        st.documents === undefined ? NONE : String(st.documents),
        bytes(st.dataBytes),
        bytes(st.storageBytes),
        bytes(st.freeStorageBytes),
        bytes(st.indexBytes),
        plain(st.bytesPerDocument),
        plain(st.logicalBytesPerDocument),
        plain(st.indexBytesPerDocument),
        st.compressionRatio === undefined ? NONE : `${st.compressionRatio}x`,
        st.readAt,
      ];
    }),
  };
}

/** The largest lag a member showed in the step's windows, from the sampler's series (seconds). */
function stepLag(result: ResultDocument, step: StepResult, host: string): number | undefined {
  const server = result.server;
  if (!server) return undefined;
  const windows = server.windows.filter((w) => w.clients === step.clients);
  let most: number | undefined;
  for (const series of Object.values(server.series))
    for (const p of series) {
      const lag = p.lagSeconds?.[host];
      if (lag === undefined || !windows.some((w) => p.t >= w.open && p.t <= w.close)) continue;
      most = Math.max(most ?? 0, lag);
    }
  return most;
}

/** One row per step and member with oplog figures; undefined when no step read an oplog. */
export function oplogTable(result: ResultDocument): Table | undefined {
  const rows: string[][] = [];
  for (const s of result.steps)
    for (const m of s.oplog?.members ?? []) {
      const lag = stepLag(result, s, m.host);
      rows.push([
        String(s.clients),
        `${m.shard ? `${m.shard}/` : ''}${m.host}`,
        bytes(m.end?.configuredBytes),
        bytes(m.end?.usedBytes),
        m.entries === undefined ? NONE : String(m.entries),
        m.wrapped ? 'wrapped within the step' : bytes(m.bytes),
        m.bytesPerSecond === undefined ? NONE : `${formatBytes(m.bytesPerSecond)}/s`,
        m.windowSeconds === undefined ? NONE : formatWindow(m.windowSeconds),
        lag === undefined ? NONE : `${lag} s`,
      ]);
    }
  if (rows.length === 0) return undefined;
  return {
    title: 'Oplog (each member, the step’s start to its end)',
    columns: [
      'clients',
      'member',
      'configured',
      'used',
      'entries in step',
      'written in step',
      'write rate',
      'window at this rate',
      'max lag in step',
    ],
    align: ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    rows,
  };
}

/** The reasons behind "–", said once each, and the database's figures (labelled "database"). */
export function storageNotes(result: ResultDocument): string[] {
  const notes = new Set<string>();
  for (const s of result.steps) {
    const st = s.storage;
    if (st) {
      for (const [field, why] of Object.entries(st.missing ?? {})) notes.add(`${field}: ${why}`);
      const db = st.database;
      if (db && (db.storageBytes !== undefined || db.fsUsedBytes !== undefined))
        notes.add(
          `database ${db.name} (every collection, the user's too): ${[
            db.dataBytes !== undefined ? `${formatBytes(db.dataBytes)} data` : '',
            db.storageBytes !== undefined ? `${formatBytes(db.storageBytes)} on disk` : '',
            db.indexBytes !== undefined ? `${formatBytes(db.indexBytes)} indexes` : '',
            db.fsUsedBytes !== undefined && db.fsTotalBytes !== undefined
              ? `filesystem ${formatBytes(db.fsUsedBytes)} used of ${formatBytes(db.fsTotalBytes)}`
              : '',
          ]
            .filter(Boolean)
            .join(', ')}`,
        );
    }
    for (const m of s.oplog?.members ?? [])
      for (const [field, why] of Object.entries(m.missing ?? {}))
        notes.add(`oplog ${m.host} ${field}: ${why}`);
  }
  return [...notes];
}

/** summary.md's "Storage" part, empty when nothing was recorded. */
export function storageSummaryLines(
  result: ResultDocument,
  markdownTable: (t: Table) => string,
): string[] {
  const table = storageTable(result);
  const oplog = oplogTable(result);
  if (!table && !oplog) return [];
  const out = ['', '### Storage'];
  if (table) out.push('', STORAGE_NOTE, '', markdownTable(table));
  if (oplog) out.push('', markdownTable(oplog));
  for (const note of storageNotes(result)) out.push(`- ${note}`);
  return out;
}
