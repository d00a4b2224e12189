import { join } from 'node:path';
import { Command } from 'commander';
import { CliContext } from './context';
import { UsageError } from '../config/errors';
import { BSON } from 'mongodb';
import { intArg } from '../config/validate';
import { writeJsonAtomically } from '../common/atomic-write';
import { DEFAULT_SAMPLE_SIZE, DOCS_LIKE_FILE, docsLikeFile, sampleDocsLike } from '../capture/docs-like';
import { captureFromLogs, captureFromProfiler, CAPTURE_FILES, CaptureOutcome, PLACEHOLDER_DOCUMENT, SLOWMS_ADVICE, writeCapture } from '../capture';
import { fileTimestamp } from '../common/values';

const CAPTURE_HELP = `
Reads what a server served and writes a workload that "run --workload-file" runs unchanged:
  SOURCES      mongod/mongos logs of 4.4 or later (structured JSON, one entry per line): files, .gz files
               (recognised by content), or directories (their files, sorted by name)
  --uri URI --db NAME
               or the profiler of a live server: the documents of NAME.system.profile, in the order written
               (turn it on while the workload runs: db.setProfilingLevel(2), or 1 with {slowms: 0, sampleRate})

What is read: the "Slow query" entries (id 51803): find, aggregate, count, distinct, findAndModify,
insert, and each statement of an update or delete. getMore belongs to its cursor. Operations are
grouped by shape (namespace, command type, the filter's fields and operators without constants, as
queryHash groups them); each shape becomes one op with a "weight" (how often it was served), and its
constants become template operators over the values seen (#PICK with their frequencies, or a
#RAND_INT / #RAND_DATE range), so a replay has the same mix and touches the same keys.
Driver metadata (lsid, $clusterTime, txnNumber, $db, ...) is stripped; $readPreference and
writeConcern become the op's own. Skipped, counted and listed with file:line: internal namespaces
(admin, config, local), commands that are not workload (createIndexes, hello, ...), ops that failed on
the server (ok: 0; --keep-failed keeps them), entries whose cut attribute (maxLogSizeKB) is what the op
replays (an insert whose documents were cut is kept: ninserted is whole), a shard's half of a split
aggregation (fromMongos), lines that do not parse. A file with no log entry at all is refused (exit 2),
naming its file and line. Lines from docker compose logs ("db_1  | {...}") are read without the prefix.

Updates and deletes: a statement line (WRITE) pairs with its command when its t lies within
[command t - durationMillis, command t]. A command logged without its statements (a driver's document
sequence, a mongos log) counts as one synthetic op ("synthetic": "filter unknown"): an update of one
loaded document by _id with $inc of mb_replayed, a delete of one document the replay inserted.
Sampled logs (--sampled, or detected): statement lines count, commands of their connections do not.

Documents: a log holds no inserted documents. --docs-like mongodb://HOST/db.coll samples that collection
($sample, --sample-size documents), infers each field's type, size and range, and inserts write documents of
that shape: numbers and dates drawn in the sampled range, strings random text of the typical length, new
ObjectIds. No sampled value is written anywhere unless --keep-sample (then DIR/sample.json). Without it,
inserts write a placeholder document. The template (no sampled value) is kept in DIR/docs-like.json:
run --docs-like DIR loads documents of the same shape, without access to the sampled server.

Pace: workload.json's "capture" holds the statements per second over the log's time span (perSecond);
run --replay-rate 2x replays that curve at twice its rate (docs/capture.md).

Writes to --out: workload.json, capture.md (shapes, their share of ops and of server time, their
latency as logged, what was skipped and why), capture.json (the same as data), capture-shapes.png.
workload.json is written last and atomically: a capture that fails never replaces a previous one.

${SLOWMS_ADVICE.replace(/\n/g, '\n')}

Examples:
  mongo-bench capture /var/log/mongodb/mongod.log --out captured
  mongo-bench capture logs/ mongod.log.1.gz --out captured --name orders
  mongo-bench capture --uri mongodb://127.0.0.1:27017 --db shop --out captured
  mongo-bench run --uri mongodb://127.0.0.1:27017 --workload-file captured/workload.json --no-load

Exit codes:
  0    the workload was written
  1    the server (--uri) could not be read
  2    bad input: a missing or unreadable file, not a JSON log, no workload found in it`;

interface CaptureFlags {
  docsLike?: string;
  sampleSize?: number;
  keepSample?: boolean;
  uri?: string;
  db?: string;
  profileCollection?: string;
  out?: string;
  name?: string;
  json?: boolean;
  sampled?: boolean;
  keepFailed?: boolean;
}

function describeOutcome(outcome: CaptureOutcome): string {
  const s = outcome.summary;
  const lines = [`${s.statements.toLocaleString('en-US')} statements in ${s.shapes.length} shapes from ${s.recordsRead.toLocaleString('en-US')} lines:`];
  for (const shape of s.shapes.slice(0, 10)) {
    lines.push(`  op ${String(shape.op).padStart(2)}  ${shape.sharePercent.toFixed(1).padStart(5)}% of ops  ${shape.serverSharePercent.toFixed(1).padStart(5)}% of server time  ${shape.type} ${shape.ns}`);
  }
  if (s.shapes.length > 10) lines.push(`  ... ${s.shapes.length - 10} more in capture.md`);
  const skipped = s.skipped.map((k) => `${k.reason} ${k.count}`).join(', ');
  if (skipped) lines.push(`skipped: ${skipped}`);
  return `${lines.join('\n')}\n`;
}

export function registerCapture(program: Command, ctx: CliContext): void {
  program
    .command('capture')
    .description("capture your own workload from mongod/mongos logs: shapes with weights and templates, runnable with run --workload-file")
    .argument('[sources...]', 'log files (plain or .gz) and directories of them')
    .option('--uri <uri>', 'read the profiler (system.profile) of this server instead of log files')
    .option('--db <name>', 'with --uri: the database whose system.profile to read')
    .option('--profile-collection <name>', 'with --uri: read this copy of system.profile instead (it is capped: $out it to keep it)')
    .option('--docs-like <uri/db.coll>', 'inserts write documents shaped like this collection ($sample, field types, sizes and ranges inferred; no sampled value is written)')
    .option('--sample-size <n>', `with --docs-like: documents to $sample (default: ${DEFAULT_SAMPLE_SIZE})`, intArg('--sample-size'))
    .option('--keep-sample', 'with --docs-like: also write the sampled documents to sample.json (by default nothing sampled reaches the disk)')
    .option('-o, --out <dir>', 'where workload.json, capture.md, capture.json and capture-shapes.png go (default: reports/capture-<timestamp>/)')
    .option('--name <name>', 'the workload\'s name (default: captured-<first source>)')
    .option('--json', 'print the capture summary as JSON on stdout')
    .option('--sampled', 'the server logged with a sampleRate below 1: count update/delete statement lines only (detected when a statement line has no command)')
    .option('--keep-failed', 'keep operations that failed on the server (ok: 0) as workload (by default skipped, counted, with examples)')
    .addHelpText('after', CAPTURE_HELP)
    .action(async (sources: string[], flags: CaptureFlags) => {
      if (flags.uri !== undefined && sources.length > 0) throw new UsageError('capture: give log files or --uri (the profiler), not both');
      if (flags.uri === undefined && (flags.db !== undefined || flags.profileCollection !== undefined)) {
        throw new UsageError(`capture: option ${flags.db !== undefined ? '--db' : '--profile-collection'} needs --uri`);
      }
      if (flags.uri === undefined && sources.length === 0) throw new UsageError('capture: name at least one log file or directory, or --uri URI --db NAME for the profiler');
      if (flags.docsLike === undefined && (flags.keepSample || flags.sampleSize !== undefined)) {
        throw new UsageError(`capture: option ${flags.keepSample ? '--keep-sample' : '--sample-size'} needs --docs-like`);
      }
      const docsLike = flags.docsLike !== undefined ? await sampleDocsLike(flags.docsLike, flags.sampleSize) : undefined;
      if (docsLike) ctx.err(`capture: inserts will write documents like ${docsLike.source} (${docsLike.sample.length} sampled)`);
      let lastReport = 0;
      // At most one line a second, but always the last one: it gives the true count.
      const progress = (text: string, last = false) => {
        const now = Date.now();
        if (!last && now - lastReport < 1000) return;
        lastReport = now;
        ctx.err(`capture: ${text}`);
      };
      const outcome =
        flags.uri !== undefined
          ? await captureFromProfiler(flags.uri, flags.db ?? '', {
              name: flags.name,
              collection: flags.profileCollection,
              insertDocument: docsLike?.template ?? PLACEHOLDER_DOCUMENT,
              insertDocuments: docsLike ? 'docs-like' : 'placeholder',
              sampled: flags.sampled,
              keepFailed: flags.keepFailed,
              onProgress: (n) => progress(`${n.toLocaleString('en-US')} profile documents read`),
            })
          : await captureFromLogs(sources, {
              name: flags.name,
              insertDocument: docsLike?.template,
              sampled: flags.sampled,
              keepFailed: flags.keepFailed,
              onProgress: (n, file, done) => progress(`${n.toLocaleString('en-US')} lines read (${file})`, done),
            });
      const outDir = flags.out ?? join('reports', `capture-${fileTimestamp(new Date())}`);
      const files = await writeCapture(outDir, outcome);
      if (docsLike) {
        const templatePath = join(outDir, DOCS_LIKE_FILE);
        await writeJsonAtomically(templatePath, docsLikeFile(docsLike));
        files.push(templatePath);
      }
      if (docsLike && flags.keepSample) {
        const samplePath = join(outDir, 'sample.json');
        await writeJsonAtomically(samplePath, BSON.EJSON.serialize(docsLike.sample, { relaxed: false }));
        files.push(samplePath);
      }
      if (flags.json) ctx.out(`${JSON.stringify(outcome.summary, null, 2)}\n`);
      else ctx.out(describeOutcome(outcome));
      ctx.err(`wrote ${files.join(', ')}`);
      ctx.err(`replay: mongo-bench run --uri URI --workload-file ${join(outDir, CAPTURE_FILES.workload)} --no-load`);
    });
}
