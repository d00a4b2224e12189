/**
 * One row of figures per way, for a table that compares ways (the matrix preset's rows). Titles
 * name the figure; the unit is shown beside it (ops/s, s, %, bytes), none for ratios and counts.
 */
import { MeasureDefinition } from '../experiment';
import { WayResult } from './result';
import { STORAGE_MEASURES, storageMeasures } from '../storage-measures';

export const WAY_MEASURES: MeasureDefinition[] = [
  { key: 'docsPerSec', csv: 'docs_per_sec', title: 'Client inserts', unit: 'ops/s' },
  { key: 'seconds', csv: 'import_seconds', title: 'Import time', unit: 's' },
  {
    key: 'peakMongosPerSec',
    csv: 'peak_mongos_inserts_per_sec',
    title: 'Peak mongos inserts',
    unit: 'ops/s',
  },
  { key: 'spreadCv', csv: 'spread_cv', title: 'Spread (CV, 0 = even)', unit: 'ratio' },
  {
    key: 'busiestSharePct',
    csv: 'busiest_shard_share_pct',
    title: 'Busiest shard share',
    unit: '%',
  },
  { key: 'busiestToIdlest', csv: 'busiest_to_idlest', title: 'Busiest/idlest', unit: 'ratio' },
  { key: 'chunksAfter', csv: 'chunks_after', title: 'Chunks after', unit: 'count' },
  ...STORAGE_MEASURES,
];

/** null where the way measured nothing (failed before the import) or the figure is undefined (idlest shard at 0). */
export function wayMeasures(way: WayResult): Record<string, number | null> {
  const measured = way.import.batches > 0;
  return {
    docsPerSec: measured ? way.import.docsPerSec : null,
    seconds: measured ? way.import.seconds : null,
    peakMongosPerSec: measured ? way.peakPerSec.mongos : null,
    spreadCv: way.spread?.cv ?? null,
    busiestSharePct: way.spread ? Math.round(way.spread.busiestShare * 1000) / 10 : null,
    busiestToIdlest: way.spread?.ratio ?? null,
    chunksAfter: way.chunks.after?.total ?? null,
    ...storageMeasures(way.storage),
  };
}
