/**
 * What the launcher is asked to start: plain data, one entry per process. The topology plan
 * produces these (see docs/launcher.md for how the fields map onto the command line).
 */
import { UsageError } from '../config/errors';

export type ProcessKind = 'mongod' | 'mongos';

export interface ProcessSpec {
  /** Unique, human-readable: "config-0", "shard1-2", "mongos-0". Named in every message. */
  name: string;
  kind: ProcessKind;
  /**
   * Arguments after the binary, as the plan renders them. The launcher adds --port, --bind_ip,
   * --dbpath and --logpath from the fields below only when they are missing here.
   */
  args: string[];
  /** The address clients use; also what --bind_ip gets unless args say otherwise. */
  host: string;
  port: number;
  /** mongod's data directory; created if missing. Required for mongod unless args have --dbpath. */
  dbPath?: string;
  /** Log file (mongod/mongos --logpath); its parent directory is created. Else output is kept in memory. */
  logPath?: string;
}

/** Options the launcher adds or reads; each maps to a ProcessSpec field. */
const PORT = '--port';
const BIND_IP = '--bind_ip';
const BIND_IP_ALL = '--bind_ip_all';
const DBPATH = '--dbpath';
const LOGPATH = '--logpath';

/** The value of `--name value` or `--name=value` in args, if present. */
export function argValue(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

export function hasArg(args: readonly string[], name: string): boolean {
  return args.some((a) => a === name || a.startsWith(`${name}=`));
}

/** The argv the launcher runs: spec.args plus whatever of port/bind_ip/dbpath/logpath they lack. */
export function effectiveArgs(spec: ProcessSpec): string[] {
  const args = [...spec.args];
  if (!hasArg(args, PORT)) args.push(PORT, String(spec.port));
  if (!hasArg(args, BIND_IP) && !hasArg(args, BIND_IP_ALL)) args.push(BIND_IP, spec.host);
  if (spec.kind === 'mongod' && spec.dbPath !== undefined && !hasArg(args, DBPATH))
    args.push(DBPATH, spec.dbPath);
  if (spec.logPath !== undefined && !hasArg(args, LOGPATH)) args.push(LOGPATH, spec.logPath);
  return args;
}

/** The addresses the process will listen on: --bind_ip's list, 0.0.0.0 for --bind_ip_all, else host. */
export function bindAddresses(spec: ProcessSpec): string[] {
  if (hasArg(spec.args, BIND_IP_ALL)) return ['0.0.0.0'];
  const list = argValue(spec.args, BIND_IP);
  const addresses =
    list
      ?.split(',')
      .map((a) => a.trim())
      .filter((a) => a !== '') ?? [];
  return addresses.length > 0 ? addresses : [spec.host];
}

/** The data directory the process will use (spec field or --dbpath in args). */
export function dataDirOf(spec: ProcessSpec): string | undefined {
  return spec.dbPath ?? (spec.kind === 'mongod' ? argValue(spec.args, DBPATH) : undefined);
}

export function logPathOf(spec: ProcessSpec): string | undefined {
  return spec.logPath ?? argValue(spec.args, LOGPATH);
}

/** mongos, then shard/standalone mongods, then config servers: the order to stop them in. */
export function stopTier(spec: Pick<ProcessSpec, 'kind' | 'args'>): number {
  if (spec.kind === 'mongos') return 0;
  return hasArg(spec.args, '--configsvr') ? 2 : 1;
}

/**
 * Checks the specs agree with themselves and with each other before anything starts.
 * Errors name the process and the field or argument at fault.
 */
export function validateSpecs(specs: readonly ProcessSpec[]): void {
  const names = new Map<string, number>();
  const ports = new Map<string, string>();
  specs.forEach((spec, i) => {
    const where = `process[${i}]${spec.name ? ` "${spec.name}"` : ''}`;
    if (!spec.name) throw new UsageError(`${where}: name is empty`);
    if (names.has(spec.name))
      throw new UsageError(
        `${where}: name "${spec.name}" is used twice (also process[${names.get(spec.name)}])`,
      );
    names.set(spec.name, i);
    if (spec.kind !== 'mongod' && spec.kind !== 'mongos') {
      throw new UsageError(
        `${where}: kind must be "mongod" or "mongos", got ${JSON.stringify(spec.kind)}`,
      );
    }
    if (!Number.isInteger(spec.port) || spec.port < 1 || spec.port > 65535) {
      throw new UsageError(`${where}: port must be an integer from 1 to 65535, got ${spec.port}`);
    }
    if (!spec.host) throw new UsageError(`${where}: host is empty`);
    const argPort = argValue(spec.args, PORT);
    if (argPort !== undefined && Number(argPort) !== spec.port) {
      throw new UsageError(`${where}: args say ${PORT} ${argPort} but port is ${spec.port}`);
    }
    const argDbPath = argValue(spec.args, DBPATH);
    if (spec.dbPath !== undefined && argDbPath !== undefined && argDbPath !== spec.dbPath) {
      throw new UsageError(
        `${where}: args say ${DBPATH} ${argDbPath} but dbPath is ${spec.dbPath}`,
      );
    }
    const argLogPath = argValue(spec.args, LOGPATH);
    if (spec.logPath !== undefined && argLogPath !== undefined && argLogPath !== spec.logPath) {
      throw new UsageError(
        `${where}: args say ${LOGPATH} ${argLogPath} but logPath is ${spec.logPath}`,
      );
    }
    if (spec.kind === 'mongod' && dataDirOf(spec) === undefined) {
      throw new UsageError(
        `${where}: a mongod needs a data directory (dbPath or ${DBPATH} in args); mongod's default /data/db is never used`,
      );
    }
    if (hasArg(spec.args, '--fork')) {
      throw new UsageError(
        `${where}: --fork is not allowed (the launcher keeps each process as its child so it can stop it)`,
      );
    }
    const key = String(spec.port);
    const other = ports.get(key);
    if (other !== undefined)
      throw new UsageError(`${where}: port ${spec.port} is also used by "${other}"`);
    ports.set(key, spec.name);
  });
}
