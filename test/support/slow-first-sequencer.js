// Jest's test order: the slowest files first, so that no worker is left alone with a long file at
// the end of the run. Jest's own sequencer does this from the timings it cached on an earlier run; a
// fresh clone (CI) has none, and jest then falls back to file size, which puts the long end-to-end
// files late. TYPICAL_SECONDS fills the gap: roughly what each slow file took in a fresh-clone CI run
// on the 2-core machine with three workers (rounded; only files of 10 s or more). Timings jest cached itself still win.
// The order only changes when files run, never what they assert.
const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');

const TYPICAL_SECONDS = {
  'test/e2e-scripts/scripts-e2e-standalone-replset.test.ts': 39,
  'test/matrix/matrix-launched.test.ts': 47,
  'test/compare/compare-crud.test.ts': 46,
  'test/docs/doc-blocks.test.ts': 42,
  'test/e2e-scripts/scripts-e2e-presplit.test.ts': 29,
  'test/workload/workers-crud.test.ts': 41,
  'test/e2e-scripts/scripts-e2e-sharded-from-6.test.ts': 17,
  'test/reliability/faults.test.ts': 39,
  'test/topology/mongosh-scripts.test.ts': 39,
  'test/e2e-scripts/scripts-e2e-sharded-before-6.test.ts': 17,
  'test/run/run-launched.test.ts': 34,
  // Takes about 52 s, but listed lower on purpose: it compares with a baseline recorded on a warm
  // CRUD server (JVM JIT), so it starts after the CRUD-heavy files above rather than first in the run.
  'test/api/orders-regression.test.ts': 34,
  'test/report/page-browser.test.ts': 33,
  'test/capture/capture-replay-crud.test.ts': 43,
  'test/package/tarball.test.ts': 31,
  'test/diskperf/diskperf.test.ts': 29,
  'test/e2e-scripts/scripts-e2e-5x3.test.ts': 26,
  'test/topology/auth-scripts.test.ts': 27,
  'test/compare/compare-runs.test.ts': 30,
  'test/run/result-truth.test.ts': 26,
  'test/workload/engine-crud.test.ts': 21,
  'test/agents/agents-faults.test.ts': 19,
  'test/stand-ins/source-rules.test.ts': 19,
  'test/reliability/run-redaction.test.ts': 17,
  'test/workload/arrival-rate.test.ts': 17,
  'test/matrix/matrix-crud.test.ts': 17,
  'test/workload/engine.test.ts': 17,
  'test/reliability/signals.test.ts': 16,
  'test/reliability/data-guard-crud.test.ts': 16,
  'test/agents/agents-crud.test.ts': 25,
  'test/reliability/outages.test.ts': 14,
  'test/capture/capture-second-reading.test.ts': 12,
  'test/workload/step-window.test.ts': 15,
  'test/workload/workers-faults.test.ts': 14,
  'test/matrix/matrix-goldens.test.ts': 14,
  'test/server-stats/run-server-stats.test.ts': 13,
  'test/run/run-uri-setup.test.ts': 13,
  'test/stand-ins/replication.test.ts': 13,
  'test/slo/slo-crud.test.ts': 13,
  'test/launcher/embedded.test.ts': 13,
  'test/capture/run-docs-like-crud.test.ts': 12,
  'test/security/launcher-auth.test.ts': 11,
  'test/run/run-uri-crud.test.ts': 10,
  'test/launcher/launch.test.ts': 10,
  'test/run/ops-latency-crud.test.ts': 13,
  'test/run/run-lifecycle.test.ts': 12,
};

/** Files not listed took under 10 s: below every listed one, ordered among themselves by jest (file size). */
const UNLISTED_MS = 5_000;

class SlowFirstSequencer extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const relative = path
      .relative(test.context.config.rootDir, test.path)
      .split(path.sep)
      .join('/');
    const typical = TYPICAL_SECONDS[relative];
    return typical === undefined ? undefined : typical * 1000;
  }

  sort(tests) {
    const sorted = super.sort(tests);
    // Jest runs files without a time first; put them after every file with one (listed or cached).
    const timed = sorted.filter((t) => t.duration != null);
    const untimed = sorted.filter((t) => t.duration == null);
    return [
      ...timed.filter((t) => t.duration >= UNLISTED_MS),
      ...untimed,
      ...timed.filter((t) => t.duration < UNLISTED_MS),
    ];
  }
}

module.exports = SlowFirstSequencer;
