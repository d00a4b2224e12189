import { UsageError } from '../config/errors';

/** A MongoDB server version as the user gives it: "7.0" or "6.0.3". */
export interface ServerVersion {
  major: number;
  minor: number;
  patch: number;
  text: string;
}

export function parseServerVersion(text: string, flag = '--server-version'): ServerVersion {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new UsageError(`option ${flag}: expected a version like 7.0 or 6.0.3, got "${text}"`);
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  if (major < 3 || (major === 3 && minor < 6)) {
    throw new UsageError(
      `option ${flag}: ${text} is older than 3.6; mongo-bench plans replica-set shards and config servers, which need 3.6 or later`,
    );
  }
  return { major, minor, patch, text: text.trim() };
}

/** True when `v` is at least major.minor.patch. */
export function atLeast(v: ServerVersion, major: number, minor = 0, patch = 0): boolean {
  if (v.major !== major) return v.major > major;
  if (v.minor !== minor) return v.minor > minor;
  return v.patch >= patch;
}

/** What changes with the server version, in one place so the plan and the comments agree. */
export function versionFeatures(v: ServerVersion) {
  return {
    /** `balancerStop` exists since 4.2; older servers use config.settings {_id: "balancer", stopped: true}. */
    balancerStopCommand: atLeast(v, 4, 2),
    /** enableSharding's `primaryShard` field: 4.2.2 (and 4.0.14); "4.2" alone may be 4.2.0, so ask for 4.4. */
    primaryShardField: atLeast(v, 4, 4) || atLeast(v, 4, 2, 2),
    /** The chunk auto-splitter is gone since 6.0.3: chunks only split when someone splits them. */
    autoSplit: !atLeast(v, 6, 0, 3),
    /** enableSharding only creates the database since 6.0 (sharding a collection no longer needs it). */
    enableShardingOptional: atLeast(v, 6, 0),
    /** sh.shardAndDistributeCollection(): shard and spread the chunks in one call, new in 8.0. */
    shardAndDistribute: atLeast(v, 8, 0),
  };
}
