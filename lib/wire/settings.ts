/**
 * The wire client's settings, read from the same URI and options the driver path gets: parsed by the
 * driver's own connection-string parser (a MongoClient constructed, never connected), so both clients
 * read one URI alike. What the wire client does not do is refused here, before anything connects, as
 * a usage error naming `--driver node` (wireRefusal): SRV records, load balancers and proxies,
 * authentication other than SCRAM, compression, and read preferences other than primary.
 * `retryWrites`/`retryReads` written in the URI are kept (retriesInUri) to be recorded and told as not
 * applied: neither client retries an op (every op is a command, which the driver never retries).
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type {
  MongoClientOptions,
  MongoOptions,
  ReadConcern,
  ReadPreference,
  WriteConcern,
} from 'mongodb';
import { UsageError } from '../config/errors';
import { createClient } from '../server/connect';
import type { Credentials } from './connection';
import type { ScramMechanism } from './scram';

export interface WireSettings {
  hosts: { host: string; port: number }[];
  /** The replica set named in the URI: only its members are used. */
  replicaSet?: string;
  /** directConnection=true: the one host, whatever it is. */
  directConnection: boolean;
  credentials?: Credentials;
  tls?: TlsOptions;
  connectTimeoutMS: number;
  socketTimeoutMS?: number;
  serverSelectionTimeoutMS: number;
  appName?: string;
  /** The most connections per server (the driver's maxPoolSize). */
  maxPoolSize: number;
  readPreference: ReadPreference;
  readConcern?: ReadConcern;
  writeConcern?: WriteConcern;
}

export interface WireClientOptions {
  serverSelectionTimeoutMS: number;
  /** The most clients that send at once: the pool's size. */
  maxClients: number;
  clientOptions?: MongoClientOptions;
  /** Per-operation time limit (the socket timeout), as the driver path's socketTimeoutMS. */
  opTimeoutMS?: number;
}

const SCRAM: readonly string[] = ['SCRAM-SHA-1', 'SCRAM-SHA-256'];

const refused = (what: string) =>
  new UsageError(
    `option --driver wire: ${what} is not supported by the wire client; use --driver node`,
  );

/** Why the wire client cannot run against these options; undefined when it can. */
export function wireRefusal(o: MongoOptions): UsageError | undefined {
  if (o.srvHost) return refused(`a mongodb+srv:// URI (${o.srvHost})`);
  if (o.loadBalanced) return refused('loadBalanced=true');
  if (o.proxyHost) return refused('a SOCKS5 proxy (proxyHost)');
  const mechanism = o.credentials?.mechanism;
  if (mechanism && mechanism !== 'DEFAULT' && !SCRAM.includes(mechanism))
    return refused(`authMechanism ${mechanism} (only SCRAM-SHA-256 and SCRAM-SHA-1)`);
  const compressors = (o.compressors ?? []).filter((c) => c !== 'none');
  if (compressors.length > 0) return refused(`compression (compressors=${compressors.join(',')})`);
  if (o.readPreference && o.readPreference.mode !== 'primary')
    return refused(`readPreference ${o.readPreference.mode}`);
  return undefined;
}

/** retryWrites / retryReads as written in the URI's query string (the driver's defaults left out). */
export function retriesInUri(uri: string): { retryWrites?: boolean; retryReads?: boolean } {
  const q = uri.indexOf('?');
  if (q < 0) return {};
  const params = new URLSearchParams(uri.slice(q + 1));
  const out: { retryWrites?: boolean; retryReads?: boolean } = {};
  for (const key of ['retryWrites', 'retryReads'] as const) {
    const found = [...params.keys()].find((k) => k.toLowerCase() === key.toLowerCase());
    if (found !== undefined) out[key] = params.get(found) === 'true';
  }
  return out;
}

function tlsOptions(o: MongoOptions): TlsOptions | undefined {
  if (!o.tls) return undefined;
  const pem = o.tlsCertificateKeyFile ? readFileSync(o.tlsCertificateKeyFile) : undefined;
  // The parser keeps tlsAllowInvalidCertificates as node:tls's rejectUnauthorized, and
  // tlsAllowInvalidHostnames as a checkServerIdentity that checks nothing.
  const parsed = o as MongoOptions & {
    rejectUnauthorized?: boolean;
    checkServerIdentity?: TlsOptions['checkServerIdentity'];
  };
  const insecure =
    o.tlsAllowInvalidCertificates || o.tlsInsecure || parsed.rejectUnauthorized === false;
  return {
    ...(o.tlsCAFile ? { ca: readFileSync(o.tlsCAFile) } : {}),
    ...(pem ? { cert: pem, key: pem } : {}),
    rejectUnauthorized: !insecure,
    ...(o.tlsAllowInvalidHostnames || insecure
      ? { checkServerIdentity: () => undefined }
      : parsed.checkServerIdentity
        ? { checkServerIdentity: parsed.checkServerIdentity }
        : {}),
  };
}

/** The settings for `uri`; throws a UsageError for a bad URI or one the wire client refuses. */
export function wireSettings(uri: string, options: WireClientOptions): WireSettings {
  const { client } = createClient(uri, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
    maxClients: options.maxClients,
    clientOptions: options.clientOptions,
    opTimeoutMS: options.opTimeoutMS,
  });
  const o = client.options;
  const refusal = wireRefusal(o);
  if (refusal) throw refusal;
  const hosts = o.hosts.map((h) => ({ host: h.host ?? 'localhost', port: h.port ?? 27017 }));
  const c = o.credentials;
  const mechanism = c?.mechanism && SCRAM.includes(c.mechanism) ? c.mechanism : undefined;
  return {
    hosts,
    ...(o.replicaSet ? { replicaSet: o.replicaSet } : {}),
    directConnection: o.directConnection === true,
    ...(c && c.username
      ? {
          credentials: {
            user: c.username,
            password: c.password ?? '',
            source: c.source || 'admin',
            ...(mechanism ? { mechanism: mechanism as ScramMechanism } : {}),
          },
        }
      : {}),
    ...(o.tls ? { tls: tlsOptions(o) } : {}),
    connectTimeoutMS: o.connectTimeoutMS || options.serverSelectionTimeoutMS,
    ...(o.socketTimeoutMS ? { socketTimeoutMS: o.socketTimeoutMS } : {}),
    serverSelectionTimeoutMS: o.serverSelectionTimeoutMS,
    ...(o.appName ? { appName: o.appName } : {}),
    maxPoolSize: o.maxPoolSize || options.maxClients,
    readPreference: o.readPreference,
    ...(o.readConcern ? { readConcern: o.readConcern } : {}),
    ...(o.writeConcern ? { writeConcern: o.writeConcern } : {}),
  };
}
