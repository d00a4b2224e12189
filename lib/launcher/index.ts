// The launcher: where mongod/mongos come from, starting and stopping them, and the embedded default.
export {
  resolveBinaries,
  requireMongod,
  requireMongos,
  type ResolvedBinaries,
  type BinarySource,
  type ResolveBinariesInput,
} from './binaries';
export {
  launchProcesses,
  isLoopbackAddress,
  PortsInUseError,
  type LaunchOptions,
  type LaunchedGroup,
  type LaunchedProcess,
  type StoppedProcess,
} from './launch';
export type { ExitInfo } from './children';
export {
  effectiveArgs,
  type ProcessSpec,
  type ProcessSpec as LaunchSpec,
  type ProcessKind,
} from './spec';
export { formatCommandLine, redactArgs } from './command-line';
export {
  startEmbedded,
  mongodVersion,
  serverBinaryVersion,
  NO_MONGOD_HELP,
  type EmbeddedOptions,
  type EmbeddedServer,
} from './embedded';
export { clusterKeyFile, ensureKeyFile } from './keyfile';
