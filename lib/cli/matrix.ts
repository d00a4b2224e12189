import { Command, Option } from 'commander';
import { CliContext, rawArgs } from './context';
import { EXIT } from '../config/errors';
import { intArg, numberArg } from '../config/validate';
import { MATRIX_DEFAULTS, MatrixCliFlags, numberListArg, resolveMatrixOptions } from '../matrix/options';
import { addTopologyOptions } from './topology-options';
import { renderMatrixDryRun } from '../matrix/dry-run';
import { planMatrix } from '../matrix/plan';
import { installInterrupt } from '../run/interrupt';
import { redactText } from '../security/redact';
import { allExperiments, experimentNames, findExperiment } from '../experiments/registry';
import { MatrixEvent, runMatrix } from '../matrix/runner';
import { MatrixDocument } from '../matrix/matrix-document';
import { formatMeasure, matrixTable, unitShown } from '../matrix/table';
import { markdownTable } from '../report/summary-md';
import { serverWarning, targetServerLabel } from '../report/describe';

const PRESET_HELP = allExperiments().map((e) => `  ${e.name.padEnd(22)} ${e.description}\n  ${''.padEnd(22)} ${e.sizing.scaleNote}; default scale ${e.sizing.defaultScale}`).join('\n');

export function registerMatrix(program: Command, ctx: CliContext): void {
  const command = program.command('matrix');
  command
    .description("run a list of labelled configurations (the articles' experiments) and compare them")
    .option('--preset <name>', `one of the seeds' experiments: ${experimentNames().join(', ')}`)
    .option('--matrix <file>', 'a custom list of configurations (JSON or YAML; see docs/matrix.md)')
    .option('--dry-run', 'print the configurations, the target and what would be launched; start and connect nothing')
    .optionsGroup('Target (default: an embedded standalone, as mongo-bench run):')
    .option('--uri <uri>', 'an existing deployment (mongodb://host:port/...); without it an embedded or launched server is used');
  // run's flags, same names and meaning.
  addTopologyOptions(command);
  command
    .optionsGroup('Experiment:')
    .option('--scale <f>', "size relative to the seed's (1 = the seed's full size; default per preset, see below)", numberArg('--scale'))
    .option('--out <dir>', 'output folder (default: reports/<timestamp>-matrix-<preset>/)')
    .option('--db <name>', `database the experiments write to (default: ${MATRIX_DEFAULTS.db})`)
    .option('--docs <n>', 'most/softlayer/presplit-import: documents (per way for presplit-import; instead of the scaled count)', intArg('--docs'))
    .option('--doc-size <bytes>', 'most/softlayer/presplit-import: approximate BSON size of each document', intArg('--doc-size'))
    .option('--batch-size <n>', 'most/softlayer/presplit-import: documents per insertMany', intArg('--batch-size'))
    .option('--writers <n>', 'most/presplit-import: writer connections (default 6, as the seed)', intArg('--writers'))
    .option('--readers <n>', 'most: reader connections (default 6)', intArg('--readers'))
    .option('--read-start <when>', 'most: after-writes (default, the seed) or with-writes (readers race the writers)')
    .option('--inserts <n>', 'write-concern-latency: inserts per write concern and round (default 200)', intArg('--inserts'))
    .option('--rounds <n>', 'write-concern-latency: rounds, the last is kept (default 2)', intArg('--rounds'))
    .option('--max-clients <n>', 'softlayer: sweep clients 1, 2, 4, ... n (default 32; the seed went to 128 on larger servers)', intArg('--max-clients'))
    .option('--seconds <s>', 'softlayer: measured seconds per client count (default 10)', intArg('--seconds'))
    .option('--warmup <s>', 'softlayer: warm-up seconds per client count (default 2)', intArg('--warmup'))
    .option('--dataset-ratio <r>', "softlayer: data = r x the server's RAM; a list (0.5,2) runs one configuration per ratio", numberListArg('--dataset-ratio'))
    .option('--drop', "on --uri: replace the experiments' collections in --db even when they hold documents mongo-bench did not load (without it such a collection is refused, exit 2)")
    .option('--setup', 'presplit-import: allow changes to the cluster at --uri (drop the collection, shard it, split and move chunks, chunk size, balancer); implied for a cluster the matrix launches')
    .option('--shard-key <field>', 'presplit-import: the ranged shard key of ways (a) and (b) (default g = count & 63, as the seed)')
    .option('--presplit <min:max>', 'presplit-import: the key range the documents cycle through, pre-split into one chunk per shard by way (b) (default 0:64)')
    .option('--chunk-size <MB>', 'presplit-import: way (b)\'s chunk size (default 1024, as the seed)', intArg('--chunk-size'))
    .option('--hashed-key <field>', 'presplit-import: way (c)\'s hashed key: _id (default) or the ranged key')
    .option('--sample-interval <ms>', 'presplit-import: read every shard\'s insert counter this often (default 1000)', intArg('--sample-interval'))
    .option('--max-seconds <s>', 'presplit-import: stop each way\'s import after this long (default 600)', numberArg('--max-seconds'))
    .option('--seed <n>', 'random seed of the document contents', intArg('--seed'))
    .option('--trials <n>', 'run every configuration n times, in interleaved rounds (A B C, then B C A, ...), so a drift over the run falls on all alike; the table shows each one\'s median (default 1)', intArg('--trials'))
    .option('--server-selection-timeout <ms>', `give up on an unreachable server after this long (default: ${MATRIX_DEFAULTS.serverSelectionTimeout})`, intArg('--server-selection-timeout'))
    .addOption(new Option('--test-double', 'mark the server as a test double (auto-detected for mongo-java-server)'))
    .addHelpText('after', MATRIX_HELP)
    .action(async (flags: MatrixCliFlags) => {
      const options = resolveMatrixOptions(flags, new Date(), { commandLine: redactText(['mongo-bench', ...rawArgs(command)].join(' ')) });
      if (options.dryRun) {
        ctx.out(renderMatrixDryRun(options, planMatrix(options)));
        return;
      }
      const printer = new MatrixPrinter(ctx);
      const interrupt = installInterrupt({
        onSignal: (name, first) =>
          ctx.err(
            first
              ? `\n${name}: stopping the current configuration, writing what finished, stopping every process the matrix started (${name === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'} again quits at once)\n`
              : `\n${name} again: quitting now; the processes the matrix started are killed\n`,
          ),
      });
      try {
        const doc = await runMatrix(options, { signal: interrupt.signal, onEvent: (e) => printer.handle(e) });
        ctx.out(`\n${markdownTable({ title: doc.name, ...matrixTable(doc) })}\n`);
        if (!doc.complete) {
          ctx.err(`mongo-bench matrix: ${doc.incompleteReason ?? 'incomplete'}; what finished was written\n`);
          ctx.exitCode = interrupt.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
        } else if (doc.rows.some((r) => r.status === 'failed')) {
          ctx.err(`mongo-bench matrix: ${doc.rows.filter((r) => r.status === 'failed').length} configuration(s) failed (see the Status column)\n`);
          ctx.exitCode = EXIT.failed;
        }
      } finally {
        interrupt.dispose();
      }
    });
}

const MATRIX_HELP = `
Where the server comes from (as mongo-bench run):
  (default)                  an embedded MongoDB (mongodb-memory-server): a standalone, or
                             --topology replset --replicas 3 (the REPLICA_SAFE w:2/w:3 and secondary-read rows);
                             its mongod from --mongod-bin, MONGOMS_SYSTEM_BINARY, its cache or its download.
                             Offline with none, the matrix fails at once and says how to go on.
  --topology sharded         a local cluster launched from the setup plan (mongod and mongos from --bin-dir or
                             --mongod-bin), e.g. --shards 3 --replicas 1 for presplit-import (--setup implied)
  --uri URI                  an existing deployment
The server is started once for the whole matrix and stopped at the end (also on failure, Ctrl-C, SIGTERM);
command-log.txt and setup.js in the output folder say what was started and applied.

Presets:
${PRESET_HELP}

Writes matrix.json (after every configuration), summary.md, results.csv, a bar chart per measure,
and each configuration's results.json in its own folder. Ctrl-C keeps what finished (exit 130; SIGTERM 143).`;

/** " (trial 2/3)" under --trials N; nothing otherwise. */
function trialTag(event: { trial?: number; trials?: number }): string {
  return event.trial !== undefined ? ` (trial ${event.trial}/${event.trials})` : '';
}

/** Progress lines: one when a configuration starts, its figures (or skip reason) when it ends. */
class MatrixPrinter {
  private experiment: MatrixDocument['experiment'] = '';

  constructor(private readonly ctx: CliContext) {}

  handle(event: MatrixEvent): void {
    const err = (text: string) => this.ctx.err(`${text}\n`);
    switch (event.type) {
      case 'planned': {
        const params = Object.entries(event.parameters).filter(([k]) => k !== 'randomSeed').map(([k, v]) => `${k}=${v}`).join(', ');
        this.experiment = event.experiment;
        err(`matrix ${event.name} (${event.experiment}): ${event.configurations} configuration${event.configurations === 1 ? '' : 's'}; scale ${event.scale} (${event.scaleNote})`);
        err(`parameters: ${params}`);
        err(`output: ${event.outDir}`);
        break;
      }
      case 'connected': {
        const t = event.target;
        const topo = event.capabilities.topology;
        err(`connected to ${t.uri}: ${t.product ? targetServerLabel(t) : `server ${t.serverVersion ?? 'unknown'}`}, ${topo.kind}${topo.setName ? ` ${topo.setName} (${topo.dataMembers} data-bearing members)` : ''} (from ${topo.source})`);
        const warning = serverWarning(t);
        if (warning) err(`warning: ${warning}`);
        const { capped, unacknowledgedWrites } = event.capabilities;
        if (capped) err(`capped collections: ${capped.supported ? 'yes' : `no (${capped.reason})`}`);
        if (unacknowledgedWrites) err(`unacknowledged (w:0) writes applied: ${unacknowledgedWrites.supported ? 'yes' : `no (${unacknowledgedWrites.reason})`}`);
        break;
      }
      case 'note':
        err(event.text);
        break;
      case 'config-start':
        err(`[${event.index + 1}/${event.total}] ${event.label}${trialTag(event)} (${event.settings})`);
        break;
      case 'config-progress':
        err(`    ${event.text}`);
        break;
      case 'config-done': {
        const row = event.row;
        const head = `[${event.index + 1}/${event.total}] ${row.label}${trialTag(event)}:`;
        if (row.status === 'skipped') err(`${head} skipped: ${row.reason}`);
        else {
          const figures = (findExperiment(this.experiment)?.measures ?? [])
            .filter((m) => row.measures[m.key] !== undefined && row.measures[m.key] !== null)
            .map((m) => `${m.title.toLowerCase()} ${formatMeasure(row.measures[m.key], m)}${unitShown(m) ? ` ${unitShown(m)}` : ''}`)
            .join(', ');
          const status = row.status === 'ok' ? (row.reason ? `(${row.reason}) ` : '') : `${row.status.toUpperCase()}${row.reason ? ` (${row.reason})` : ''}; `;
          err(`${head} ${status}${figures}${row.seconds !== undefined ? ` [${row.seconds} s]` : ''}`);
        }
        break;
      }
      case 'written':
        err(`written: ${event.files.join(', ')}`);
        break;
    }
  }
}

