/** Generated scripts end to end (cases.ts): the standalone at every version, the 3-member replica sets. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALL, CASES, casesFor, describeScriptsE2E, E2E_FILES } from './cases';

describeScriptsE2E(__filename);

describe('the e2e test files', () => {
  test('together run every case at each of its versions exactly once, and each file exists', () => {
    for (const allVersions of [false, true]) {
      const run = Object.values(E2E_FILES).flatMap((sels) =>
        casesFor(sels, allVersions).map((c) => `${c.name}@${c.version}`),
      );
      const expected = CASES.flatMap((c) =>
        (allVersions ? ALL : c.versions).map((v) => `${c.name}@${v}`),
      );
      expect([...run].sort()).toEqual([...expected].sort());
    }
    for (const file of Object.keys(E2E_FILES))
      expect(fs.existsSync(path.join(__dirname, file))).toBe(true);
  });
});
