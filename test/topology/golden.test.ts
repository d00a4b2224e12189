/**
 * The examples in shell-scripts/ are what the generator writes today, byte for byte. After an
 * intended change to the generator, refresh them with: UPDATE_GOLDEN=1 npx jest test/topology/golden
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { main } from '../../lib/cli/main';
import { CliContext } from '../../lib/cli/context';
import { GOLDEN_SCENARIOS, toArgs } from './scenarios';
import { FOLDER_MARKER_FILE } from '../../lib/common/file-plan';

const GOLDEN_ROOT = path.join(__dirname, '..', '..', 'shell-scripts');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

function quietContext(): CliContext & { stderr: string } {
  const ctx = {
    stderr: '',
    exitCode: 0,
    out: () => undefined,
    err: (t: string) => void (ctx.stderr += t),
  };
  return ctx;
}

async function generate(args: string[], out: string): Promise<void> {
  const ctx = quietContext();
  const code = await main(['node', 'mongo-bench', 'scripts', ...args, '--out', out], ctx);
  if (code !== 0) throw new Error(`scripts ${args.join(' ')} exited ${code}: ${ctx.stderr}`);
  // The folder's marker (the names mongo-bench wrote, with the time) is no part of the examples.
  rmSync(path.join(out, FOLDER_MARKER_FILE), { force: true });
}

describe('golden setup scripts in shell-scripts/', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'mongo-bench-golden-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it.each(GOLDEN_SCENARIOS.map((s) => [s.name, s] as const))(
    '%s matches the generator',
    async (name, scenario) => {
      const golden = path.join(GOLDEN_ROOT, name);
      if (UPDATE) {
        rmSync(golden, { recursive: true, force: true });
        await generate(toArgs(scenario.input), golden);
      }
      const fresh = path.join(tmp, name);
      await generate(toArgs(scenario.input), fresh);
      const freshFiles = readdirSync(fresh).sort();
      expect(readdirSync(golden).sort()).toEqual(freshFiles);
      for (const file of freshFiles) {
        const text = readFileSync(path.join(fresh, file), 'utf8');
        // toBe on the whole text: a drift shows as a diff of the file.
        expect(`${file}:\n${readFileSync(path.join(golden, file), 'utf8')}`).toBe(
          `${file}:\n${text}`,
        );
        // Nothing that changes from run to run or machine to machine.
        expect(text).not.toContain(tmp);
        expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      }
      expect(statSync(path.join(fresh, '00-start.sh')).mode & 0o111).not.toBe(0);
    },
  );
});
