import { Command } from 'commander';
import { CliContext, rawArgs } from './context';
import { EXIT } from '../config/errors';
import { MatrixCliFlags, resolveMatrixOptions } from '../matrix/options';
import { MATRIX_HEAD_KEYS, MATRIX_OPTIONS } from '../experiments/matrix-flags';
import { addOptions } from '../config/option-table';
import { addTopologyOptions } from './topology-options';
import { renderMatrixDryRun } from '../matrix/dry-run';
import { planMatrix } from '../matrix/plan';
import { installInterrupt } from '../run/interrupt';
import { redactText } from '../security/redact';
import { allExperiments, findExperiment } from '../experiments/registry';
import { MatrixEvent, runMatrix } from '../matrix/runner';
import { MatrixDocument } from '../matrix/matrix-document';
import { formatMeasure, matrixTable, unitShown } from '../matrix/table';
import { markdownTable } from '../report/summary-md';
import { serverWarning, targetServerLabel } from '../report/describe';

const PRESET_HELP = allExperiments()
  .map(
    (e) =>
      `  ${e.name.padEnd(22)} ${e.description}\n  ${''.padEnd(22)} ${e.sizing.scaleNote}; default scale ${e.sizing.defaultScale}`,
  )
  .join('\n');

/** The table's rows under "Experiment:": all but the head's and --uri. */
const EXPERIMENT_KEYS = (Object.keys(MATRIX_OPTIONS) as (keyof typeof MATRIX_OPTIONS)[]).filter(
  (key) => key !== 'uri' && !(MATRIX_HEAD_KEYS as readonly string[]).includes(key),
);

export function registerMatrix(program: Command, ctx: CliContext): void {
  const command = program.command('matrix');
  command.description(
    "run a list of labelled configurations (the articles' experiments) and compare them",
  );
  addOptions(command, MATRIX_OPTIONS, MATRIX_HEAD_KEYS);
  command.optionsGroup('Target (default: an embedded standalone, as mongo-bench run):');
  addOptions(command, MATRIX_OPTIONS, ['uri']);
  // run's flags, same names and meaning.
  addTopologyOptions(command);
  command.optionsGroup('Experiment:');
  addOptions(command, MATRIX_OPTIONS, EXPERIMENT_KEYS);
  command.addHelpText('after', MATRIX_HELP).action(async (flags: MatrixCliFlags) => {
    const options = resolveMatrixOptions(flags, new Date(), {
      commandLine: redactText(['mongo-bench', ...rawArgs(command)].join(' ')),
    });
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
      const doc = await runMatrix(options, {
        signal: interrupt.signal,
        onEvent: (e) => printer.handle(e),
      });
      ctx.out(`\n${markdownTable({ title: doc.name, ...matrixTable(doc) })}\n`);
      if (!doc.complete) {
        ctx.err(
          `mongo-bench matrix: ${doc.incompleteReason ?? 'incomplete'}; what finished was written\n`,
        );
        ctx.exitCode = interrupt.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
      } else if (doc.rows.some((r) => r.status === 'failed')) {
        ctx.err(
          `mongo-bench matrix: ${doc.rows.filter((r) => r.status === 'failed').length} configuration(s) failed (see the Status column)\n`,
        );
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
        const params = Object.entries(event.parameters)
          .filter(([k]) => k !== 'randomSeed')
          .map(([k, v]) => `${k}=${v}`)
          .join(', ');
        this.experiment = event.experiment;
        err(
          `matrix ${event.name} (${event.experiment}): ${event.configurations} configuration${event.configurations === 1 ? '' : 's'}; scale ${event.scale} (${event.scaleNote})`,
        );
        err(`parameters: ${params}`);
        err(`output: ${event.outDir}`);
        break;
      }
      case 'connected': {
        const t = event.target;
        const topo = event.capabilities.topology;
        err(
          `connected to ${t.uri}: ${t.product ? targetServerLabel(t) : `server ${t.serverVersion ?? 'unknown'}`}, ${topo.kind}${topo.setName ? ` ${topo.setName} (${topo.dataMembers} data-bearing members)` : ''} (from ${topo.source})`,
        );
        const warning = serverWarning(t);
        if (warning) err(`warning: ${warning}`);
        const { capped, unacknowledgedWrites } = event.capabilities;
        if (capped)
          err(`capped collections: ${capped.supported ? 'yes' : `no (${capped.reason})`}`);
        if (unacknowledgedWrites)
          err(
            `unacknowledged (w:0) writes applied: ${unacknowledgedWrites.supported ? 'yes' : `no (${unacknowledgedWrites.reason})`}`,
          );
        break;
      }
      case 'note':
        err(event.text);
        break;
      case 'config-start':
        err(
          `[${event.index + 1}/${event.total}] ${event.label}${trialTag(event)} (${event.settings})`,
        );
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
            .map(
              (m) =>
                `${m.title.toLowerCase()} ${formatMeasure(row.measures[m.key], m)}${unitShown(m) ? ` ${unitShown(m)}` : ''}`,
            )
            .join(', ');
          const status =
            row.status === 'ok'
              ? row.reason
                ? `(${row.reason}) `
                : ''
              : `${row.status.toUpperCase()}${row.reason ? ` (${row.reason})` : ''}; `;
          err(
            `${head} ${status}${figures}${row.seconds !== undefined ? ` [${row.seconds} s]` : ''}`,
          );
        }
        break;
      }
      case 'written':
        err(`written: ${event.files.join(', ')}`);
        break;
    }
  }
}
