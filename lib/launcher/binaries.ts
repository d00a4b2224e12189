/**
 * Where the mongod and mongos binaries come from. Plain lookup and checks: nothing is downloaded
 * here (the embedded path may still let mongodb-memory-server download a mongod, see embedded.ts).
 *
 * Precedence: --mongod-bin PATH, --bin-dir DIR, MONGOMS_SYSTEM_BINARY, MONGOD_BIN, none.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../config/errors';

export type BinarySource =
  'mongod-bin' | 'bin-dir' | 'MONGOMS_SYSTEM_BINARY' | 'MONGOD_BIN' | 'none';

export interface ResolveBinariesInput {
  /** --mongod-bin PATH: a mongod binary; mongos is looked for beside it. */
  mongodBin?: string;
  /** --bin-dir DIR: a directory holding mongod (and mongos for sharded clusters). */
  binDir?: string;
  /** The environment to read MONGOMS_SYSTEM_BINARY / MONGOD_BIN from (usually process.env). */
  env: Readonly<Record<string, string | undefined>>;
}

export interface ResolvedBinaries {
  /** Absolute path of an executable mongod, or undefined when none was given (source 'none'). */
  mongod?: string;
  /** Absolute path of an executable mongos beside mongod, or undefined when there is none. */
  mongos?: string;
  source: BinarySource;
  /** How the user named it, for messages: "--bin-dir /opt/mongo/bin", "MONGOD_BIN=/x/mongod". */
  origin: string;
}

const EXE = process.platform === 'win32' ? '.exe' : '';

export function resolveBinaries(input: ResolveBinariesInput): ResolvedBinaries {
  const mongodBin = nonEmpty(input.mongodBin);
  const binDir = nonEmpty(input.binDir);
  if (mongodBin && binDir) {
    throw new UsageError(
      'options --mongod-bin and --bin-dir both given: use one (--bin-dir DIR for a folder holding mongod and mongos)',
    );
  }
  if (mongodBin) return fromMongodPath(mongodBin, 'mongod-bin', `option --mongod-bin ${mongodBin}`);
  if (binDir) return fromBinDir(binDir);

  const systemBinary = nonEmpty(input.env.MONGOMS_SYSTEM_BINARY);
  if (systemBinary)
    return fromMongodPath(
      systemBinary,
      'MONGOMS_SYSTEM_BINARY',
      `MONGOMS_SYSTEM_BINARY=${systemBinary}`,
    );
  const mongodEnv = nonEmpty(input.env.MONGOD_BIN);
  if (mongodEnv) return fromMongodPath(mongodEnv, 'MONGOD_BIN', `MONGOD_BIN=${mongodEnv}`);

  return {
    source: 'none',
    origin: 'no --mongod-bin, --bin-dir, MONGOMS_SYSTEM_BINARY or MONGOD_BIN',
  };
}

/** The mongos a sharded cluster needs, or a UsageError that says where it was looked for. */
export function requireMongos(binaries: ResolvedBinaries): string {
  if (binaries.mongos) return binaries.mongos;
  if (binaries.source === 'none') {
    throw new UsageError(
      'a sharded cluster needs mongod and mongos binaries: give --bin-dir DIR (a folder holding both) or --mongod-bin PATH (with mongos beside it)',
    );
  }
  const dir = path.dirname(binaries.mongod ?? '');
  throw new UsageError(
    `a sharded cluster needs mongos, but ${binaries.origin} has no executable mongos beside it (looked for ${path.join(dir, `mongos${EXE}`)}); ` +
      'give --bin-dir DIR with both mongod and mongos',
  );
}

/** The mongod every launched topology needs, or a UsageError naming the ways to give one. */
export function requireMongod(binaries: ResolvedBinaries): string {
  if (binaries.mongod) return binaries.mongod;
  throw new UsageError(
    'no mongod binary given: use --mongod-bin PATH, --bin-dir DIR or MONGOMS_SYSTEM_BINARY=/path/to/mongod (or --uri URI for an existing deployment)',
  );
}

function fromMongodPath(given: string, source: BinarySource, origin: string): ResolvedBinaries {
  const mongod = path.resolve(given);
  checkExecutableFile(mongod, origin);
  const mongos = path.join(path.dirname(mongod), `mongos${EXE}`);
  return { mongod, mongos: isExecutableFile(mongos) ? mongos : undefined, source, origin };
}

function fromBinDir(given: string): ResolvedBinaries {
  const dir = path.resolve(given);
  const origin = `option --bin-dir ${given}`;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new UsageError(`${origin}: directory ${dir} does not exist`);
  }
  if (!stat.isDirectory())
    throw new UsageError(
      `${origin}: ${dir} is not a directory (give the folder that holds mongod)`,
    );
  const mongod = path.join(dir, `mongod${EXE}`);
  if (!fs.existsSync(mongod))
    throw new UsageError(`${origin}: no mongod in ${dir} (looked for ${mongod})`);
  checkExecutableFile(mongod, origin);
  const mongos = path.join(dir, `mongos${EXE}`);
  return {
    mongod,
    mongos: isExecutableFile(mongos) ? mongos : undefined,
    source: 'bin-dir',
    origin,
  };
}

function checkExecutableFile(file: string, origin: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UsageError(`${origin}: ${file} does not exist`);
  }
  if (!stat.isFile())
    throw new UsageError(`${origin}: ${file} is not a file (give the mongod binary itself)`);
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new UsageError(
      `${origin}: ${file} is not executable (chmod +x it, or give another binary)`,
    );
  }
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}
