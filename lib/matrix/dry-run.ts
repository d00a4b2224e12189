/** `matrix --dry-run`: the configurations, the target and what would be launched, as text; nothing starts or connects. */
import { renderPlanTable } from '../topology';
import { TargetPlan } from '../deployment/plan';
import { skipReason } from './feasibility';
import { describeTarget } from './matrix-target';
import { experimentOf, MatrixPlan, MatrixRunOptions } from './plan';
import { TargetCapabilities } from './target-probe';
import { matrixWritePlan } from './matrix-write-plan';
import { describeEntry } from '../server/write-plan';

/**
 * What the target will be, as far as it is known before connecting: a server we start has the
 * topology we asked for; an existing one is only known once asked (hello).
 */
export function expectedCapabilities(target: TargetPlan): TargetCapabilities | undefined {
  switch (target.kind) {
    case 'uri':
      return undefined;
    case 'embedded':
      return {
        topology:
          target.topology === 'standalone'
            ? { kind: 'standalone', dataMembers: 1, source: 'hello' }
            : { kind: 'replicaSet', setName: 'rs0', dataMembers: target.replicas, source: 'hello' },
      };
    case 'launched': {
      const t = target.plan.topology;
      if (t.kind === 'sharded') return { topology: { kind: 'sharded', source: 'hello' } };
      if (t.kind === 'replset')
        return {
          topology: {
            kind: 'replicaSet',
            setName: 'rs0',
            dataMembers: t.options.replicas,
            source: 'hello',
          },
        };
      return { topology: { kind: 'standalone', dataMembers: 1, source: 'hello' } };
    }
  }
}

export function renderMatrixDryRun(options: MatrixRunOptions, plan: MatrixPlan): string {
  const { definition } = options;
  const experiment = experimentOf(definition);
  const target = options.target ?? { kind: 'uri' as const, uri: options.uri };
  const out: string[] = [];
  out.push(
    `mongo-bench matrix --dry-run: ${definition.name} (${definition.experiment}, from ${definition.source})`,
    '',
  );
  out.push('Target:', `  ${describeTarget(target)}`);
  if (target.kind === 'embedded') {
    out.push(
      `  mongod: ${target.binaries.mongod ? `${target.binaries.mongod} (${target.binaries.origin})` : "mongodb-memory-server's (MONGOMS_* settings, its cache, or a download; offline without one the matrix fails at once)"}`,
    );
  }
  if (target.kind === 'launched') {
    out.push(
      `  data: ${target.dataDir} (${target.removeDataDir ? 'removed at the end; --keep-data keeps it' : 'kept'}); processes must answer hello within ${target.readyTimeoutMs / 1000} s`,
    );
    out.push(
      '  started once for the whole matrix; every process is stopped at the end, also on failure, Ctrl-C or SIGTERM',
      '',
    );
    out.push(renderPlanTable(target.plan).trimEnd());
  }
  const setup = experiment.needs?.setup;
  if (setup && target.kind !== 'uri')
    out.push(`  --setup is implied: the matrix started this cluster, so ${setup.mayChange}`);
  if (target.kind === 'uri') {
    const writes = matrixWritePlan(options, experiment, 'uri', plan.configurations);
    out.push(
      `  Writes (checked against what the server holds before the first write; ${options.drop ? 'consent given: --drop, which replaces them whatever they hold' : "each must be absent or mongo-bench's, else exit 2 unless --drop"}):`,
      ...writes.entries.map((e) => `    ${describeEntry(e)}`),
    );
  }
  for (const w of options.targetWarnings ?? []) out.push(`warning: ${w}`);

  const caps = expectedCapabilities(target);
  out.push('', `Scale ${options.scale} (${plan.scaleNote})`);
  out.push(
    `Parameters: ${Object.entries(plan.parameters)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ')}`,
  );
  out.push(`Database: ${options.db}`, '');
  if (options.trials)
    out.push(
      `Trials: ${options.trials} runs of every configuration, in interleaved rounds (round r starts at configuration r); the table shows medians`,
      '',
    );
  out.push(`Configurations (${plan.configurations.length}):`);
  plan.configurations.forEach((p, i) => {
    const skip = caps ? skipReason(p.config, caps, experiment) : undefined;
    out.push(
      `  ${String(i + 1).padStart(2)}. ${p.config.label}: ${p.settings}${skip ? `\n      would be skipped: ${skip}` : ''}`,
    );
  });
  if (!caps)
    out.push(
      '  (which rows the target can run is decided on connecting: hello, and the capped / w:0 probes)',
    );
  else if (plan.configurations.some((p) => p.config.capped || p.config.writeConcern?.w === 0))
    out.push(
      "  (capped and w:0 rows also depend on the server's answers to two probes, asked on connecting)",
    );
  out.push(
    '',
    `Output: ${options.outDir}/ (matrix.json, summary.md, results.csv, bar charts, a folder per configuration, command-log.txt, setup.js)`,
  );
  out.push('Nothing was started or connected (--dry-run).');
  return `${out.join('\n')}\n`;
}
