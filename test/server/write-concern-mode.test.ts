/**
 * A write concern naming a custom mode (`--write-concern banana`) is checked at connect, before the first
 * write: accepted where the replica set's config defines it, with a warning where the config cannot be
 * read, refused (exit 2) on a standalone (here the CRUD test double, which reports none) or where the set
 * does not define it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { checkWriteConcernMode } from '../../lib/server/write-concern-mode';
import { UsageError } from '../../lib/config/errors';

describe('a custom write mode on a replica set', () => {
  const config = (modes: object) => () =>
    Promise.resolve({ config: { _id: 'rs0', settings: { getLastErrorModes: modes } } });

  it('is accepted where the config defines it, and refused naming the modes where not', async () => {
    await expect(
      checkWriteConcernMode({ w: 'multiDC' }, 'replicaSet', config({ multiDC: { dc: 2 } })),
    ).resolves.toBeUndefined();
    const refused = checkWriteConcernMode({ w: 'banana' }, 'replicaSet', config({ multiDC: {} }));
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(/w "banana".*replica set "rs0" defines only "multiDC"/);
  });

  it('is accepted with a warning where the config cannot be read; numbers and majority are never checked', async () => {
    const denied = () => Promise.reject(new Error('not authorized on admin'));
    await expect(checkWriteConcernMode({ w: 'multiDC' }, 'replicaSet', denied)).resolves.toMatch(
      /could not be read \(not authorized on admin\)/,
    );
    await expect(
      checkWriteConcernMode({ w: 'majority' }, 'standalone', denied),
    ).resolves.toBeUndefined();
    await expect(checkWriteConcernMode({ w: 1 }, 'standalone', denied)).resolves.toBeUndefined();
  });
});

describeNeeding('crud', '--write-concern banana on a standalone (CRUD test server)', () => {
  it('is refused at connect (exit 2), before anything is written', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mb-wc-'));
    const db = uniqueDbName('wcmode');
    try {
      const r = await runCli([
        'run',
        '--uri',
        crudUri(),
        '--db',
        db,
        '--write-concern',
        'banana',
        '--clients',
        '1',
        '--seconds',
        '1',
        '--warmup',
        '0',
        '--docs',
        '10',
        '--out',
        out,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('option --write-concern: w "banana" is a custom write mode');
      expect(r.stderr).toContain('a standalone: every write would fail');
      const client = new MongoClient(crudUri());
      try {
        const names = (await client.db(db).listCollections().toArray()).map((c) => c.name);
        expect(names).toEqual([]);
      } finally {
        await client.close();
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
