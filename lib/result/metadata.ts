/** The result document's description of what was measured and from where: `target` and `environment`. */
import { z } from 'zod';

/**
 * The product that answered (lib/server/identify-server.ts): every label names it as it is, never
 * "MongoDB" for a server that only reports a MongoDB version.
 */
export const serverProductSchema = z.object({
  /** 'MongoDB', 'Percona Server for MongoDB', 'FerretDB', 'DocumentDB (pg_documentdb)', 'Amazon DocumentDB', 'Azure Cosmos DB for MongoDB', a test double's own name, or 'unidentified server'. */
  name: z.string(),
  /** MongoDB: 'Community' or 'Enterprise'; DocumentDB (pg_documentdb): its hello.internal.kind when given. */
  edition: z.string().optional(),
  /** The product's own version (FerretDB's, Percona's; MongoDB's is its buildInfo.version). */
  version: z.string().optional(),
  /** buildInfo.version: the MongoDB version the server says it is (or is compatible with). */
  reportedMongoDBVersion: z.string().optional(),
  /** e.g. "FerretDB 1.24.2, reports MongoDB 7.0.42"; "MongoDB Community 7.0.14". */
  label: z.string(),
  testDouble: z.boolean(),
  /** What the identification rests on, one fact each (e.g. 'buildInfo.ferretdbVersion is "v1.24.2"'). */
  evidence: z.array(z.string()),
});
export type ServerProduct = z.infer<typeof serverProductSchema>;

/** What one server process said about itself (the one the run connected to; each sampled one when known). */
export const serverProcessFactsSchema = z.object({
  /** host:port as the driver knows it. */
  host: z.string(),
  version: z.string().optional(),
  gitVersion: z.string().optional(),
  /** serverStatus.storageEngine.name, e.g. "wiredTiger". */
  storageEngine: z.string().optional(),
  featureCompatibilityVersion: z.string().optional(),
  /** serverStatus.wiredTiger.cache["maximum bytes configured"]. */
  cacheBytes: z.number().optional(),
  /** The options that shape performance, from getCmdLineOpts.parsed (storage.wiredTiger..., journal, ...). */
  options: z.record(z.string(), z.unknown()).optional(),
  /** hostInfo: the server's machine. */
  hostInfo: z
    .object({
      cores: z.number().optional(),
      /** hostInfo.system.memSizeMB: the host's memory. */
      memoryMB: z.number().optional(),
      /** hostInfo.system.memLimitMB when below memSizeMB: the memory the server may use (e.g. a container's limit). */
      memoryLimitMB: z.number().optional(),
      os: z.string().optional(),
      cpuArch: z.string().optional(),
    })
    .optional(),
  /** Each fact the server did not give or the user may not read, with why (e.g. 'hostInfo: not authorized (needs clusterMonitor)'). */
  unavailable: z.array(z.string()).optional(),
});
export type ServerProcessFacts = z.infer<typeof serverProcessFactsSchema>;

/** The result's `target`: the server measured. */
export const targetSectionSchema = z.object({
  /** Always redacted: no credentials. */
  uri: z.string(),
  serverVersion: z.string().optional(),
  topology: z.string(),
  /** True when the server is a test double (never present its numbers as MongoDB numbers). */
  testDouble: z.boolean().optional(),
  /** The product that answered, and why it is named so (absent in results written before it was recorded). */
  product: serverProductSchema.optional(),
  /** What the server process(es) said about themselves: version, storage engine, cache, options, host. */
  processes: z.array(serverProcessFactsSchema).optional(),
  /** serverStatus.storageEngine.name of the server connected to (absent: not reported). */
  storageEngine: z.string().optional(),
});

/** The machine that generated the load, so a reader can repeat the run. */
export const loadMachineSchema = z.object({
  cpuModel: z.string(),
  cores: z.number(),
  memoryBytes: z.number(),
  os: z.string(),
  node: z.string(),
  driver: z.string(),
  mongoBench: z.string(),
  /** The git commit of a mongo-bench checkout it ran from (absent: an installed package). */
  gitCommit: z.string().optional(),
});
export type LoadMachine = z.infer<typeof loadMachineSchema>;
