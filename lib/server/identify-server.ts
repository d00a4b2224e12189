/**
 * Which product answers on the wire: MongoDB (Community or Enterprise), Percona Server for MongoDB,
 * FerretDB, the DocumentDB gateway (pg_documentdb), Amazon DocumentDB, Azure Cosmos DB for MongoDB, or
 * a test double. Each of them answers
 * `buildInfo.version` with a MongoDB version (FerretDB 1.24.2 says 7.0.42), so that field alone names
 * nothing: every rule below keys on a field or a host name the product itself documents, cites where,
 * and leaves its evidence in the result. Plain data in, plain data out: the caller runs the commands.
 */
import type { ServerProduct } from '../result';

export interface ServerAnswers {
  /** The connection string (only its first host name is read). */
  uri: string;
  buildInfo: Record<string, unknown>;
  /** Undefined when the command failed (not permitted, not implemented). */
  serverStatus?: Record<string, unknown>;
  /** The hello (or isMaster) reply, when read. */
  hello?: Record<string, unknown>;
  /** The error message of `{getParameter: 'foo'}` (mongosh's probe), when it failed; undefined when it succeeded or was not sent. */
  getParameterError?: string;
  /** The error message of `{getCmdLineOpts: 1}`, when it failed; undefined when it succeeded or was not sent. */
  getCmdLineOptsError?: string;
  /** The user said the server is a test double (--test-double). */
  declaredTestDouble?: boolean;
}

/** The probes identifyServer reads besides buildInfo, serverStatus and hello: what a caller sends to fill ServerAnswers. */
export const IDENTIFY_PROBES = {
  getParameter: { getParameter: 'foo' },
  getCmdLineOpts: { getCmdLineOpts: 1 },
} as const;

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.length > 0 ? v : undefined;

/** "v1.24.2" -> "1.24.2" */
const bare = (version: string): string => version.replace(/^v(?=\d)/, '');

/** The first host name of a connection string, lower case ('' when it has none). */
export function firstHostName(uri: string): string {
  const afterScheme = uri.replace(/^mongodb(\+srv)?:\/\//i, '');
  const authority = afterScheme.split(/[/?]/)[0].split('@').pop() ?? '';
  const host = authority.split(',')[0];
  return (host.startsWith('[') ? host.slice(1).split(']')[0] : host.split(':')[0]).toLowerCase();
}

/**
 * Host names of the managed services, as mongosh and Compass tell them apart (mongodb-js/mongodb-build-info,
 * src/index.ts: COSMOS_DB_REGEX, DOCUMENT_DB_REGEX). Neither service documents a buildInfo field that
 * names it; both document these endpoints (Azure: "<account>.mongo.cosmos.azure.com"; AWS:
 * "<cluster>.cluster-<id>.<region>.docdb.amazonaws.com", elastic clusters "docdb-elastic.amazonaws.com").
 */
const COSMOS_DB_HOST = /\.cosmos\.azure\.com$/i;
const DOCUMENT_DB_HOST = /docdb(-elastic)?\.amazonaws\.com$/i;

function product(p: Omit<ServerProduct, 'label'>): ServerProduct {
  const own = p.version
    ? `${p.name}${p.edition ? ` ${p.edition}` : ''} ${p.version}`
    : `${p.name}${p.edition ? ` ${p.edition}` : ''}`;
  const reports =
    p.reportedMongoDBVersion && p.name !== 'MongoDB'
      ? `, reports MongoDB ${p.reportedMongoDBVersion}`
      : '';
  const double = p.testDouble ? ' (test double)' : '';
  return { ...p, label: `${own}${double}${reports}` };
}

export function identifyServer(answers: ServerAnswers): ServerProduct {
  const { buildInfo, serverStatus } = answers;
  const reported = str(buildInfo.version);
  const base = reported ? { reportedMongoDBVersion: reported } : {};
  const host = firstHostName(answers.uri);

  // mongo-java-server (de.bwaldvogel, the tests' CRUD server) runs in a JVM: its serverStatus names the
  // process "java" (bwaldvogel/mongo-java-server, de.bwaldvogel.mongo.backend.AbstractMongoBackend,
  // getServerStatus: `process: "java"`), where mongod says "mongod" and mongos "mongos".
  if (str(serverStatus?.process) === 'java') {
    return product({
      name: 'mongo-java-server',
      ...base,
      testDouble: true,
      evidence: ['serverStatus.process is "java" (mongo-java-server runs in a JVM)'],
    });
  }

  // FerretDB adds its own version to buildInfo: `ferretdbVersion` in 1.x (FerretDB/FerretDB,
  // internal/handler/commoncommands/msg_buildinfo.go, MsgBuildInfo: "our extensions"), a `ferretdb`
  // document in 2.x (the key mongodb-js/mongodb-build-info's identifyServerName checks).
  const ferret1 = str(buildInfo.ferretdbVersion);
  const ferret2 = buildInfo.ferretdb;
  if (ferret1 || (typeof ferret2 === 'object' && ferret2 !== null)) {
    const version = ferret1 ?? str((ferret2 as Record<string, unknown>).version);
    return product({
      name: 'FerretDB',
      ...(version ? { version: bare(version) } : {}),
      ...base,
      testDouble: answers.declaredTestDouble === true,
      evidence: [
        ferret1
          ? `buildInfo.ferretdbVersion is "${ferret1}"`
          : 'buildInfo has a "ferretdb" document',
      ],
    });
  }

  // Percona: "check the value of the psmdbVersion key in the output of the buildInfo database command.
  // If this key does not exist, Percona Server for MongoDB is not installed" (docs.percona.com,
  // percona-server-for-mongodb FAQ; added in 3.6.11-3.1 / 4.0.6-3, PSMDB-216).
  const psmdb = str(buildInfo.psmdbVersion);
  if (psmdb) {
    return product({
      name: 'Percona Server for MongoDB',
      version: psmdb,
      ...base,
      testDouble: answers.declaredTestDouble === true,
      evidence: [`buildInfo.psmdbVersion is "${psmdb}"`],
    });
  }

  // Microsoft's DocumentDB gateway (pg_documentdb, on PostgreSQL; FerretDB 2.x builds on it): a
  // getParameter it cannot serve fails in its documentdb_api schema (mongodb-js/devtools-shared,
  // packages/mongodb-build-info src/index.ts identifyServerName: `getParameter: 'foo'` and
  // /documentdb_api/ in the error, "pg_documentdb"); its hello carries `internal.documentdb_versions`
  // (documentdb/documentdb pg_documentdb_gw src/processor/ismaster.rs `"internal": topology()`, filled
  // by src/configuration/pg_configuration.rs load_topology). Its buildInfo has no gitVersion.
  const internal =
    typeof answers.hello?.internal === 'object' && answers.hello.internal !== null
      ? (answers.hello.internal as Record<string, unknown>)
      : undefined;
  const documentdbApi =
    answers.getParameterError !== undefined && /documentdb_api/.test(answers.getParameterError);
  if (documentdbApi || internal?.documentdb_versions !== undefined) {
    const kind = str(internal?.kind);
    return product({
      name: 'DocumentDB (pg_documentdb)',
      ...(kind ? { edition: kind } : {}),
      ...base,
      testDouble: answers.declaredTestDouble === true,
      evidence: [
        ...(documentdbApi
          ? ['the getParameter error names documentdb_api (the pg_documentdb extension)']
          : []),
        ...(internal?.documentdb_versions !== undefined
          ? [
              `hello.internal.documentdb_versions is ${JSON.stringify(internal.documentdb_versions)}`,
            ]
          : []),
      ],
    });
  }

  if (COSMOS_DB_HOST.test(host)) {
    return product({
      name: 'Azure Cosmos DB for MongoDB',
      ...base,
      testDouble: false,
      evidence: [`host ${host} is an Azure Cosmos DB endpoint (*.cosmos.azure.com)`],
    });
  }
  if (DOCUMENT_DB_HOST.test(host)) {
    return product({
      name: 'Amazon DocumentDB',
      ...base,
      testDouble: false,
      evidence: [`host ${host} is an Amazon DocumentDB endpoint (*.docdb.amazonaws.com)`],
    });
  }

  // Behind a tunnel or a private endpoint (a localhost or IP host) the host rules above miss them.
  // Azure Cosmos DB for MongoDB (RU) answers buildInfo with `_t: "BuildInfoResponse"` and a 40-hex
  // gitVersion; Amazon DocumentDB answers getCmdLineOpts with an error saying "not supported"
  // ("Feature not supported: getCmdLineOpts", code 303). Both are the checks MongoDB's own legacy shell
  // made (mongodb/mongo src/mongo/shell/utils.js, nonGenuineMongoDBCheck) and mongodb-build-info 1.x's
  // getGenuineMongoDB (with those two replies as its test fixtures, COSMOSDB_BUILD_INFO and
  // DOCUMENTDB_CMD_LINE_OPTS). Neither product documents them as an interface: a server that changed
  // them would fall through to "unidentified" (no gitVersion) or, with a commit-like gitVersion, to MongoDB.
  if (Object.prototype.hasOwnProperty.call(buildInfo, '_t')) {
    return product({
      name: 'Azure Cosmos DB for MongoDB',
      ...base,
      testDouble: false,
      evidence: [`buildInfo has "_t" (${JSON.stringify(buildInfo._t)}), as Cosmos DB answers it`],
    });
  }
  if (
    answers.getCmdLineOptsError !== undefined &&
    /not supported/i.test(answers.getCmdLineOptsError)
  ) {
    return product({
      name: 'Amazon DocumentDB',
      ...base,
      testDouble: false,
      evidence: [
        `getCmdLineOpts failed with "${answers.getCmdLineOptsError.slice(0, 120)}", as Amazon DocumentDB answers it`,
      ],
    });
  }

  if (answers.declaredTestDouble) {
    return product({
      name: 'test double',
      ...base,
      testDouble: true,
      evidence: ['declared a test double (--test-double)'],
    });
  }

  // MongoDB itself: buildInfo.gitVersion is the commit it was built from (40 hex digits; mongodb/mongo,
  // src/mongo/util/version.cpp, VersionInfoInterface::appendBuildInfo), and Enterprise lists the module
  // "enterprise" in buildInfo.modules (MongoDB manual, buildInfo: "modules"; one of the two rules of
  // mongosh's mongodb-build-info isEnterprise: its other, a gitVersion naming "enterprise", cannot
  // hold for the 40-hex commit required here).
  const gitVersion = str(buildInfo.gitVersion);
  if (gitVersion && /^[0-9a-f]{40}$/i.test(gitVersion) && reported) {
    const modules = Array.isArray(buildInfo.modules)
      ? buildInfo.modules.filter((m): m is string => typeof m === 'string')
      : [];
    const enterprise = modules.includes('enterprise');
    return product({
      name: 'MongoDB',
      edition: enterprise ? 'Enterprise' : 'Community',
      version: reported,
      ...base,
      testDouble: false,
      evidence: [
        `buildInfo.gitVersion is a commit (${gitVersion.slice(0, 12)}...) and no other product's field or host matched`,
        enterprise
          ? 'buildInfo.modules includes "enterprise"'
          : `buildInfo.modules ${modules.length > 0 ? `is [${modules.join(', ')}]` : 'is empty'}: Community`,
      ],
    });
  }

  // Something else that speaks the protocol: never called MongoDB on a version number alone.
  return product({
    name: 'unidentified server',
    ...base,
    testDouble: false,
    evidence: [
      gitVersion
        ? `buildInfo.gitVersion "${gitVersion}" is not a commit`
        : 'buildInfo has no gitVersion',
      'no product field or host matched',
    ],
  });
}
