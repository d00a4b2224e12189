/**
 * Servers a host name cannot tell apart: the DocumentDB gateway (pg_documentdb), and Amazon DocumentDB
 * or Azure Cosmos DB reached through a tunnel or a private endpoint (a localhost or IP host). Each is
 * named by what it answers (lib/server/identify-server.ts cites where each rule comes from); none is
 * ever called MongoDB. The replies below are the ones the cited sources record (the gateway's
 * buildInfo from pg_documentdb_gw src/processor/constant.rs, Cosmos DB's buildInfo and DocumentDB's
 * getCmdLineOpts error from mongodb-build-info 1.x's fixtures); the recording servers only speak the
 * protocol, they are not those products.
 */
import { describeTarget } from '../../lib/server/connect';
import { identifyServer } from '../../lib/server/identify-server';
import { startRecordingServer, type RecordingServer } from '../support/recording-server';
import { testClients } from '../support/clients';

const TUNNEL = 'mongodb://127.0.0.1:27017/?directConnection=true';
/** pg_documentdb_gw process_build_info: version, versionArray, bits, maxBsonObjectSize; no gitVersion. */
const GATEWAY_BUILD_INFO = {
  version: '7.0.0',
  versionArray: [7, 0, 0, 0],
  bits: 64,
  maxBsonObjectSize: 16777216,
  ok: 1,
};
/** mongodb-build-info 1.x test fixture COSMOSDB_BUILD_INFO (a 40-hex gitVersion, and `_t`). */
const COSMOS_BUILD_INFO = {
  _t: 'BuildInfoResponse',
  ok: 1,
  version: '3.2.0',
  gitVersion: '45d947729a0315accb6d4f15a6b06be6d9c19fe7',
  modules: [],
  versionArray: [3, 2, 0, 0],
  bits: 64,
  maxBsonObjectSize: 524288,
};
/** A buildInfo with a commit-like gitVersion, as a product imitating mongod's may give (the old rules then said MongoDB). */
const COMMIT_LIKE = {
  version: '5.0.0',
  gitVersion: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
  modules: [],
  ok: 1,
};

describe('identifyServer: products behind a localhost or IP host', () => {
  it('the DocumentDB gateway by a getParameter error naming documentdb_api (mongodb-build-info identifyServerName)', () => {
    const p = identifyServer({
      uri: TUNNEL,
      buildInfo: GATEWAY_BUILD_INFO,
      getParameterError: 'function documentdb_api.get_parameter(unknown) does not exist',
    });
    expect(p).toMatchObject({
      name: 'DocumentDB (pg_documentdb)',
      reportedMongoDBVersion: '7.0.0',
      label: 'DocumentDB (pg_documentdb), reports MongoDB 7.0.0',
      testDouble: false,
    });
    expect(p.evidence).toEqual([
      'the getParameter error names documentdb_api (the pg_documentdb extension)',
    ]);
  });

  it('the DocumentDB gateway by hello.internal.documentdb_versions (pg_documentdb_gw ismaster.rs), with its kind; even with a commit-like gitVersion', () => {
    const p = identifyServer({
      uri: TUNNEL,
      buildInfo: COMMIT_LIKE,
      hello: {
        isWritablePrimary: true,
        msg: 'isdbgrid',
        internal: { documentdb_versions: ['0.107-0', '0.107.0'], kind: 'azuredocumentdb' },
      },
    });
    expect(p).toMatchObject({ name: 'DocumentDB (pg_documentdb)', edition: 'azuredocumentdb' });
    expect(p.evidence.join(' ')).toMatch(/hello\.internal\.documentdb_versions/);
  });

  it("Azure Cosmos DB by buildInfo._t (the legacy shell's nonGenuineMongoDBCheck): the old rules called it MongoDB Community 3.2.0", () => {
    expect(identifyServer({ uri: TUNNEL, buildInfo: COSMOS_BUILD_INFO })).toMatchObject({
      name: 'Azure Cosmos DB for MongoDB',
      label: 'Azure Cosmos DB for MongoDB, reports MongoDB 3.2.0',
      testDouble: false,
    });
  });

  it('Amazon DocumentDB by its "Feature not supported: getCmdLineOpts" error; never MongoDB', () => {
    const p = identifyServer({
      uri: TUNNEL,
      buildInfo: COMMIT_LIKE,
      getCmdLineOptsError: 'Feature not supported: getCmdLineOpts',
    });
    expect(p).toMatchObject({
      name: 'Amazon DocumentDB',
      label: 'Amazon DocumentDB, reports MongoDB 5.0.0',
    });
  });

  it('MongoDB stays MongoDB when getParameter fails otherwise or getCmdLineOpts is not permitted; no signal and no commit: unidentified', () => {
    const mongod = {
      version: '7.0.14',
      gitVersion: 'ce59cfc6a3c5e5c067dca0d30697edd68d4f5188',
      modules: [],
      ok: 1,
    };
    expect(
      identifyServer({
        uri: TUNNEL,
        buildInfo: mongod,
        getParameterError: 'no option found to get',
        getCmdLineOptsError: 'not authorized on admin to execute command { getCmdLineOpts: 1 }',
      }),
    ).toMatchObject({ name: 'MongoDB' });
    expect(identifyServer({ uri: TUNNEL, buildInfo: GATEWAY_BUILD_INFO })).toMatchObject({
      name: 'unidentified server',
    });
  });
});

describe('describeTarget sends the probes and names the product', () => {
  let gateway: RecordingServer;
  let cosmos: RecordingServer;
  const clients = testClients();
  beforeAll(async () => {
    gateway = await startRecordingServer({
      helloFields: { internal: { documentdb_versions: ['0.107-0'], kind: '' } },
      handlers: {
        buildInfo: () => GATEWAY_BUILD_INFO,
        getParameter: () => ({
          ok: 0,
          code: 2,
          codeName: 'BadValue',
          errmsg: 'function documentdb_api.get_parameter(unknown) does not exist',
        }),
      },
    });
    cosmos = await startRecordingServer({ handlers: { buildInfo: () => COSMOS_BUILD_INFO } });
  });
  afterAll(async () => {
    await clients.closeAll();
    await Promise.all([gateway.stop(), cosmos.stop()]);
  });
  const target = async (server: RecordingServer) =>
    describeTarget(await clients.connect(server.uri), server.uri, false);

  it('a gateway on 127.0.0.1: DocumentDB (pg_documentdb), by both signals; getParameter "foo" was sent', async () => {
    const t = await target(gateway);
    expect(t.product).toMatchObject({ name: 'DocumentDB (pg_documentdb)', testDouble: false });
    expect(t.product!.evidence).toHaveLength(2);
    expect(
      gateway.commands.some((c) => c.name === 'getParameter' && c.body.getParameter === 'foo'),
    ).toBe(true);
  });

  it('Cosmos DB on 127.0.0.1 (a tunnel): named by buildInfo._t', async () => {
    expect((await target(cosmos)).product).toMatchObject({ name: 'Azure Cosmos DB for MongoDB' });
  });
});
