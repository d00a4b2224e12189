/** What a reader of a write-concern experiment must know: today's journaling, and how the old driver options map. */
export const JOURNAL_NOTE =
  'WiredTiger always journals: the old --journal switch has no off position today. FSYNC_SAFE and --journal map to j:true, which waits for the journal commit of each write; without j the journal is flushed about every 100 ms (storage.journal.commitIntervalMs).';
export const MAPPING_NOTE =
  'Old driver options: NORMAL = w:0, SAFE = w:1, FSYNC_SAFE / --journal = j:true, REPLICA_SAFE(n) = w:n, slaveOk = readPreference "secondary".';
