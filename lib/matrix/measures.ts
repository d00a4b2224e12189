/** The columns of each experiment's combined table and the grouped bar charts drawn from them. */
import { WAY_MEASURES } from '../experiments/presplit-import/measures';
import { ExperimentName, MatrixChartDefinition, MeasureDefinition } from './types';

export interface ExperimentMeasures {
  measures: MeasureDefinition[];
  charts: MatrixChartDefinition[];
}

export const MEASURES: Record<ExperimentName, ExperimentMeasures> = {
  most: {
    measures: [
      { key: 'writeMiBps', csv: 'write_mib_per_s', title: 'Write', unit: 'MiB/s' },
      { key: 'readMiBps', csv: 'read_mib_per_s', title: 'Read', unit: 'MiB/s' },
      { key: 'consistentPct', csv: 'consistent_reads_pct', title: 'Consistent reads', unit: '%' },
      { key: 'missedReads', csv: 'missed_reads', title: 'Missed reads', unit: 'count' },
      { key: 'docs', csv: 'docs_written', title: 'Documents written', unit: 'docs' },
    ],
    charts: [
      { file: 'write-mibps.png', title: 'Write throughput by configuration', yTitle: 'MiB/s written (2^20 bytes/s)', measures: ['writeMiBps'], scale: 'linear' },
      { file: 'read-mibps.png', title: 'Read-back throughput by configuration', yTitle: 'MiB/s read (documents found)', measures: ['readMiBps'], scale: 'linear' },
      { file: 'consistent-reads.png', title: 'Consistent reads by configuration', yTitle: 'reads that found their document (%)', measures: ['consistentPct'], scale: 'linear' },
    ],
  },
  'write-concern-latency': {
    measures: [
      { key: 'avgMs', csv: 'avg_ms', title: 'Average', unit: 'ms' },
      { key: 'minMs', csv: 'min_ms', title: 'Min', unit: 'ms' },
      { key: 'maxMs', csv: 'max_ms', title: 'Max', unit: 'ms' },
      { key: 'p50Ms', csv: 'p50_ms', title: 'p50', unit: 'ms' },
      { key: 'p99Ms', csv: 'p99_ms', title: 'p99', unit: 'ms' },
      { key: 'inserts', csv: 'inserts_kept', title: 'Inserts kept', unit: 'count' },
    ],
    charts: [
      { file: 'insert-latency.png', title: 'Single-insert latency by write concern', yTitle: 'ms per insert (log scale)', measures: ['minMs', 'p50Ms', 'avgMs', 'p99Ms', 'maxMs'], scale: 'log' },
    ],
  },
  softlayer: {
    measures: [
      { key: 'avgReads', csv: 'best_avg_reads_per_s', title: 'Best avg reads', unit: 'ops/s' },
      { key: 'peakReads', csv: 'best_peak_reads_per_s', title: 'Best peak reads', unit: 'ops/s' },
      { key: 'avgWrites', csv: 'best_avg_writes_per_s', title: 'Best avg writes', unit: 'ops/s' },
      { key: 'peakWrites', csv: 'best_peak_writes_per_s', title: 'Best peak writes', unit: 'ops/s' },
      { key: 'bestClients', csv: 'clients_at_best_avg_reads', title: 'Clients at best avg reads', unit: 'count' },
      { key: 'dataMiB', csv: 'data_mib', title: 'Data set', unit: 'MiB' },
    ],
    charts: [
      { file: 'best-avg-reads.png', title: 'Best average read operations per second', yTitle: 'reads/sec (best client count)', measures: ['avgReads'], scale: 'linear' },
      { file: 'best-peak-reads.png', title: 'Best peak read operations per second', yTitle: 'reads/sec (best second)', measures: ['peakReads'], scale: 'linear' },
      { file: 'best-avg-writes.png', title: 'Best average write operations per second', yTitle: 'writes/sec (best client count)', measures: ['avgWrites'], scale: 'linear' },
      { file: 'best-peak-writes.png', title: 'Best peak write operations per second', yTitle: 'writes/sec (best second)', measures: ['peakWrites'], scale: 'linear' },
    ],
  },
  'presplit-import': {
    // The experiment's own per-way figures (one row per way).
    measures: WAY_MEASURES.map(({ key, csv, title, unit }) => ({ key, csv, title, unit })),
    charts: [
      { file: 'import-inserts-per-sec.png', title: 'Import throughput by way', yTitle: 'documents/sec acknowledged (client)', measures: ['docsPerSec'], scale: 'linear' },
      { file: 'busiest-shard-share.png', title: "Busiest shard's share of the inserts by way", yTitle: 'inserts on the busiest shard (%)', measures: ['busiestSharePct'], scale: 'linear' },
      { file: 'spread-cv.png', title: 'Spread of the inserts over the shards by way', yTitle: 'coefficient of variation (0 = even)', measures: ['spreadCv'], scale: 'linear' },
    ],
  },
};

/** Units written after a figure; counts and ratios have none. */
export function unitShown(m: MeasureDefinition): string | undefined {
  return m.unit === 'count' || m.unit === 'docs' || m.unit === 'ratio' ? undefined : m.unit;
}

/** "Write (MiB/s)" */
export function columnTitle(m: MeasureDefinition): string {
  const unit = unitShown(m);
  return unit ? `${m.title} (${unit})` : m.title;
}
