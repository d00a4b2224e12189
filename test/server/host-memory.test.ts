/**
 * A server in a memory-limited container: hostInfo.system.memSizeMB is the host's memory,
 * memLimitMB the memory the process may use (ProcessInfo::getMemSizeMB beside getSystemMemSizeMB,
 * src/mongo/db/commands/generic_servers.cpp HostInfoCmd, already in 4.4). Where the limit is below the
 * host's memory, the result keeps it, the report's host line says it, and the softlayer experiment sizes
 * its data by it (it sized them by the host's memory). The WiredTiger cache ratio keeps using the
 * configured cache (server-facts.ts). The recording server's replies are the protocol's, not MongoDB's.
 */
import type { ResultDocument } from '../../lib/result';
import { environmentDetails } from '../../lib/report/describe';
import { readServerMemory } from '../../lib/experiments/softlayer/server-memory';
import { readProcessFacts } from '../../lib/server/server-facts';
import { startRecordingServer, type RecordingServer } from '../support/recording-server';
import { testClients } from '../support/clients';

const MONGOD_BUILD_INFO = {
  version: '7.0.14',
  gitVersion: 'ce59cfc6a3c5e5c067dca0d30697edd68d4f5188',
  modules: [],
  ok: 1,
};
const host = (system: Record<string, unknown>) => ({
  system: { numCores: 8, cpuArch: 'x86_64', ...system },
  os: { name: 'Ubuntu', version: '22.04' },
  ok: 1,
});

async function factsWith(system: Record<string, unknown>) {
  return readProcessFacts(
    async (command) => {
      const name = Object.keys(command)[0];
      if (name === 'hostInfo') return host(system);
      if (name === 'getParameter')
        return { featureCompatibilityVersion: { version: '7.0' }, ok: 1 };
      return { parsed: {}, ok: 1 };
    },
    'db1:27017',
    {
      buildInfo: MONGOD_BUILD_INFO,
      serverStatus: {
        storageEngine: { name: 'wiredTiger' },
        wiredTiger: { cache: { 'maximum bytes configured': 1073741824 } },
      },
    },
  );
}

describe('hostInfo memLimitMB', () => {
  it('is kept when below the host memory, and the host line says "<limit> memory limit of a <host> host"', async () => {
    const facts = await factsWith({ memSizeMB: 65536, memLimitMB: 2048 });
    expect(facts.hostInfo).toMatchObject({ memoryMB: 65536, memoryLimitMB: 2048 });
    expect(facts.cacheBytes).toBe(1073741824);
    const result = { target: { processes: [facts] }, steps: [] } as unknown as ResultDocument;
    const line = environmentDetails(result).find(([key]) => key === 'Process db1:27017')![1];
    expect(line).toContain('host 8 cores, 2 GiB memory limit of a 64 GiB host, Ubuntu 22.04');
  });

  it('is left out when it is the host memory (no limit), as before', async () => {
    const facts = await factsWith({ memSizeMB: 65536, memLimitMB: 65536 });
    expect(facts.hostInfo).toEqual({
      cores: 8,
      memoryMB: 65536,
      os: 'Ubuntu 22.04',
      cpuArch: 'x86_64',
    });
  });
});

describe('softlayer sizes its data by the memory the server may use', () => {
  let limited: RecordingServer;
  let unlimited: RecordingServer;
  const clients = testClients();
  beforeAll(async () => {
    limited = await startRecordingServer({
      handlers: { hostInfo: () => host({ memSizeMB: 65536, memLimitMB: 4096 }) },
    });
    unlimited = await startRecordingServer({
      handlers: { hostInfo: () => host({ memSizeMB: 16384, memLimitMB: 16384 }) },
    });
  });
  afterAll(async () => {
    await clients.closeAll();
    await Promise.all([limited.stop(), unlimited.stop()]);
  });
  const memoryOf = async (server: RecordingServer) =>
    readServerMemory(await clients.connect(server.uri));

  it('the limit where it is below the host memory (it used the host memory, 16x too much here)', async () => {
    expect(await memoryOf(limited)).toEqual({
      memSizeMB: 4096,
      source: "hostInfo.system.memLimitMB, the server's memory limit (the host has 65536 MiB)",
    });
  });

  it('the host memory otherwise', async () => {
    expect(await memoryOf(unlimited)).toEqual({
      memSizeMB: 16384,
      source: 'hostInfo.system.memSizeMB',
    });
  });
});
