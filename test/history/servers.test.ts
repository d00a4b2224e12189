/**
 * history and the servers of a label's runs, through the command as CI runs it: six runs on the CRUD
 * test double and a newest one on FerretDB that collapses. The gate names both servers as they are
 * (product and version, never "MongoDB") and, on the terminal beside the failed verdict, says that the
 * server changed: the likely cause. A --label the store does not hold is a usage error (exit 2) naming
 * the labels it holds, never "not tested".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderStore } from '../../lib/store';
import { HistoryDocument } from '../../lib/history';
import { identifyServer } from '../../lib/server/identify-server';
import { ResultDocument } from '../../lib/result';
import { runCli } from '../support/cli';
import { syntheticResults } from './synthetic';

// The products as runs record them (lib/server/identify-server.ts): mongo-java-server by its serverStatus, FerretDB 1.x by buildInfo.
const CRUD_DOUBLE = identifyServer({
  uri: 'mongodb://127.0.0.1:27017',
  buildInfo: { version: '6.0.0' },
  serverStatus: { process: 'java' },
});
const FERRETDB = identifyServer({
  uri: 'mongodb://127.0.0.1:27017',
  buildInfo: { version: '7.0.42', ferretdbVersion: 'v1.24.2' },
});

function on(results: ResultDocument[], product: typeof CRUD_DOUBLE): ResultDocument[] {
  return results.map((r) => ({
    ...r,
    target: {
      ...r.target,
      serverVersion: product.reportedMongoDBVersion,
      testDouble: product.testDouble,
      product,
    },
  }));
}

/** Seven nightly runs on the CRUD double at 5,000 ops/s whose newest ran at 35 ops/s (-99.3%). */
function collapse(label: string, newestOn: typeof CRUD_DOUBLE): ResultDocument[] {
  const runs = syntheticResults({
    runs: 7,
    level: 5000,
    noise: 0.01,
    changeAt: 6,
    factor: 0.007,
    seed: 5,
    label,
    clients: [1],
  });
  return [...on(runs.slice(0, 6), CRUD_DOUBLE), ...on(runs.slice(6), newestOn)];
}

describe('history: the servers of a label', () => {
  let dir: string;
  let store: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-history-servers-'));
    store = join(dir, 'store');
    const folder = new FolderStore(store);
    for (const r of [...collapse('nightly', FERRETDB), ...collapse('same-server', CRUD_DOUBLE)])
      await folder.put(r);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a newest run on FerretDB after six on the CRUD double: the terminal says the server changed beside the failed verdict; no "MongoDB" run is named', async () => {
    const out = join(dir, 'out');
    const cli = await runCli(['history', '--store', store, '--out', out]);
    expect(cli.code).toBe(1);
    const crud = `TEST DOUBLE server mongo-java-server, reports MongoDB 6.0.0, not MongoDB (standalone, host 127.0.0.1)`;
    const ferret = `FerretDB 1.24.2, reports MongoDB 7.0.42 (standalone, host 127.0.0.1)`;
    const changed = `the server changed, likely the cause: the baseline ran on ${crud}, the newest on ${ferret}`;
    const failed = cli.stdout.split('\n').filter((l) => l.includes('NEWEST RUN'));
    const nightly = failed.filter((l) => l.startsWith('  nightly, ops/s'));
    expect(nightly).toHaveLength(1);
    expect(nightly[0]).toMatch(/^ {2}nightly, ops\/s at 1 client: NEWEST RUN -99\.\d%.*FAILED; /);
    expect(nightly[0]).toContain(changed);
    expect(cli.stdout).toContain(
      'mixes runs on different servers: TEST DOUBLE server mongo-java-server, reports MongoDB 6.0.0, not MongoDB (6 runs); FerretDB 1.24.2, reports MongoDB 7.0.42 (1 run)',
    );
    // The same collapse on an unchanged server fails without a word about the server.
    const same = failed.filter((l) => l.startsWith('  same-server, ops/s'));
    expect(same).toHaveLength(1);
    expect(same[0]).not.toContain('server changed');
    const history = JSON.parse(readFileSync(join(out, 'history.json'), 'utf8')) as HistoryDocument;
    expect(history.labels.find((l) => l.label === 'same-server')!.mixedServers).toBeUndefined();
    const md = readFileSync(join(out, 'history.md'), 'utf8');
    expect(md).not.toMatch(/runs on MongoDB/);
    expect(md).toContain(
      '**Warning: this label mixes runs on different servers: TEST DOUBLE server mongo-java-server, reports MongoDB 6.0.0, not MongoDB (6 runs); FerretDB 1.24.2, reports MongoDB 7.0.42 (1 run); their numbers do not belong in one series.**',
    );
    expect(md).toContain(`**${changed}**`);
  });

  it('--label the store does not hold: exit 2 naming it and the labels the store holds', async () => {
    const cli = await runCli([
      'history',
      '--store',
      store,
      '--label',
      'nosuch',
      '--out',
      join(dir, 'nosuch'),
    ]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(
      `option --label: no run labelled "nosuch" in folder ${store}: it holds nightly (7 runs), same-server (7 runs)`,
    );
  });
});
