/**
 * The server named as it is (issue 22). The rules on the answers each product documents, and a run as
 * a user makes it against a server that answers as FerretDB 1.24.2 does (the recording server given
 * FerretDB's buildInfo: `version` 7.0.42 plus `ferretdbVersion`, as FerretDB's
 * internal/handler/commoncommands/msg_buildinfo.go builds it): results.json, summary.md and every
 * chart's subtitle name FerretDB, never MongoDB; `compare` against a MongoDB result warns.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identifyServer, firstHostName } from '../../lib/server/identify-server';
import { readProcessFacts, performanceOptions } from '../../lib/server/server-facts';
import { describeLoadMachine, gitCommit } from '../../lib/server/load-machine';
import { ResultDocument, resultDocumentSchema } from '../../lib/result';
import { buildCharts } from '../../lib/report/chart-registry';
import { compareResults } from '../../lib/compare';
import { runCli } from '../support/cli';
import { RecordingServer, startRecordingServer } from '../support/recording-server';

const MONGOD_BUILD_INFO = {
  version: '7.0.14',
  gitVersion: 'ce59cfc6a3c5e5c067dca0d30697edd68d4f5188',
  modules: [],
  ok: 1,
};
const FERRETDB_BUILD_INFO = {
  version: '7.0.42',
  gitVersion: '0bb4b1c5f5fa4c8b7d0a16f4f2d3d8c1e9a4a7b2',
  modules: [],
  sysInfo: 'deprecated',
  versionArray: [7, 0, 42, 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: 16777216,
  buildEnvironment: {},
  ferretdbVersion: 'v1.24.2',
  ferretdbFeatures: { aggregationStages: ['$match'] },
  ok: 1,
};

describe('identifyServer: each product by the fields it documents', () => {
  const uri = 'mongodb://127.0.0.1:27017';

  it('MongoDB Community and Enterprise', () => {
    expect(
      identifyServer({ uri, buildInfo: MONGOD_BUILD_INFO, serverStatus: { process: 'mongod' } }),
    ).toMatchObject({
      name: 'MongoDB',
      edition: 'Community',
      version: '7.0.14',
      label: 'MongoDB Community 7.0.14',
      testDouble: false,
    });
    const enterprise = identifyServer({
      uri,
      buildInfo: { ...MONGOD_BUILD_INFO, modules: ['enterprise'] },
    });
    expect(enterprise).toMatchObject({
      name: 'MongoDB',
      edition: 'Enterprise',
      label: 'MongoDB Enterprise 7.0.14',
    });
    expect(enterprise.evidence.join(' ')).toMatch(/modules includes "enterprise"/);
  });

  it('FerretDB 1.x (ferretdbVersion) and 2.x (a ferretdb document): its own version beside the MongoDB version it reports', () => {
    const v1 = identifyServer({ uri, buildInfo: FERRETDB_BUILD_INFO, serverStatus: {} });
    expect(v1).toMatchObject({
      name: 'FerretDB',
      version: '1.24.2',
      reportedMongoDBVersion: '7.0.42',
      label: 'FerretDB 1.24.2, reports MongoDB 7.0.42',
      testDouble: false,
    });
    expect(v1.evidence).toEqual(['buildInfo.ferretdbVersion is "v1.24.2"']);
    const v2 = identifyServer({
      uri,
      buildInfo: { ...MONGOD_BUILD_INFO, ferretdb: { version: 'v2.5.0' } },
    });
    expect(v2).toMatchObject({
      name: 'FerretDB',
      version: '2.5.0',
      label: 'FerretDB 2.5.0, reports MongoDB 7.0.14',
    });
  });

  it('Percona Server for MongoDB by psmdbVersion', () => {
    expect(
      identifyServer({
        uri,
        buildInfo: { ...MONGOD_BUILD_INFO, version: '7.0.12-7', psmdbVersion: '7.0.12-7' },
      }),
    ).toMatchObject({
      name: 'Percona Server for MongoDB',
      version: '7.0.12-7',
      label: 'Percona Server for MongoDB 7.0.12-7, reports MongoDB 7.0.12-7',
    });
  });

  it('Amazon DocumentDB and Azure Cosmos DB by their endpoints, whatever buildInfo says', () => {
    const docdb = identifyServer({
      uri: 'mongodb://user:pw@bench.cluster-c1.eu-west-1.docdb.amazonaws.com:27017/?tls=true',
      buildInfo: { version: '5.0.0', ok: 1 },
    });
    expect(docdb).toMatchObject({
      name: 'Amazon DocumentDB',
      label: 'Amazon DocumentDB, reports MongoDB 5.0.0',
      testDouble: false,
    });
    const cosmos = identifyServer({
      uri: 'mongodb://acct:key@acct.mongo.cosmos.azure.com:10255/?ssl=true',
      buildInfo: { ...MONGOD_BUILD_INFO, version: '4.2.0' },
    });
    expect(cosmos).toMatchObject({
      name: 'Azure Cosmos DB for MongoDB',
      label: 'Azure Cosmos DB for MongoDB, reports MongoDB 4.2.0',
    });
    expect(firstHostName('mongodb+srv://u:p@Cluster0.abc.mongodb.net/db')).toBe(
      'cluster0.abc.mongodb.net',
    );
    expect(firstHostName('mongodb://[::1]:27017,h2:1')).toBe('::1');
  });

  it('test doubles: mongo-java-server by serverStatus.process "java"; --test-double; never MongoDB without a commit in gitVersion', () => {
    expect(
      identifyServer({
        uri,
        buildInfo: { version: '6.0.0', ok: 1 },
        serverStatus: { process: 'java' },
      }),
    ).toMatchObject({
      name: 'mongo-java-server',
      testDouble: true,
      label: 'mongo-java-server (test double), reports MongoDB 6.0.0',
    });
    expect(
      identifyServer({ uri, buildInfo: MONGOD_BUILD_INFO, declaredTestDouble: true }),
    ).toMatchObject({ name: 'test double', testDouble: true });
    expect(
      identifyServer({
        uri,
        buildInfo: { version: '7.0.0', gitVersion: 'recording-server', ok: 1 },
      }),
    ).toMatchObject({
      name: 'unidentified server',
      label: 'unidentified server, reports MongoDB 7.0.0',
      testDouble: false,
    });
  });
});

describe('server process facts and the load machine', () => {
  it('reads version, engine, cache, FCV, the options that shape performance and hostInfo; says why a fact is missing', async () => {
    const replies: Record<string, Record<string, unknown> | Error> = {
      getParameter: { featureCompatibilityVersion: { version: '7.0' }, ok: 1 },
      getCmdLineOpts: {
        parsed: {
          storage: {
            dbPath: '/data',
            wiredTiger: { engineConfig: { cacheSizeGB: 1.5, journalCompressor: 'snappy' } },
          },
          security: { keyFile: '/k' },
          net: { compression: { compressors: 'zstd' } },
        },
        ok: 1,
      },
      hostInfo: Object.assign(
        new Error('not authorized on admin to execute command { hostInfo: 1 }'),
        { code: 13, codeName: 'Unauthorized' },
      ),
    };
    const facts = await readProcessFacts(
      async (command) => {
        const reply = replies[Object.keys(command)[0]];
        if (reply instanceof Error) throw reply;
        return reply;
      },
      'db1:27017',
      {
        buildInfo: MONGOD_BUILD_INFO,
        serverStatus: {
          storageEngine: { name: 'wiredTiger' },
          wiredTiger: { cache: { 'maximum bytes configured': 1610612736 } },
        },
      },
    );
    expect(facts).toEqual({
      host: 'db1:27017',
      version: '7.0.14',
      gitVersion: MONGOD_BUILD_INFO.gitVersion,
      storageEngine: 'wiredTiger',
      cacheBytes: 1610612736,
      featureCompatibilityVersion: '7.0',
      options: {
        storage: {
          wiredTiger: { engineConfig: { cacheSizeGB: 1.5, journalCompressor: 'snappy' } },
        },
        net: { compression: { compressors: 'zstd' } },
      },
      unavailable: ['hostInfo: not authorized (needs the clusterMonitor role)'],
    });
    expect(performanceOptions({ security: { keyFile: '/k' } })).toBeUndefined();
  });

  it('the load machine: cores, memory, versions, and the commit of this checkout', () => {
    const m = describeLoadMachine();
    expect(m.cores).toBeGreaterThan(0);
    expect(m.memoryBytes).toBeGreaterThan(0);
    expect(m.node).toBe(process.version);
    expect(m.driver).toMatch(/^\d+\.\d+\.\d+/);
    expect(m.gitCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(gitCommit(tmpdir())).toBeUndefined();
  });
});

describe('a run against a server that answers as FerretDB does', () => {
  let server: RecordingServer;
  let dir: string;
  beforeAll(async () => {
    server = await startRecordingServer({ handlers: { buildInfo: () => FERRETDB_BUILD_INFO } });
    dir = mkdtempSync(join(tmpdir(), 'mb-ferret-'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names FerretDB in results.json, summary.md and every chart subtitle; compare with MongoDB warns', async () => {
    const out = join(dir, 'run');
    const run = await runCli([
      'run',
      '--uri',
      server.uri,
      '--clients',
      '1,2',
      '--seconds',
      '1',
      '--warmup',
      '0',
      '--no-load',
      '--no-server-stats',
      '--out',
      out,
      '--quiet',
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: expect.any(String) as string,
    });
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultDocument;
    expect(resultDocumentSchema.safeParse(result).success).toBe(true);
    expect(result.target.product).toMatchObject({
      name: 'FerretDB',
      version: '1.24.2',
      reportedMongoDBVersion: '7.0.42',
      label: 'FerretDB 1.24.2, reports MongoDB 7.0.42',
      testDouble: false,
    });
    expect(result.target.processes?.[0]).toMatchObject({
      version: '7.0.42',
      featureCompatibilityVersion: '7.0',
    });
    expect(result.environment?.loadMachine.node).toBe(process.version);

    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('- Server: FerretDB 1.24.2, reports MongoDB 7.0.42');
    expect(summary).toContain('NOT MongoDB: FerretDB 1.24.2, reports MongoDB 7.0.42');
    expect(summary).toMatch(/Identified by: buildInfo\.ferretdbVersion is "v1\.24\.2"/);
    expect(summary).toMatch(/- Load machine: .+ cores/);
    expect(summary).not.toMatch(/Server: MongoDB/);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain(
      'FerretDB 1.24.2, reports MongoDB 7.0.42',
    );

    const charts = buildCharts([result]);
    expect(charts.length).toBeGreaterThan(0);
    for (const chart of charts) {
      const subtitle = JSON.stringify(chart.subtitle ?? '');
      expect(subtitle).toContain('FerretDB 1.24.2, reports MongoDB 7.0.42');
      expect(subtitle).not.toMatch(/· MongoDB 7/);
    }

    // A MongoDB result beside it: compare says the servers differ.
    const mongod: ResultDocument = {
      ...result,
      label: 'mongod',
      target: {
        ...result.target,
        product: {
          name: 'MongoDB',
          edition: 'Community',
          version: '7.0.14',
          reportedMongoDBVersion: '7.0.14',
          label: 'MongoDB Community 7.0.14',
          testDouble: false,
          evidence: [],
        },
        processes: [{ host: 'db1:27017', version: '7.0.14', storageEngine: 'wiredTiger' }],
      },
    };
    const c = compareResults(mongod, result);
    expect(c.notes).toEqual(
      expect.arrayContaining([
        'A and B ran on different servers: product: A MongoDB Community, B FerretDB',
        'A and B ran on different servers: version: A 7.0.14, B 1.24.2',
      ]),
    );
    expect(c.b.server).toBe('FerretDB 1.24.2, reports MongoDB 7.0.42');
    const fileA = join(dir, 'a.json');
    writeFileSync(fileA, JSON.stringify(mongod));
    const cli = await runCli([
      'compare',
      fileA,
      join(out, 'results.json'),
      '--out',
      join(dir, 'cmp'),
    ]);
    expect(cli.stdout).toContain(
      'note: A and B ran on different servers: product: A MongoDB Community, B FerretDB',
    );
  });
});
