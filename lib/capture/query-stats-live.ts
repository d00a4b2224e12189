/**
 * `$queryStats` from a live server: `{aggregate: 1, pipeline: [{$queryStats: {}}], cursor: {}}` on
 * `admin` (the stage must be first and run there: the Manual's $queryStats page), once (cumulative
 * counts) or twice `windowSeconds` apart (their difference). The server refuses the stage where it is
 * not enabled; the error names what is needed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BSON, Document, MongoClient, MongoClientOptions, MongoServerError } from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import { redactUri } from '../security/redact';
import { QueryStatsSnapshot, parseQueryStatsText } from './query-stats';
import { messageOf } from '../common/values';
import { clientTimeouts } from '../common/client-timeouts';

/**
 * What the server's refusal means. QueryFeatureNotAllowed (224): the stage exists but is off (the
 * server registers it behind featureFlagQueryStats: REGISTER_DOCUMENT_SOURCE_WITH_FEATURE_FLAG in
 * src/mongo/db/pipeline/document_source_query_stats.cpp; jstests/noPassthrough/queryStats/
 * query_stats_feature_flag.js expects 224 with the flag off); 40324 (unrecognized stage): a server
 * without it. Which release turns the flag on by default was not read in the source. The Manual's
 * $queryStats page says the stage is "enabled on deployments hosted on MongoDB Atlas with a cluster
 * tier of at least M10"; its 6.0 edition marks it "New in version 6.0.7", its 7.0 edition "New in
 * version 7.0.12 (Also available starting in 6.0.7)". Unauthorized (13): the user lacks
 * queryStatsRead (the clusterMonitor role has it).
 */
export function queryStatsRefusal(err: MongoServerError): string {
  const name = err.codeName ?? String(err.code);
  switch (err.code) {
    case 224:
      return `${name}: the server has the stage but does not allow it in its configuration. The Manual says $queryStats is enabled on MongoDB Atlas clusters of tier M10 and up; elsewhere the server's featureFlagQueryStats decides`;
    case 40324:
      return `${name}: this server has no $queryStats stage (the Manual lists it as new in 6.0.7 and in 7.0.12, enabled on MongoDB Atlas clusters of tier M10 and up; a server that is not MongoDB may not have it)`;
    case 13:
      return `${name}: the user needs the queryStatsRead privilege (the clusterMonitor role on admin has it)`;
    default:
      return name;
  }
}

async function snapshot(
  client: MongoClient,
  label: string,
  name: string,
): Promise<QueryStatsSnapshot> {
  const docs = await client
    .db('admin')
    .aggregate<Document>([{ $queryStats: {} }])
    .toArray();
  // Relaxed Extended JSON: the same reader as a saved file.
  const text = docs
    .map((d) => JSON.stringify(BSON.EJSON.serialize(d, { relaxed: true })))
    .join('\n');
  // The label names the host: workload.json keeps the stage's name and the count only.
  const record = { name, documents: docs.length };
  if (docs.length === 0) return { source: label, entries: [], skips: [], recordsRead: 0, record };
  return { ...parseQueryStatsText(text, label), record };
}

export interface LiveQueryStatsOptions {
  /** Two snapshots this many seconds apart; without it one (cumulative). */
  windowSeconds?: number;
  clientOptions?: MongoClientOptions;
  onProgress?: (text: string) => void;
}

export async function readQueryStatsLive(
  uri: string,
  options: LiveQueryStatsOptions = {},
): Promise<QueryStatsSnapshot[]> {
  const where = redactUri(uri);
  const client = new MongoClient(uri, { ...clientTimeouts(), ...options.clientOptions });
  const snapshots: QueryStatsSnapshot[] = [];
  try {
    await client.connect();
    snapshots.push(await snapshot(client, `${where} $queryStats`, '$queryStats'));
    if (options.windowSeconds !== undefined) {
      options.onProgress?.(
        `first $queryStats snapshot: ${snapshots[0].recordsRead} entries; the second in ${options.windowSeconds} s`,
      );
      await sleep(options.windowSeconds * 1000);
      snapshots.push(
        await snapshot(
          client,
          `${where} $queryStats +${options.windowSeconds}s`,
          `$queryStats +${options.windowSeconds}s`,
        ),
      );
      // Without asOf in the output, the window is the time asked for.
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const msg = messageOf(err).replace(uri, where);
    if (err instanceof MongoServerError) {
      throw new RunError(
        `capture: ${where} refused $queryStats: ${msg} (${queryStatsRefusal(err)}); capture from its logs or profiler instead (docs/capture.md)`,
      );
    }
    throw new RunError(`capture: cannot read $queryStats from ${where}: ${msg}`);
  } finally {
    await client.close();
  }
  const last = snapshots[snapshots.length - 1];
  if (last.recordsRead === 0) {
    throw new UsageError(
      `capture: ${where}: $queryStats returned no entry: the server collects query stats only while allowed (internalQueryStatsRateLimit; the Manual: Atlas clusters of tier M10 and up), and only for the commands its release collects; run the workload, then capture again (docs/capture.md)`,
    );
  }
  return snapshots;
}
