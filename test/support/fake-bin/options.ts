/**
 * The command line of the stand-ins, parsed as the real binaries do: boost::program_options over the
 * option sets of src/mongo/db/mongod_options*.idl, src/mongo/db/server_options_*.idl,
 * src/mongo/s/mongos_options.idl. An unknown option is refused with the real message and
 * ExitCode::badOptions (2): src/mongo/util/options_parser/options_parser_init.cpp prints
 * `ret.reason()` then "try '<argv0> --help' for more information" and quickExit(badOptions).
 */
import * as path from 'node:path';
import { features, type ServerVersion } from './version';

export type Kind = 'mongod' | 'mongos';

/** ExitCode::badOptions (src/mongo/util/exit_code.h). */
export const EXIT_BADOPTIONS = 2;

export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Options both binaries take (server_options_general.idl, server_options_nongeneral.idl, ssl_options_server.idl). */
const GENERAL_VALUE = [
  'config',
  'configExpand',
  'port',
  'bind_ip',
  'listenBacklog',
  'maxConns',
  'logpath',
  'syslogFacility',
  'logRotate',
  'timeStampFormat',
  'setParameter',
  'pidfilepath',
  'timeZoneInfo',
  'keyFile',
  'clusterAuthMode',
  'unixSocketPrefix',
  'filePermissions',
  'networkMessageCompressors',
  'tlsMode',
  'tlsCertificateKeyFile',
  'tlsCertificateKeyFilePassword',
  'tlsCAFile',
  'tlsClusterCAFile',
  'tlsClusterFile',
  'tlsClusterPassword',
  'tlsCRLFile',
  'tlsDisabledProtocols',
  'sslMode',
  'sslPEMKeyFile',
  'sslPEMKeyPassword',
  'sslCAFile',
  'sslClusterFile',
  'sslClusterPassword',
  'sslCRLFile',
  'sslDisabledProtocols',
  'redactClientLogData',
  'auditDestination',
  'auditFormat',
  'auditPath',
  'auditFilter',
];
const GENERAL_SWITCH = [
  'help',
  'version',
  'quiet',
  'ipv6',
  'bind_ip_all',
  'syslog',
  'logappend',
  'fork',
  'nounixsocket',
  'transitionToAuth',
  'outputConfig',
  'tlsAllowConnectionsWithoutCertificates',
  'tlsAllowInvalidCertificates',
  'tlsAllowInvalidHostnames',
  'tlsFIPSMode',
  'sslAllowConnectionsWithoutCertificates',
  'sslAllowInvalidCertificates',
  'sslAllowInvalidHostnames',
  'sslFIPSMode',
  'enableFreeMonitoring',
];
/** mongod only (mongod_options_general.idl, mongod_options_replication.idl, mongod_options_sharding.idl, storage). */
const MONGOD_VALUE = [
  'dbpath',
  'storageEngine',
  'journalCommitInterval',
  'syncdelay',
  'profile',
  'slowms',
  'slowOpSampleRate',
  'replSet',
  'oplogSize',
  'enableMajorityReadConcern',
  'wiredTigerCacheSizeGB',
  'wiredTigerJournalCompressor',
  'wiredTigerCollectionBlockCompressor',
  'wiredTigerIndexPrefixCompression',
  'freeMonitoringTag',
  'inMemorySizeGB',
  'replIndexPrefetch',
  'queryableBackupMode',
];
const MONGOD_SWITCH = [
  'auth',
  'noauth',
  'directoryperdb',
  'upgrade',
  'repair',
  'cpu',
  'sysinfo',
  'noscripting',
  'notablescan',
  'configsvr',
  'shardsvr',
  'wiredTigerDirectoryForIndexes',
  'shutdown',
  'restore',
];
/** Removed in 6.1 ("journaling is always enabled"): docs.mongodb.com/manual/release-notes/6.1/. */
const MONGOD_JOURNAL_SWITCH = ['journal', 'nojournal'];
/** mongos only (src/mongo/s/mongos_options.idl). */
const MONGOS_VALUE = ['configdb', 'localThreshold'];
const MONGOS_SWITCH = ['noscripting'];

export interface ParsedArgs {
  values: Map<string, string[]>;
  switches: Set<string>;
}

export function knownOptions(
  kind: Kind,
  version: ServerVersion,
): { value: Set<string>; switch: Set<string> } {
  const value = new Set([...GENERAL_VALUE, ...(kind === 'mongod' ? MONGOD_VALUE : MONGOS_VALUE)]);
  const switches = new Set([
    ...GENERAL_SWITCH,
    ...(kind === 'mongod' ? MONGOD_SWITCH : MONGOS_SWITCH),
  ]);
  if (kind === 'mongod' && features(version).journalOptions)
    for (const s of MONGOD_JOURNAL_SWITCH) switches.add(s);
  return { value, switch: switches };
}

/** boost::program_options' own words for a bad command line (unrecognised option, missing value). */
export function parseCommandLine(kind: Kind, version: ServerVersion, argv: string[]): ParsedArgs {
  const known = knownOptions(kind, version);
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // -v, -vv...: verbosity; -f FILE: --config.
    if (/^-v+$/.test(arg) || arg.startsWith('--verbose')) continue;
    if (arg === '-h') {
      switches.add('help');
      continue;
    }
    const long = arg === '-f' ? '--config' : arg;
    if (!long.startsWith('--'))
      throw new StartupError(
        `Error parsing command line: too many positional options have been specified on the command line`,
        EXIT_BADOPTIONS,
      );
    const eq = long.indexOf('=');
    const name = long.slice(2, eq > 0 ? eq : undefined);
    if (known.value.has(name)) {
      const value = eq > 0 ? long.slice(eq + 1) : argv[++i];
      if (value === undefined)
        throw new StartupError(
          `Error parsing command line: the required argument for option '--${name}' is missing`,
          EXIT_BADOPTIONS,
        );
      values.set(name, [...(values.get(name) ?? []), value]);
    } else if (known.switch.has(name)) {
      switches.add(name);
    } else {
      throw new StartupError(
        `Error parsing command line: unrecognised option '--${name}'`,
        EXIT_BADOPTIONS,
      );
    }
  }
  return { values, switches };
}

export interface FakeOptions {
  kind: Kind;
  version: ServerVersion;
  argv: string[];
  port: number;
  /** Where we listen: loopback only, whatever --bind_ip says (test servers never leave the machine). */
  listenHost: string;
  /** The host:port we call ourselves (`me` in hello, members of the replica set). */
  me: string;
  logPath?: string;
  logAppend: boolean;
  dbPath: string;
  pidFilePath?: string;
  keyFile?: string;
  auth: boolean;
  replSet?: string;
  /** The seed hosts of --replSet <name>/<host>,<host> (used by an empty replSetInitiate). */
  replSetSeeds?: string[];
  clusterRole?: 'configsvr' | 'shardsvr';
  configDb?: { setName: string; hosts: string[] };
  fork: boolean;
  showVersion: boolean;
  setParameters: Map<string, string>;
}

/**
 * Server parameters the tool may set at start-up. An unknown one is refused like
 * src/mongo/db/server_options_server_helpers.cpp (storeServerOptions): "Illegal --setParameter
 * parameter: \"<name>\"". Only the ones we model are listed, plus a few common harmless ones.
 */
const KNOWN_SET_PARAMETERS: Record<Kind, string[]> = {
  mongod: [
    'shutdownTimeoutMillisForSignaledShutdown',
    'enableTestCommands',
    'diagnosticDataCollectionEnabled',
    'ttlMonitorEnabled',
    'logLevel',
    'maxTransactionLockRequestTimeoutMillis',
    'transactionLifetimeLimitSeconds',
  ],
  mongos: [
    'mongosShutdownTimeoutMillisForSignaledShutdown',
    'enableTestCommands',
    'diagnosticDataCollectionEnabled',
    'logLevel',
  ],
};

const QUIESCE_PARAMETERS = [
  'shutdownTimeoutMillisForSignaledShutdown',
  'mongosShutdownTimeoutMillisForSignaledShutdown',
];

function single(parsed: ParsedArgs, name: string): string | undefined {
  const all = parsed.values.get(name);
  return all?.[all.length - 1];
}

/**
 * The options a server stores after parsing, with the checks the real ones make before forking.
 * Paths made absolute before the fork: --logpath (server_options_server_helpers.cpp storeServerOptions:
 * boost::filesystem::absolute), --keyFile (same file), --dbpath (mongod_options.cpp
 * storeMongodOptions: "if (serverGlobalParams.doFork && ...) dbpath = cwd + '/' + dbpath").
 * --pidfilepath is stored as given, so a relative one resolves against / in the forked child.
 */
export function storeOptions(
  kind: Kind,
  version: ServerVersion,
  argv: string[],
  cwd = process.cwd(),
): FakeOptions {
  const parsed = parseCommandLine(kind, version, argv);
  const sw = (n: string) => parsed.switches.has(n);
  const fork = sw('fork');
  const logPath = single(parsed, 'logpath');
  // server_options_server_helpers.cpp: BadValue "--fork has to be used with --logpath or --syslog".
  if (fork && !logPath && !sw('syslog'))
    throw new StartupError(
      'BadValue: --fork has to be used with --logpath or --syslog',
      EXIT_BADOPTIONS,
    );
  const setParameters = new Map<string, string>();
  for (const spec of parsed.values.get('setParameter') ?? []) {
    const eq = spec.indexOf('=');
    const name = eq > 0 ? spec.slice(0, eq) : spec;
    if (!KNOWN_SET_PARAMETERS[kind].includes(name))
      throw new StartupError(`Illegal --setParameter parameter: "${name}"`, EXIT_BADOPTIONS);
    // The quiesce parameters exist from 4.5.0 (the server's own test runner strips them for older
    // binaries: jstests/libs servers.js, _removeSetParameterIfBeforeVersion(..., "4.5.0")): a 4.4
    // server refuses them as unknown.
    if (QUIESCE_PARAMETERS.includes(name) && !features(version).quiesce)
      throw new StartupError(`Illegal --setParameter parameter: "${name}"`, EXIT_BADOPTIONS);
    const value = eq > 0 ? spec.slice(eq + 1) : '';
    if (/TimeoutMillis/.test(name) && !/^\d+$/.test(value)) {
      throw new StartupError(
        `Bad value for parameter "${name}": Failed to parse value "${value}" as int`,
        EXIT_BADOPTIONS,
      );
    }
    setParameters.set(name, value);
  }
  const configsvr = kind === 'mongod' && sw('configsvr');
  // mongod_options.cpp (storeMongodOptions): a config server must be a replica set since 3.4.
  if (configsvr && !single(parsed, 'replSet')) {
    throw new StartupError(
      'BadValue: Cannot start a configsvr as a standalone server. Please use the option --replSet to start the node as a replica set.',
      EXIT_BADOPTIONS,
    );
  }
  const shardsvr = kind === 'mongod' && sw('shardsvr');
  // mongod_options.cpp: --configsvr defaults the port to 27019, --shardsvr to 27018.
  const defaultPort = configsvr ? 27019 : shardsvr ? 27018 : 27017;
  const port = Number(single(parsed, 'port') ?? defaultPort);
  const bindIp = single(parsed, 'bind_ip')?.split(',')[0]?.trim();
  const advertised =
    bindIp && bindIp !== '0.0.0.0' && bindIp !== '::' && !sw('bind_ip_all') ? bindIp : '127.0.0.1';
  const absolute = (p: string | undefined) => (p === undefined ? undefined : path.resolve(cwd, p));
  let configDb: FakeOptions['configDb'];
  if (kind === 'mongos') {
    const spec = single(parsed, 'configdb');
    if (!spec && !sw('version') && !sw('help'))
      throw new StartupError('BadValue: error: no args for --configdb', EXIT_BADOPTIONS);
    if (spec) {
      // mongos_options.cpp: config servers must be a replica set since 3.4 (SCCC removed).
      const slash = spec.indexOf('/');
      if (slash <= 0)
        throw new StartupError(
          'BadValue: configdb supports only replica set connection string',
          EXIT_BADOPTIONS,
        );
      configDb = {
        setName: spec.slice(0, slash),
        hosts: spec
          .slice(slash + 1)
          .split(',')
          .filter(Boolean),
      };
    }
  }
  return {
    kind,
    version,
    argv,
    port,
    listenHost:
      advertised === 'localhost' || advertised.startsWith('127.') ? advertised : '127.0.0.1',
    me: `${advertised}:${port}`,
    logPath: absolute(logPath),
    logAppend: sw('logappend'),
    dbPath: absolute(single(parsed, 'dbpath')) ?? '/data/db',
    pidFilePath: single(parsed, 'pidfilepath'),
    keyFile: absolute(single(parsed, 'keyFile')),
    auth: sw('auth') || single(parsed, 'keyFile') !== undefined,
    replSet: kind === 'mongod' ? single(parsed, 'replSet')?.split('/')[0] : undefined,
    replSetSeeds:
      kind === 'mongod'
        ? single(parsed, 'replSet')?.split('/')[1]?.split(',').filter(Boolean)
        : undefined,
    clusterRole: configsvr ? 'configsvr' : shardsvr ? 'shardsvr' : undefined,
    configDb,
    fork,
    showVersion: sw('version'),
    setParameters,
  };
}

/** The quiesce time of a signalled shutdown (15000 ms default: mongod_options_general / mongos server parameters). */
export function quiesceMillis(options: FakeOptions): number {
  const name =
    options.kind === 'mongos'
      ? 'mongosShutdownTimeoutMillisForSignaledShutdown'
      : 'shutdownTimeoutMillisForSignaledShutdown';
  const given = options.setParameters.get(name);
  return given === undefined ? 15_000 : Number(given);
}
