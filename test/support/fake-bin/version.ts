/**
 * The server version a stand-in poses as (env MONGO_BENCH_FAKE_VERSION, default 7.0.14) and the
 * behaviour that depends on it. Each threshold cites where it comes from; see docs/testing.md.
 */

export interface ServerVersion {
  text: string;
  major: number;
  minor: number;
  patch: number;
}

export const DEFAULT_FAKE_VERSION = '7.0.14';

/**
 * maxWireVersion per release series: src/mongo/db/wire_version.h (WireVersion enum:
 * RESUMABLE_INITIAL_SYNC = 9 for 4.4, WIRE_VERSION_50 = 13, WIRE_VERSION_60 = 17,
 * WIRE_VERSION_70 = 21, WIRE_VERSION_80 = 25).
 */
const WIRE_VERSION_BY_SERIES: Record<string, number> = {
  '4.4': 9,
  '5.0': 13,
  '6.0': 17,
  '7.0': 21,
  '8.0': 25,
};

export function parseServerVersion(text: string): ServerVersion {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  if (!match)
    throw new Error(`MONGO_BENCH_FAKE_VERSION=${text}: expected MAJOR.MINOR.PATCH, e.g. 7.0.14`);
  const version = {
    text: text.trim(),
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
  };
  if (WIRE_VERSION_BY_SERIES[`${version.major}.${version.minor}`] === undefined) {
    throw new Error(
      `MONGO_BENCH_FAKE_VERSION=${text}: the stand-ins model ${Object.keys(WIRE_VERSION_BY_SERIES).join(', ')} only`,
    );
  }
  return version;
}

export function fakeVersionFromEnv(env: NodeJS.ProcessEnv = process.env): ServerVersion {
  return parseServerVersion(env.MONGO_BENCH_FAKE_VERSION ?? DEFAULT_FAKE_VERSION);
}

/** -1, 0 or 1 as `v` is below, equal to or above `than` ("6.0.3"). */
export function compareVersion(v: ServerVersion, than: string): number {
  const [major, minor, patch] = than.split('.').map(Number);
  return (
    Math.sign(v.major - major) || Math.sign(v.minor - minor) || Math.sign(v.patch - (patch ?? 0))
  );
}

export const atLeast = (v: ServerVersion, than: string): boolean => compareVersion(v, than) >= 0;

export function maxWireVersion(v: ServerVersion): number {
  return WIRE_VERSION_BY_SERIES[`${v.major}.${v.minor}`];
}

export interface VersionFeatures {
  /** `hello` exists from 4.4.2 (SERVER-47223, backported to 4.4.2); before, only `isMaster`. */
  hello: boolean;
  /** config.databases has `partitioned` before 6.0 (docs: 6.0 compatibility notes, "partitioned" removed). */
  partitionedField: boolean;
  /** config.chunks is keyed by collection uuid from 5.0, by ns before (docs: 5.0 release notes, config.chunks). */
  chunksByUuid: boolean;
  /** Quiesce mode on a signalled shutdown, from 5.0 (SERVER-46958 / mongod_main.cpp shutdownTask). */
  quiesce: boolean;
  /** configureCollectionBalancing exists from 6.0 (src/mongo/s/commands/cluster_configure_collection_balancing.cpp). */
  configureCollectionBalancing: boolean;
  /** From 6.0.3 the balancer no longer splits by size and migrations are range-based (docs: 6.0.3 release notes). */
  balancerRacesManualMoveChunk: boolean;
  /** --journal / --nojournal were removed in 6.1 (docs: 6.1 release notes "journaling is always enabled"). */
  journalOptions: boolean;
  /** NotWritablePrimary was named NotMaster / "not master" before 5.0 (src/mongo/base/error_codes.yml, code 10107). */
  notWritablePrimaryName: { codeName: string; errmsg: string };
}

export function features(v: ServerVersion): VersionFeatures {
  return {
    hello: atLeast(v, '4.4.2'),
    partitionedField: !atLeast(v, '6.0.0'),
    chunksByUuid: atLeast(v, '5.0.0'),
    quiesce: atLeast(v, '5.0.0'),
    configureCollectionBalancing: atLeast(v, '6.0.0'),
    balancerRacesManualMoveChunk: !atLeast(v, '6.0.3'),
    journalOptions: !atLeast(v, '6.1.0'),
    notWritablePrimaryName: atLeast(v, '5.0.0')
      ? { codeName: 'NotWritablePrimary', errmsg: 'not primary' }
      : { codeName: 'NotMaster', errmsg: 'not master' },
  };
}
