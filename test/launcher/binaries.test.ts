import * as fs from 'node:fs';
import * as path from 'node:path';
import { requireMongod, requireMongos, resolveBinaries } from '../../lib/launcher/binaries';
import { FAKE_BIN, tempDir, writeScript } from '../support/processes';
import { usageMessage } from '../support/cli';

describe('resolveBinaries', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('bins');
    fs.mkdirSync(path.join(dir, 'only-mongod'));
    writeScript(path.join(dir, 'only-mongod'), 'mongod', '');
    fs.writeFileSync(path.join(dir, 'not-executable'), 'x', { mode: 0o644 });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--bin-dir finds mongod and mongos', () => {
    const b = resolveBinaries({ binDir: FAKE_BIN, env: {} });
    expect(b).toMatchObject({
      mongod: path.join(FAKE_BIN, 'mongod'),
      mongos: path.join(FAKE_BIN, 'mongos'),
      source: 'bin-dir',
    });
  });

  it('--mongod-bin takes mongos from beside it', () => {
    const b = resolveBinaries({ mongodBin: path.join(FAKE_BIN, 'mongod'), env: {} });
    expect(b).toMatchObject({ mongos: path.join(FAKE_BIN, 'mongos'), source: 'mongod-bin' });
  });

  it('options win over the environment, MONGOMS_SYSTEM_BINARY over MONGOD_BIN', () => {
    const other = path.join(dir, 'only-mongod', 'mongod');
    expect(
      resolveBinaries({ binDir: FAKE_BIN, env: { MONGOMS_SYSTEM_BINARY: other } }).source,
    ).toBe('bin-dir');
    expect(
      resolveBinaries({
        env: { MONGOMS_SYSTEM_BINARY: other, MONGOD_BIN: path.join(FAKE_BIN, 'mongod') },
      }),
    ).toMatchObject({
      mongod: other,
      source: 'MONGOMS_SYSTEM_BINARY',
    });
    expect(resolveBinaries({ env: { MONGOD_BIN: path.join(FAKE_BIN, 'mongod') } }).source).toBe(
      'MONGOD_BIN',
    );
    const none = resolveBinaries({ env: {} });
    expect([none.source, none.mongod, none.mongos]).toEqual(['none', undefined, undefined]);
  });

  it('names the option and the path when the path is missing, a directory or not executable', () => {
    expect(usageMessage(() => resolveBinaries({ mongodBin: '/nope/mongod', env: {} }))).toBe(
      'option --mongod-bin /nope/mongod: /nope/mongod does not exist',
    );
    expect(usageMessage(() => resolveBinaries({ mongodBin: dir, env: {} }))).toMatch(
      /^option --mongod-bin .*: .* is not a file/,
    );
    expect(
      usageMessage(() => resolveBinaries({ mongodBin: path.join(dir, 'not-executable'), env: {} })),
    ).toMatch(/^option --mongod-bin .*not-executable: .* is not executable/);
    expect(usageMessage(() => resolveBinaries({ binDir: '/nope', env: {} }))).toBe(
      'option --bin-dir /nope: directory /nope does not exist',
    );
    expect(
      usageMessage(() => resolveBinaries({ binDir: path.join(dir, 'not-executable'), env: {} })),
    ).toMatch(/is not a directory/);
    expect(usageMessage(() => resolveBinaries({ binDir: dir, env: {} }))).toMatch(
      /^option --bin-dir .*: no mongod in /,
    );
    expect(usageMessage(() => resolveBinaries({ env: { MONGOMS_SYSTEM_BINARY: '/nope/m' } }))).toBe(
      'MONGOMS_SYSTEM_BINARY=/nope/m: /nope/m does not exist',
    );
    expect(usageMessage(() => resolveBinaries({ env: { MONGOD_BIN: '/nope/m' } }))).toBe(
      'MONGOD_BIN=/nope/m: /nope/m does not exist',
    );
    expect(usageMessage(() => resolveBinaries({ mongodBin: 'a', binDir: 'b', env: {} }))).toMatch(
      /--mongod-bin and --bin-dir both given/,
    );
  });

  it('says where mongos was looked for when a sharded cluster needs it', () => {
    const b = resolveBinaries({ binDir: path.join(dir, 'only-mongod'), env: {} });
    expect(b.mongos).toBeUndefined();
    expect(usageMessage(() => requireMongos(b))).toMatch(
      /option --bin-dir .*only-mongod has no executable mongos beside it \(looked for .*only-mongod\/mongos\)/,
    );
    expect(usageMessage(() => requireMongod(resolveBinaries({ env: {} })))).toMatch(
      /--mongod-bin PATH, --bin-dir DIR or MONGOMS_SYSTEM_BINARY/,
    );
  });
});
