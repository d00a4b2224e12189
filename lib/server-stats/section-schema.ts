/** Zod mirror of the result's `server` section (section.ts); lib/report/result-schema.ts checks the two agree. */
import { z } from 'zod';

const opCounts = z.object({
  query: z.number().optional(),
  insert: z.number().optional(),
  update: z.number().optional(),
  delete: z.number().optional(),
  getmore: z.number().optional(),
  command: z.number().optional(),
});

const role = z.enum(['primary', 'secondary', 'mongos', 'standalone', 'other']);

const point = z.object({
  t: z.number(),
  gap: z.literal(true).optional(),
  seconds: z.number().optional(),
  role: role.optional(),
  opsPerSec: opCounts.optional(),
  connections: z.number().optional(),
  queuedReaders: z.number().optional(),
  queuedWriters: z.number().optional(),
  readTicketsOut: z.number().optional(),
  writeTicketsOut: z.number().optional(),
  cacheUsedShare: z.number().optional(),
  cacheDirtyShare: z.number().optional(),
  pagesReadPerSec: z.number().optional(),
  bytesInPerSec: z.number().optional(),
  bytesOutPerSec: z.number().optional(),
  lagSeconds: z.record(z.string(), z.number()).optional(),
});

export const serverSectionSchema = z.object({
  intervalMs: z.number(),
  startedAt: z.string(),
  processes: z.array(z.object({ id: z.string(), kind: z.enum(['mongos', 'mongod']), shard: z.string().optional(), set: z.string().optional() })),
  notes: z.array(z.string()),
  series: z.record(z.string(), z.array(point)),
  windows: z.array(
    z.object({
      clients: z.number(),
      trial: z.number(),
      open: z.number(),
      close: z.number(),
      counted: z.record(z.string(), opCounts.nullable()),
      roles: z.record(z.string(), role),
      samplerCommands: z.record(z.string(), z.number()),
    }),
  ),
  checks: z.array(
    z.object({
      clients: z.number(),
      status: z.enum(['ok', 'gap', 'unchecked']),
      counted: z.string(),
      serverOps: z.number().nullable(),
      clientOps: z.number(),
      difference: z.number().nullable(),
      allowance: z.number(),
      note: z.string().optional(),
    }),
  ),
});
