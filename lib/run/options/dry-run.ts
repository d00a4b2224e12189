/** `run --dry-run`: what the run would do, as text; nothing is started, nothing connects. */
import { renderPlanTable } from '../../topology';
import { redactUri } from '../../security/redact';
import { describeWarmup, formatDuration, sweepSeconds, warmupUpTo } from './sweep-time';
import { dropUndefined } from '../../common/values';
import { describeScenarios } from '../scenarios/scenario-spec';
import { RunPlan, ServeOptions } from './run-plan';
import { offLoopbackWarning } from '../../security/local-http';
import { autoWarmupCap, type RunOptions } from './run-options';
import { SetupStep } from '../../workload/language/setup-spec';
import { DEFAULT_CONTROL_DB } from '../../agents/control';
import { AGENT_DEFAULTS } from '../../agents/options';
import { OWNER_COLLECTION } from '../../server/data-guard';
import { describeEntry, namespaceOf, writtenNamespaces } from '../../server/write-plan';
import { loadReplaces } from './run-write-plan';

/** What the run may drop or write on an existing deployment (the write plan's rule), in words: the console and --dry-run say it. */
export function describeDataRule(plan: RunPlan): string {
  const b = plan.benchmark;
  const replaced = loadReplaces(plan.writePlan).map(namespaceOf);
  const dropped =
    plan.drop && replaced.length > 0 ? `drop ${replaced.join(', ')} first (--drop); ` : '';
  const written = writtenNamespaces(plan.writePlan).get('workload') ?? [];
  const writes =
    written.length > 0
      ? `the workload's own writes change the documents in ${written.join(', ')}`
      : 'the workload writes nothing';
  if (b.setup)
    return `${dropped}the workload's own set-up steps run as written (on what mongo-bench does not own only with --allow-setup-writes); ${writes}`;
  if (!b.load)
    return `${dropped}nothing is loaded or dropped (--no-load); ${writes} (--no-load is that consent)`;
  if (plan.target.kind !== 'uri')
    return `${b.ns} is dropped and reloaded (a server mongo-bench started: everything on it is its own); ${writes}`;
  if (plan.drop) return `${dropped}the loader then fills ${b.ns}; ${writes}`;
  return `${b.ns} is dropped and reloaded only if it is absent or mongo-bench's own (marked in ${OWNER_COLLECTION} when loaded, and unchanged since); one holding anything else, or empty but not mongo-bench's, is refused (exit 2) unless --drop is given; ${writes}`;
}

/** Every write of the plan, one line each, and how they are checked. */
function describeWrites(plan: RunPlan): string[] {
  const w = plan.writePlan;
  const how = w.ours
    ? 'a deployment mongo-bench starts: everything on it is its own'
    : `each checked against what the server holds before the first write; consents given: ${w.consents.size > 0 ? [...w.consents].join(', ') : 'none'}`;
  return [
    '',
    `Writes (${how}):`,
    ...(w.entries.length > 0 ? w.entries.map((e) => `  ${describeEntry(e)}`) : ['  none']),
  ];
}

export function renderDryRun(plan: RunPlan): string {
  const b = plan.benchmark;
  const out: string[] = [];
  out.push(
    `mongo-bench run --dry-run (options from ${plan.sources.length ? plan.sources.join(' < ') : 'defaults'})`,
    '',
  );
  const t = plan.target;
  out.push('Target:');
  switch (t.kind) {
    case 'uri':
      out.push(`  the existing deployment at ${redactUri(t.uri)} (nothing is started or stopped)`);
      out.push(
        `  changes: ${describeDataRule(plan)}${t.setup ? '; the data-distribution steps below (--setup)' : ''}${eventChanges(plan) ? "; the cluster changes of the scenarios' events, listed under Writes" : ''}; nothing else`,
      );
      break;
    case 'embedded':
      out.push(
        `  embedded MongoDB (mongodb-memory-server): ${t.topology === 'standalone' ? 'a standalone' : `a ${t.replicas}-member replica set`} on 127.0.0.1, stopped and removed at the end`,
        `  mongod: ${t.binaries.mongod ? `${t.binaries.mongod} (${t.binaries.origin})` : "mongodb-memory-server's (MONGOMS_* settings, its cache, or a download; offline without one the run fails at once)"}`,
      );
      break;
    case 'launched':
      out.push(
        `  a local ${t.plan.topology.name} cluster launched from the plan below with ${t.binaries.origin}`,
        `  data: ${t.dataDir} (${t.removeDataDir ? 'removed at the end; --keep-data keeps it' : 'kept'}); processes must answer hello within ${t.readyTimeoutMs / 1000} s; every process is stopped at the end, also on failure or Ctrl-C`,
      );
      break;
  }
  if (t.kind === 'launched') {
    out.push('', renderPlanTable(t.plan).trimEnd());
  } else if (t.kind === 'uri' && t.setup) {
    out.push('', 'Setup (--setup), on the existing mongos, for the shards listShards reports:');
    const s = t.setup.topology.sharding!;
    out.push(
      `  enableSharding ${s.db}; shardCollection ${s.ns} key ${JSON.stringify(s.key)}` +
        `${s.chunkSizeMb !== undefined ? `; chunk size ${s.chunkSizeMb} MB` : ''}` +
        `${s.presplit ? `; split [${s.presplit.min}, ${s.presplit.max}) into one chunk per shard and move each to its shard` : ''}` +
        `${s.stopBalancer ? '; stop the balancer' : ''}`,
    );
    if (s.stopBalancer || s.presplit || s.chunkSizeMb !== undefined)
      out.push(
        `  at the end (also after Ctrl-C or SIGTERM): ${[
          ...(s.stopBalancer || s.presplit ? ['the balancer started again if it was running'] : []),
          ...(s.chunkSizeMb !== undefined ? ['the chunk size set back as found'] : []),
        ].join(', ')}; the sharding, splits and moves are kept`,
      );
  }
  for (const note of plan.notes) out.push(`note: ${note}`);
  for (const warning of plan.warnings) out.push(`warning: ${warning}`);
  if (plan.agents.agents !== undefined) {
    const a = plan.agents;
    out.push(
      '',
      'Agents:',
      `  every step's clients run on ${a.agents} agent${a.agents === 1 ? '' : 's'} (mongo-bench agent on each load machine), coordinated through ${a.controlUri ? redactUri(a.controlUri) : 'the target'}, database ${a.controlDb ?? DEFAULT_CONTROL_DB}`,
      `  waits up to ${a.agentWait ?? AGENT_DEFAULTS.waitSeconds} s for them to join; an agent silent ${a.agentTimeout ?? AGENT_DEFAULTS.lostAfterSeconds} s mid-step is lost and fails the step`,
    );
  }
  out.push('', 'Benchmark:');
  out.push(
    `  workload ${b.workload.name}${b.workload.file ? ` (${b.workload.file})` : ''}: ${b.workload.ops.length} op${b.workload.ops.length === 1 ? '' : 's'} per pass, namespace ${b.ns}`,
  );
  const when =
    b.reset === 'each-step' ? 'before every step (--reset each-step)' : 'once, before the sweep';
  if (b.setup) {
    out.push(`  set-up (the workload file's \`setup\`, instead of the loader), ${when}:`);
    for (const step of b.setup.steps) out.push(`    ${describeSetupStep(step)}`);
    if (b.setup.byClients)
      out.push(`    (other steps for ${Object.keys(b.setup.byClients).join(', ')} clients)`);
  } else {
    const shape = b.docsLike
      ? `documents like ${b.docsLike.kind === 'file' ? b.docsLike.source : b.docsLike.kind === 'uri' ? redactUri(b.docsLike.value) : `${b.docsLike.db}.${b.docsLike.coll} on the target`} (--docs-like)`
      : `documents of ~${b.docSize} bytes`;
    out.push(
      `  load, ${when}: ${b.load ? `${b.docs} ${shape} in batches of ${b.batchSize}` : `none (--no-load: the existing ${b.docs} documents)`}${b.writeConcern ? `, write concern ${JSON.stringify(b.writeConcern)}` : ''}`,
    );
  }
  if (b.scenarios) {
    out.push(
      ...describeScenarios(b.scenarios).map((line) => `  ${line}`),
      `  not counted: ${uncountedWork(plan).join(', ')}`,
    );
  } else {
    const sweepShape = {
      clients: b.clients,
      trials: b.trials,
      seconds: b.seconds,
      warmupSeconds: b.warmupSeconds,
      ...dropUndefined({ warmupMax: autoWarmupCap(b) }),
    };
    out.push(
      `  sweep: clients ${b.clients.join(', ')}; ${b.ops !== undefined ? `${b.ops} ops` : `${b.seconds} s`} measured after ${describeWarmup(sweepShape)}${b.warmup === 'auto' ? ' (until steady)' : ''}, ${b.trials} trial${b.trials === 1 ? '' : 's'} each${b.rate ? `; target rate ${b.rate} ops/s` : ''}`,
    );
    const seconds = sweepSeconds(sweepShape);
    if (b.arrival) out.push(`  ${describeArrival(b)}`);
    if (b.rate !== undefined || b.arrival) out.push(`  ${describeArrivals(b)}`);
    if (b.ops !== undefined)
      out.push(
        `  expected duration: as long as the ops take (a step ends when its ${b.ops} ops are done), plus ${describeWarmup(sweepShape)} per step and trial; not counted: ${uncountedWork(plan).join(', ')}`,
      );
    else
      out.push(
        `  expected duration: ${sweepShape.warmupMax !== undefined ? 'at most ' : ''}${formatDuration(seconds)} of sweep (${b.clients.length} client count${b.clients.length === 1 ? '' : 's'} x ${b.trials} x ${warmupUpTo(sweepShape) + b.seconds} s), warm-up included; not counted: ${uncountedWork(plan).join(', ')}`,
      );
  }
  if (b.slo)
    out.push(
      `  objectives, checked on every step (exit 99 when one fails${b.sloAbort ? '; --slo-abort stops the sweep there' : ''}): ${b.slo.map((o) => o.expression).join(', ')}`,
    );
  out.push(...describeWrites(plan));
  out.push(
    '',
    `Output: ${b.outDir}/ (results.json, charts, summary.md, results.csv, index.html, setup.js, command-log.txt)`,
  );
  if (plan.junit) out.push(`JUnit: ${plan.junit} (written after the run, for CI)`);
  if (plan.serve) out.push(`Served page: ${describeServe(plan.serve)}`);
  if (b.metrics) {
    const { host, port } = b.metrics;
    const off = offLoopbackWarning('the metrics endpoint', host, port);
    out.push(
      `Metrics: http://${host.includes(':') ? `[${host}]` : host}:${port === 0 ? 'PORT' : port}/metrics while the run goes (Prometheus text; --metrics-port${port === 0 ? ' 0: a free port, printed when it starts' : ''})${off ? `; warning: ${off}` : ''}`,
    );
  }
  if (plan.store)
    out.push(
      `Results store: ${redactUri(plan.store)} (the result is kept there too, for mongo-bench history)`,
    );
  out.push('Nothing was started or connected (--dry-run).');
  return `${out.join('\n')}\n`;
}

/** --serve in words: the address (a free port when 0), how long it stays, and a warning off loopback. */
function describeServe(serve: ServeOptions): string {
  const host = serve.host.includes(':') ? `[${serve.host}]` : serve.host;
  const where =
    serve.port === 0
      ? `http://${host}:<a free port, printed at the start>/`
      : `http://${host}:${serve.port}/`;
  const linger =
    serve.lingerSeconds > 0
      ? `, and ${serve.lingerSeconds} s after it (--serve-linger)`
      : ', closed when it ends';
  const exposed = offLoopbackWarning('the served page', serve.host, serve.port);
  return `${where} while the run goes${linger}${exposed ? ` (warning: ${exposed})` : ''}`;
}

/** Whether a scenario's events change the cluster or a server (the balancer, a step-down). */
function eventChanges(plan: RunPlan): boolean {
  return plan.writePlan.entries.some((e) => e.kind === 'server' && e.consent === 'event');
}

/** What a run does besides the sweep, whose time depends on the server and cannot be told in advance. */
function uncountedWork(plan: RunPlan): string[] {
  const b = plan.benchmark;
  const each = b.reset === 'each-step' ? ' (before every step)' : '';
  return [
    ...(plan.target.kind === 'uri' ? [] : ['starting the servers']),
    'connecting',
    ...(plan.target.kind === 'uri' && plan.target.setup
      ? ['the sharding set-up']
      : plan.target.kind === 'launched'
        ? ['the setup plan']
        : []),
    ...(b.setup
      ? [`the workload's set-up${each}`]
      : b.load
        ? [`loading ${b.docs} documents${each}`]
        : []),
    'writing the report',
  ];
}

function describeSetupStep(step: SetupStep): string {
  if (step.kind === 'command') return `command on ${step.db}: ${JSON.stringify(step.command)}`;
  if (step.kind === 'documents')
    return `insert ${step.documents.length} document${step.documents.length === 1 ? '' : 's'} into ${step.ns.db}.${step.ns.coll}`;
  return `insert ${step.count} generated document${step.count === 1 ? '' : 's'} into ${step.ns.db}.${step.ns.coll} (batches of ${step.batchSize})`;
}

/** --rate's stages or share, as the dry run tells them (a constant rate is on the sweep line). */
/** How free clients wait for due times: what --arrivals costs, said where it is chosen. */
function describeArrivals(b: Omit<RunOptions, 'uri'>): string {
  return b.arrivals === 'timer'
    ? 'arrivals: timer (a free client waits on millisecond timers: its op starts up to 1-2 ms after due, inside its latency)'
    : 'arrivals: exact (a free client waits on a timer, then its event loop polls for the last 1.5 ms: ops start within µs of due; a core stays busy meanwhile)';
}

function describeArrival(b: Omit<RunOptions, 'uri'>): string {
  const a = b.arrival!;
  if (a.kind === 'stages' && a.stages.length > 6) {
    // a replayed capture (--replay-rate) has a stage per change of rate: say its shape, not every stage
    const rates = a.stages.map((s) => s.rate);
    const seconds = a.stages.reduce((sum, s) => sum + s.seconds, 0);
    return `target rate in ${a.stages.length} stages over ${seconds} s (from each step's start, warm-up included): from ${a.startRate} ops/s, between ${Math.min(...rates)} and ${Math.max(...rates)} ops/s, ending at ${rates[rates.length - 1]} ops/s`;
  }
  if (a.kind === 'stages') {
    return `target rate in stages (from each step's start, warm-up included): from ${a.startRate} ops/s, ${a.stages.map((s) => `to ${s.rate} ops/s over ${s.seconds} s`).join(', ')}; then ${a.stages[a.stages.length - 1].rate} ops/s`;
  }
  const probe = b.rateProbe!;
  const clients = probe.clients ?? b.clients;
  return `target rate ${Math.round(a.share * 1000) / 10}% of the maximum, measured first by a closed probe: clients ${clients.join(', ')}, ${probe.warmupSeconds} s warm-up + ${probe.seconds} s each (~${formatDuration(clients.length * (probe.warmupSeconds + probe.seconds))}, not in the sweep's time)`;
}
