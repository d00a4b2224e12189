/**
 * Getting the server the benchmark runs against as a Target (lib/server), and giving it back: an
 * existing deployment (--uri, nothing to stop), the embedded default (mongodb-memory-server), or
 * processes launched from the setup plan (then the plan's steps are applied through the driver,
 * mongos started once the config servers are initiated). Whatever was started is stopped by the
 * Target's `release()`, and before the error when acquiring fails.
 */
import { dirProblem } from '../common/dir-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import {
  applyPlan,
  cacheSizeGbPerMongod,
  CommandLogEntry,
  describeCacheSize,
  driverConnector,
  ServerVersion,
  withCacheSize,
} from '../topology';
import {
  launchProcesses,
  LaunchedGroup,
  PortsInUseError,
  requireMongod,
  requireMongos,
  startEmbedded,
} from '../launcher';
import { serverBinaryVersion } from '../launcher/embedded';
import { RunError, UsageError } from '../config/errors';
import { MongoClientOptions } from 'mongodb';
import { holdPhase } from '../common/phase-hold';
import { openTarget, Target, TargetSource } from '../server/target';
import { TargetPlan } from './plan';
import { memberControl, memberLayout } from './members';

/** What acquiring tells as it goes, in order: plain data; the caller logs it (command-log.txt) and shows it. */
export type AcquireEvent =
  /** A process command line, just before it is spawned. */
  | { type: 'command-line'; line: string }
  /** An admin command sent (a setup step's, or one outside the plan). */
  | { type: 'command'; entry: CommandLogEntry }
  /** A fact for the log ("embedded MongoDB 7.0.14 at ..."). */
  | { type: 'note'; text: string }
  | { type: 'phase'; phase: 'launch' | 'setup'; detail: string }
  /** A setup step's progress (applyPlan's). */
  | { type: 'setup-step'; step: number; steps: number; description: string; status: string }
  /** A secret made on the way (a keyfile's content): to be removed from every output. */
  | { type: 'secret'; value: string };

export interface AcquireHooks {
  signal: AbortSignal;
  /** Everything acquiring tells (every process command line and admin command, in order, among them). */
  emit(event: AcquireEvent): void;
  /** --auth: the first admin user, created through the localhost exception; the run then logs in as it. */
  credentials?: { username: string; password: string };
  /**
   * Launched clusters: runs once the cluster is formed, before its data-distribution steps
   * (enableSharding, shardCollection, splits), with the cluster's URI: --drop goes here, because a
   * database dropped after them loses its sharding (dropDatabase removes it, as the stand-ins model).
   */
  beforeDataDistribution?(uri: string): Promise<void>;
}

/**
 * Starts or finds the target; every connection to it uses `clientOptions` (credentials, TLS). On
 * failure everything it started is stopped before the error reaches the caller; on success the
 * caller must call the Target's release() (in a finally).
 */
export async function acquireTarget(
  target: TargetPlan,
  hooks: AcquireHooks,
  clientOptions: MongoClientOptions = {},
): Promise<Target> {
  switch (target.kind) {
    case 'uri':
      return openTarget({ uri: target.uri, origin: 'uri' }, clientOptions);
    case 'embedded':
      return openTarget(await acquireEmbedded(target, hooks), clientOptions);
    case 'launched':
      return openTarget(await acquireLaunched(target, hooks), clientOptions);
  }
}

async function acquireEmbedded(
  target: Extract<TargetPlan, { kind: 'embedded' }>,
  hooks: AcquireHooks,
): Promise<TargetSource> {
  const what =
    target.topology === 'standalone' ? 'a standalone' : `a ${target.replicas}-member replica set`;
  hooks.emit({
    type: 'phase',
    phase: 'launch',
    detail: `starting ${what} with mongodb-memory-server`,
  });
  note(
    hooks,
    `embedded MongoDB (mongodb-memory-server): ${what}, binary ${target.binaries.mongod ?? 'from mongodb-memory-server (MONGOMS_* settings, its cache, or its download)'}`,
  );
  const auth = target.auth ? requireCredentials(hooks) : undefined;
  const server = await startEmbedded({
    topology: target.topology,
    replicas: target.replicas,
    binary: target.binaries.mongod,
    signal: hooks.signal,
    ...(auth ? { auth } : {}),
  });
  if (auth)
    note(hooks, `access control: mongodb-memory-server created the root user ${auth.username}`);
  note(hooks, `embedded MongoDB ${server.version} (${server.binary}) listening at ${server.uri}`);
  note(
    hooks,
    `embedded storage engine: ${server.storageEngine} (asked for explicitly)` +
      (server.cacheSizeGb !== undefined
        ? `; each of the ${target.replicas} members gets --wiredTigerCacheSizeGB ${server.cacheSizeGb}, its share of this host's memory`
        : ''),
  );
  if (target.topology === 'replset')
    note(
      hooks,
      'mongodb-memory-server initiated the replica set itself (its own replSetInitiate); mongo-bench sent no setup command',
    );
  return {
    uri: server.uri,
    origin: 'embedded',
    stop: async () => {
      await server.stop();
      note(hooks, 'embedded MongoDB stopped, its data removed');
    },
  };
}

async function acquireLaunched(
  target: Extract<TargetPlan, { kind: 'launched' }>,
  hooks: AcquireHooks,
): Promise<TargetSource> {
  const { plan } = target;
  const credentials = plan.topology.auth ? requireCredentials(hooks) : undefined;
  checkBinaryVersion(requireMongod(target.binaries), 'mongod', plan.topology.serverVersion, hooks);
  // mongos has start-up options of its own that differ by version (mongosShutdownTimeoutMillisForSignaledShutdown
  // from 4.5.0), so its binary is checked too, not only mongod's.
  if (plan.processes.some((p) => p.kind === 'mongos'))
    checkBinaryVersion(
      requireMongos(target.binaries),
      'mongos',
      plan.topology.serverVersion,
      hooks,
    );
  // Checked level by level first (lib/common/dir-check): a recursive mkdir under /proc never returns.
  const problem = dirProblem(target.dataDir);
  if (problem) throw new UsageError(`option --data-dir: cannot use ${target.dataDir}: ${problem}`);
  fs.mkdirSync(target.dataDir, { recursive: true });
  const removeData = () => {
    if (target.removeDataDir) fs.rmSync(target.dataDir, { recursive: true, force: true });
  };
  // Every mongod runs on this machine: each gets its share of the memory for its WiredTiger cache.
  const mongodCount = plan.processes.filter((p) => p.kind === 'mongod').length;
  const chosenCache = plan.topology.options.cacheSizeGb;
  const cacheGb = chosenCache ?? cacheSizeGbPerMongod(os.totalmem(), mongodCount);
  note(hooks, describeCacheSize(mongodCount, chosenCache, cacheGb));
  const processes = withCacheSize(plan.processes, cacheGb);
  const mongods = processes.filter((p) => p.kind === 'mongod');
  const mongoses = processes.filter((p) => p.kind === 'mongos');
  hooks.emit({
    type: 'phase',
    phase: 'launch',
    detail: `starting ${mongods.length} mongod${mongods.length === 1 ? '' : 's'}${mongoses.length ? ` (then ${mongoses.length} mongos)` : ''}`,
  });
  let group: LaunchedGroup;
  try {
    group = await launchProcesses(mongods, {
      binaries: target.binaries,
      readyTimeoutMs: target.readyTimeoutMs,
      onCommandLine: (line) => hooks.emit({ type: 'command-line', line }),
      signal: hooks.signal,
    });
  } catch (err) {
    removeData();
    // A port in use is the caller's choice of ports: bad input (exit 2), naming the option to change.
    if (err instanceof PortsInUseError) throw new UsageError(`option --base-port: ${err.message}`);
    throw err;
  }
  // The keyfile the members authenticate each other with is a secret like the password.
  for (const file of group.keyFiles) {
    const content = fs.readFileSync(file, 'utf8').trim();
    if (content) hooks.emit({ type: 'secret', value: content });
  }
  const release = async (): Promise<void> => {
    const started = Date.now();
    const stopped = await group.stop();
    for (const s of stopped) {
      const how = `${s.signal ? `signal ${s.signal}` : `exit code ${s.code}`}${s.killed ? ' after SIGKILL' : ''}`;
      note(
        hooks,
        `stopped ${s.name} (pid ${s.pid}): ${how}, in ${seconds(s.durationMs)}${s.wasPrimary ? ' (the PRIMARY, after the other members)' : ''}`,
      );
    }
    if (stopped.length > 0)
      note(
        hooks,
        `stopped ${stopped.length} process(es) in ${seconds(Date.now() - started)} (routers, then shards, then config servers; secondaries before primaries)`,
      );
    removeData();
  };
  // Stop the processes as soon as an interrupt comes, so a setup step waiting on them fails now.
  const onAbort = () => void group.stop();
  hooks.signal.addEventListener('abort', onAbort, { once: true });
  const driver = driverConnector(credentials ? { credentials } : {});
  let distributing = false;
  try {
    if (plan.steps.length > 0) {
      hooks.emit({
        type: 'phase',
        phase: 'setup',
        detail: `applying ${plan.steps.length} setup step${plan.steps.length === 1 ? '' : 's'}`,
      });
      await holdPhase('setup', hooks.signal);
      if (hooks.signal.aborted) throw abortError();
    }
    await applyPlan(
      plan,
      async (planTarget) => {
        // mongos reads the cluster's identity from the config servers: start it once they are initiated.
        if (planTarget.kind === 'mongos' && !group.processes.some((p) => p.kind === 'mongos')) {
          hooks.emit({
            type: 'phase',
            phase: 'launch',
            detail: `starting ${mongoses.length} mongos`,
          });
          await group.launch(mongoses);
          hooks.emit({ type: 'phase', phase: 'setup', detail: 'applying the cluster steps' });
        }
        return driver.connect(planTarget);
      },
      {
        onCommand: (entry) => hooks.emit({ type: 'command', entry }),
        onStep: (e) => hooks.emit({ type: 'setup-step', ...e }),
        ...(credentials ? { credentials } : {}),
        beforeStep: async (step) => {
          if (distributing || !hooks.beforeDataDistribution || !('enableSharding' in step.command))
            return;
          distributing = true;
          await hooks.beforeDataDistribution(plan.topology.uri);
        },
      },
    );
    // A plan with no mongos step (none here today) still needs its routers.
    if (mongoses.length > 0 && !group.processes.some((p) => p.kind === 'mongos'))
      await group.launch(mongoses);
    if (hooks.signal.aborted) throw abortError();
  } catch (err) {
    await driver.close().catch(() => undefined);
    hooks.signal.removeEventListener('abort', onAbort);
    await release();
    if (hooks.signal.aborted) throw abortError();
    throw err;
  }
  await driver.close().catch(() => undefined);
  hooks.signal.removeEventListener('abort', onAbort);
  return {
    uri: plan.topology.uri,
    origin: 'launched',
    stop: release,
    members: memberControl(group, memberLayout(plan.topology), target.readyTimeoutMs),
  };
}

/**
 * The plan's start-up options follow --server-version (the quiesce parameters exist from 5.0, and a
 * server refuses an unknown --setParameter at start-up), so the binary must be that version.
 */
function checkBinaryVersion(
  binary: string,
  kind: 'mongod' | 'mongos',
  planned: ServerVersion,
  hooks: AcquireHooks,
): void {
  let version: string;
  try {
    version = serverBinaryVersion(binary, kind);
  } catch {
    note(
      hooks,
      `could not read the version of ${binary} (--version); planned for MongoDB ${planned.text}`,
    );
    return;
  }
  const [major, minor] = version.split('.').map(Number);
  note(hooks, `${binary}: MongoDB ${version}; plan for MongoDB ${planned.text}`);
  if (major !== planned.major || minor !== planned.minor) {
    throw new UsageError(
      `option --server-version: the plan is for MongoDB ${planned.text}, but ${binary} is ${version}; its start-up options and setup ` +
        `commands differ by version: give --server-version ${version}`,
    );
  }
}

function note(hooks: AcquireHooks, text: string): void {
  hooks.emit({ type: 'note', text });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function requireCredentials(hooks: AcquireHooks): { username: string; password: string } {
  if (!hooks.credentials)
    throw new UsageError(
      "option --auth: needs the first admin user's name and password: --username (or env MONGO_BENCH_USER) and env MONGO_BENCH_PASSWORD (or, visible in ps, --password)",
    );
  return hooks.credentials;
}

export function abortError(): RunError {
  const err = new RunError('interrupted');
  err.name = 'AbortError';
  return err;
}
