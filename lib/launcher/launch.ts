/**
 * Starts mongod/mongos processes from plain specs, waits until each answers `hello`, and stops
 * them again (mongos first, then shards, then config servers). Any failure while launching stops
 * everything this group started before the error reaches the caller.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunError, UsageError } from '../config/errors';
import { requireMongod, requireMongos, type ResolvedBinaries } from './binaries';
import { terminate, track, type ExitInfo, type TrackedChild } from './children';
import { formatCommandLine } from './command-line';
import { describeTail, OutputTail } from './log-tail';
import { directUri, helloOnce, portBlocker, waitForHello } from './ports';
import { ensureKeyFile } from './keyfile';
import {
  argValue,
  bindAddresses,
  dataDirOf,
  effectiveArgs,
  hasArg,
  logPathOf,
  stopTier,
  validateSpecs,
  type ProcessKind,
  type ProcessSpec,
} from './spec';

export interface LaunchOptions {
  /** From resolveBinaries(); mongos is only needed when a spec asks for one. */
  binaries: ResolvedBinaries;
  /** Called with each command line (credentials removed) just before it is spawned, in order. */
  onCommandLine?: (commandLine: string, spec: ProcessSpec) => void;
  /** Called right after each process is spawned (before it is ready), e.g. to show its pid. */
  onSpawned?: (process: LaunchedProcess) => void;
  /** Called when a process that was ready exits while nobody asked it to (e.g. a mongod crashed mid-run). */
  onUnexpectedExit?: (process: LaunchedProcess, exit: ExitInfo) => void;
  /** Abort the launch: everything started is stopped and the launch rejects with an AbortError. */
  signal?: AbortSignal;
  /** How long each process may take, from spawn, to answer hello. */
  readyTimeoutMs: number;
  /**
   * How long stop() waits after SIGTERM before SIGKILL. Default 120 s: a signalled mongod or mongos
   * waits out its step-down and quiesce period (shutdownTimeoutMillisForSignaledShutdown, 15 s by
   * default since 5.0; the plan sets it to 1 s), a 4.4 primary tries to step down for up to 10 s
   * (waitForStepDownOnNonCommandShutdown; no quiesce mode before 5.0), a one-member set skips the
   * step-down (src/mongo/db/commands/shutdown.cpp, stepDownForShutdown), and then the final
   * checkpoint is written; a process still shutting down cleanly is not cut short by a SIGKILL.
   */
  stopGraceMs?: number;
  /** Environment of the children (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Allow a non-empty data directory (default: refuse, since old replica-set config there breaks setup). */
  allowExistingData?: boolean;
  /**
   * Access control between members: the keyfile every process gets as --keyFile (unless its args
   * name one). Created with random content, mode 600, when missing (see clusterKeyFile for where).
   * Keyfiles named by the specs' own --keyFile arguments are created the same way.
   */
  keyFile?: string;
  /**
   * Launched processes listen on loopback addresses only; set this to let a spec listen elsewhere
   * (--bind_ip with another address, --bind_ip_all, or a non-loopback host). Only on an explicit
   * request of the user: such a process is reachable from other machines.
   */
  allowNonLoopbackBind?: boolean;
}

/** A running process, as plain data. */
export interface LaunchedProcess {
  name: string;
  kind: ProcessKind;
  host: string;
  port: number;
  pid: number;
  /** mongodb://host:port/?directConnection=true */
  uri: string;
  binary: string;
  /** The argv after the binary, as run (port/bind_ip/dbpath/logpath filled in). */
  args: string[];
  /** As passed to onCommandLine: shell-quoted, credentials removed. */
  commandLine: string;
  dbPath?: string;
  logPath?: string;
}

export interface StoppedProcess {
  name: string;
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** SIGTERM was not enough within the grace period; SIGKILL was sent. */
  killed: boolean;
  /** From SIGTERM to the exit. */
  durationMs: number;
  /** It was the PRIMARY of its replica set when the stop began (stopped after the other members). */
  wasPrimary?: boolean;
}

export interface LaunchedGroup {
  /** Every process started so far, in start order. */
  readonly processes: readonly LaunchedProcess[];
  /**
   * Starts more processes into the same group (e.g. mongos once the config server replica set
   * is initiated). Same checks and failure handling: on error the whole group is stopped.
   * `readyTimeoutMs` here overrides the group's for these processes (a mongos may need longer).
   */
  launch(
    specs: readonly ProcessSpec[],
    overrides?: { readyTimeoutMs?: number },
  ): Promise<LaunchedProcess[]>;
  /**
   * Stops every process and waits for each to exit: mongos, then the shards' (or a replica set's)
   * members, then the config servers; within a tier the secondaries before the primaries, so no
   * primary waits for a secondary to catch up that is about to go anyway. Idempotent.
   */
  stop(): Promise<StoppedProcess[]>;
  /** The keyfiles the processes use (their contents are secrets: redact them from any output). */
  readonly keyFiles: readonly string[];
  /** Whether the process named `name` is running (started and not exited). */
  isRunning(name: string): boolean;
  /**
   * Sends `signal` to one process (a fault: SIGKILL, SIGTERM) and waits up to `waitMs` for it to exit;
   * its exit is then no surprise (no onUnexpectedExit). Resolves with its pid and how it ended
   * (undefined: still running after `waitMs`).
   */
  signalProcess(
    name: string,
    signal: NodeJS.Signals,
    waitMs: number,
  ): Promise<{ pid: number; exit?: ExitInfo }>;
  /**
   * Starts an exited process again with the same binary and arguments (its data directory as it was
   * left) and waits until it answers hello; refused while it runs or once the group is stopping.
   */
  restartProcess(name: string, overrides?: { readyTimeoutMs?: number }): Promise<LaunchedProcess>;
}

interface Entry {
  spec: ProcessSpec;
  info: LaunchedProcess;
  tracked: TrackedChild;
  output: OutputTail;
  /** stdout and stderr are drained (after 'exit', the last lines may still be in flight). */
  drained: Promise<void>;
  spawnedAt: number;
  /** It answered hello; from then on an exit nobody asked for is reported through onUnexpectedExit. */
  ready: boolean;
}

const DEFAULT_STOP_GRACE_MS = 120_000;
/** How long stop() asks each member whether it is the PRIMARY (hello) before it orders the stops. */
const STOP_HELLO_TIMEOUT_MS = 2_000;

export async function launchProcesses(
  specs: readonly ProcessSpec[],
  options: LaunchOptions,
): Promise<LaunchedGroup> {
  const group = new Group(options);
  await group.launch(specs);
  return group;
}

class Group implements LaunchedGroup {
  private readonly entries: Entry[] = [];
  readonly keyFiles: string[] = [];
  private stopping?: Promise<StoppedProcess[]>;
  /** Restarts under way: stop() waits for each to have spawned (or failed) before it stops the group. */
  private readonly restarting = new Set<Promise<unknown>>();

  constructor(private readonly options: LaunchOptions) {}

  get processes(): readonly LaunchedProcess[] {
    return this.entries.map((e) => e.info);
  }

  async launch(
    specs: readonly ProcessSpec[],
    overrides: { readyTimeoutMs?: number } = {},
  ): Promise<LaunchedProcess[]> {
    if (this.stopping)
      throw new RunError('cannot launch more processes: this group was already stopped');
    try {
      return await this.launchOrThrow(
        specs,
        overrides.readyTimeoutMs ?? this.options.readyTimeoutMs,
      );
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  stop(): Promise<StoppedProcess[]> {
    this.stopping ??= Promise.allSettled([...this.restarting]).then(() => this.stopAll());
    return this.stopping;
  }

  isRunning(name: string): boolean {
    const entry = this.entries.find((e) => e.info.name === name);
    return entry !== undefined && entry.tracked.exit === undefined;
  }

  async signalProcess(
    name: string,
    signal: NodeJS.Signals,
    waitMs: number,
  ): Promise<{ pid: number; exit?: ExitInfo }> {
    const entry = this.entryNamed(name);
    const pid = entry.info.pid;
    if (entry.tracked.exit) return { pid, exit: entry.tracked.exit };
    // Asked for: its exit is not reported as unexpected.
    entry.ready = false;
    try {
      entry.tracked.child.kill(signal);
    } catch {
      // Exited meanwhile: the exit promise settles on its own.
    }
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      entry.tracked.exited,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs))),
    ]);
    clearTimeout(timer);
    return exit ? { pid, exit } : { pid };
  }

  restartProcess(
    name: string,
    overrides: { readyTimeoutMs?: number } = {},
  ): Promise<LaunchedProcess> {
    const restart = this.restartOrThrow(
      name,
      overrides.readyTimeoutMs ?? this.options.readyTimeoutMs,
    );
    const pending = restart.catch(() => undefined);
    this.restarting.add(pending);
    void pending.then(() => this.restarting.delete(pending));
    return restart;
  }

  private entryNamed(name: string): Entry {
    const entry = this.entries.find((e) => e.info.name === name);
    if (!entry)
      throw new RunError(
        `no process "${name}" in this group (it has ${this.entries.map((e) => e.info.name).join(', ')})`,
      );
    return entry;
  }

  private async restartOrThrow(name: string, readyTimeoutMs: number): Promise<LaunchedProcess> {
    const old = this.entryNamed(name);
    if (this.stopping)
      throw new RunError(`cannot start ${name} again: this group is being stopped`);
    if (!old.tracked.exit)
      throw new RunError(`cannot start ${name} again: it is still running (pid ${old.info.pid})`);
    // The same binary and arguments: no --port/--dbpath filled in anew, the data directory kept as it was.
    const entry = await this.spawnOne(old.spec, old.info.binary, old.info.args);
    this.entries[this.entries.indexOf(old)] = entry;
    this.options.onSpawned?.(entry.info);
    const ready = await waitForHello(entry.spec.host, entry.spec.port, {
      deadline: entry.spawnedAt + readyTimeoutMs,
      cancelled: () => entry.tracked.exit !== undefined || this.stopping !== undefined,
    });
    entry.ready = ready;
    if (ready) return entry.info;
    if (entry.tracked.exit) {
      await Promise.race([entry.drained, sleep(500)]);
      throw exitedEarly(entry, entry.tracked.exit);
    }
    if (this.stopping) throw new RunError(`${name} was started again, then the group was stopped`);
    throw timedOut(entry, readyTimeoutMs);
  }

  private async launchOrThrow(
    given: readonly ProcessSpec[],
    readyTimeoutMs: number,
  ): Promise<LaunchedProcess[]> {
    const specs = withKeyFile(given, this.options.keyFile);
    validateSpecs([...this.entries.map((e) => e.spec), ...specs]);
    if (!this.options.allowNonLoopbackBind) assertLoopbackOnly(specs);
    const binaries = specs.map((spec) => this.binaryFor(spec.kind));
    this.throwIfAborted();
    await assertPortsFree(specs);
    prepareDirectories(specs, this.options.allowExistingData ?? false);
    for (const file of keyFilesOf(specs)) {
      ensureKeyFile(file);
      if (!this.keyFiles.includes(file)) this.keyFiles.push(file);
    }
    this.throwIfAborted();

    const started: Entry[] = [];
    for (let i = 0; i < specs.length; i++) {
      const entry = await this.spawnOne(specs[i], binaries[i]);
      this.entries.push(entry);
      this.options.onSpawned?.(entry.info);
      started.push(entry);
      this.throwIfAborted();
    }
    await this.waitUntilReady(started, readyTimeoutMs);
    return started.map((e) => e.info);
  }

  private binaryFor(kind: ProcessKind): string {
    return kind === 'mongos'
      ? requireMongos(this.options.binaries)
      : requireMongod(this.options.binaries);
  }

  /** Spawns one process (not yet in the group: the caller places it); `args`: as run before (a restart). */
  private async spawnOne(
    spec: ProcessSpec,
    binary: string,
    args: string[] = effectiveArgs(spec),
  ): Promise<Entry> {
    const commandLine = formatCommandLine(binary, args);
    this.options.onCommandLine?.(commandLine, spec);
    const child = spawn(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: this.options.env ?? process.env,
    });
    const spawnedAt = Date.now();
    const tracked = track(child);
    const drained = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const output = new OutputTail();
    output.follow(child.stdout);
    output.follow(child.stderr);
    const spawnError = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (err) => resolve(err));
    });
    if (spawnError || child.pid === undefined) {
      throw new RunError(
        `could not start ${spec.kind} "${spec.name}" (${binary}): ${spawnError?.message ?? 'no pid'}`,
      );
    }
    const entry: Entry = {
      spec,
      tracked,
      output,
      drained,
      spawnedAt,
      ready: false,
      info: {
        name: spec.name,
        kind: spec.kind,
        host: spec.host,
        port: spec.port,
        pid: child.pid,
        uri: directUri(spec.host, spec.port),
        binary,
        args,
        commandLine,
        dbPath: dataDirOf(spec),
        logPath: logPathOf(spec),
      },
    };
    void tracked.exited.then((exit) => {
      if (entry.ready && !this.stopping) this.options.onUnexpectedExit?.(entry.info, exit);
    });
    return entry;
  }

  /** All in parallel; the first failure cancels the other waits. */
  private async waitUntilReady(started: Entry[], readyTimeoutMs: number): Promise<void> {
    const signal = this.options.signal;
    let failure: Error | undefined;
    await Promise.all(
      started.map(async (entry) => {
        const { spec, tracked } = entry;
        const deadline = entry.spawnedAt + readyTimeoutMs;
        const ready = await waitForHello(spec.host, spec.port, {
          deadline,
          cancelled: () =>
            failure !== undefined || tracked.exit !== undefined || signal?.aborted === true,
        });
        entry.ready = ready;
        if (ready || failure) return;
        if (signal?.aborted) failure = abortError();
        else if (tracked.exit) {
          await Promise.race([entry.drained, sleep(500)]);
          failure ??= exitedEarly(entry, tracked.exit);
        } else failure = timedOut(entry, readyTimeoutMs);
      }),
    );
    if (failure) throw failure;
  }

  private throwIfAborted(): void {
    if (this.options.signal?.aborted) throw abortError();
  }

  private async stopAll(): Promise<StoppedProcess[]> {
    const grace = this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    const results: StoppedProcess[] = [];
    const stopAll = (entries: Entry[], wasPrimary: boolean) =>
      Promise.all(
        entries.map(async (e) => {
          const started = Date.now();
          const { exit, killed } = await terminate(e.tracked, grace);
          const stopped: StoppedProcess = {
            name: e.info.name,
            pid: e.info.pid,
            code: exit.code,
            signal: exit.signal,
            killed,
            durationMs: Date.now() - started,
          };
          if (wasPrimary) stopped.wasPrimary = true;
          return stopped;
        }),
      );
    for (const tier of [0, 1, 2]) {
      const inTier = this.entries.filter((e) => stopTier(e.spec) === tier);
      const primary = await Promise.all(
        inTier.map((e) => (tier === 0 || e.tracked.exit ? false : isPrimary(e))),
      );
      results.push(
        ...(await stopAll(
          inTier.filter((_, i) => !primary[i]),
          false,
        )),
      );
      results.push(
        ...(await stopAll(
          inTier.filter((_, i) => primary[i]),
          true,
        )),
      );
    }
    return results;
  }
}

/** Whether a running member says it is the writable PRIMARY (false when it does not answer in time). */
async function isPrimary(entry: Entry): Promise<boolean> {
  if (!entry.ready) return false;
  const hello = await helloOnce(entry.spec.host, entry.spec.port, STOP_HELLO_TIMEOUT_MS);
  return hello?.isWritablePrimary === true || hello?.ismaster === true
    ? hello.setName !== undefined
    : false;
}

const KEY_FILE = '--keyFile';

function withKeyFile(specs: readonly ProcessSpec[], keyFile: string | undefined): ProcessSpec[] {
  if (keyFile === undefined) return [...specs];
  return specs.map((spec) =>
    hasArg(spec.args, KEY_FILE) ? spec : { ...spec, args: [...spec.args, KEY_FILE, keyFile] },
  );
}

function keyFilesOf(specs: readonly ProcessSpec[]): string[] {
  return [
    ...new Set(
      specs.map((s) => argValue(s.args, KEY_FILE)).filter((f): f is string => f !== undefined),
    ),
  ];
}

export function isLoopbackAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  return a === 'localhost' || a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/** Nothing the launcher starts listens beyond this machine unless the caller asked for it. */
function assertLoopbackOnly(specs: readonly ProcessSpec[]): void {
  for (const spec of specs) {
    const outside = bindAddresses(spec).filter((a) => !isLoopbackAddress(a));
    if (outside.length > 0) {
      throw new UsageError(
        `${spec.kind} "${spec.name}" would listen on ${outside.join(', ')}${hasArg(spec.args, '--bind_ip_all') ? ' (--bind_ip_all)' : ''}, ` +
          'reachable from other machines; launched processes bind to loopback (127.0.0.1) only unless a non-loopback bind is asked for explicitly',
      );
    }
  }
}

/** Ports the processes need are taken: the caller chose the ports, so callers may report it as bad input. */
export class PortsInUseError extends RunError {
  constructor(message: string) {
    super(message);
    this.name = 'PortsInUseError';
  }
}

async function assertPortsFree(specs: readonly ProcessSpec[]): Promise<void> {
  const checks = specs.flatMap((spec) => bindAddresses(spec).map((address) => ({ spec, address })));
  const blocked = (
    await Promise.all(
      checks.map(async (c) => ({ ...c, code: await portBlocker(c.address, c.spec.port) })),
    )
  ).filter((b) => b.code !== undefined);
  if (blocked.length === 0) return;
  const lines = blocked.map(({ spec, address, code }) =>
    code === 'EADDRINUSE'
      ? `port ${spec.port} on ${address} is already in use; ${spec.kind} "${spec.name}" needs it`
      : `cannot listen on ${address}:${spec.port} (${code}); ${spec.kind} "${spec.name}" needs it`,
  );
  throw new PortsInUseError(
    `${lines.join('\n')}\nNothing was started. Stop whatever listens there or choose other ports.`,
  );
}

function prepareDirectories(specs: readonly ProcessSpec[], allowExistingData: boolean): void {
  for (const spec of specs) {
    const dataDir = dataDirOf(spec);
    if (dataDir !== undefined) {
      const existing = fs.existsSync(dataDir) ? fs.readdirSync(dataDir) : [];
      if (existing.length > 0 && !allowExistingData) {
        throw new UsageError(
          `data directory ${dataDir} of ${spec.kind} "${spec.name}" is not empty (left from an earlier run?): remove it or choose another directory`,
        );
      }
      fs.mkdirSync(dataDir, { recursive: true });
    }
    const logPath = logPathOf(spec);
    if (logPath !== undefined) fs.mkdirSync(path.dirname(logPath), { recursive: true });
  }
}

function abortError(): RunError {
  const err = new RunError('launch interrupted; every process it started was stopped');
  err.name = 'AbortError';
  return err;
}

function exitedEarly(entry: Entry, exit: ExitInfo): RunError {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return new RunError(
    `${entry.spec.kind} "${entry.spec.name}" ${how} before it answered hello on ${entry.spec.host}:${entry.spec.port}; ` +
      `${describeTail(entry.output, entry.info.logPath)}\ncommand: ${entry.info.commandLine}`,
  );
}

function timedOut(entry: Entry, timeoutMs: number): RunError {
  return new RunError(
    `${entry.spec.kind} "${entry.spec.name}" did not answer hello on ${entry.spec.host}:${entry.spec.port} within ${formatMs(timeoutMs)}; ` +
      `${describeTail(entry.output, entry.info.logPath)}\ncommand: ${entry.info.commandLine}`,
  );
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}
