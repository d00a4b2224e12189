import { main } from '../lib/cli/main';
import { captureContext } from './support/cli';

describe('mongo-bench CLI skeleton', () => {
  it('lists the four commands in --help and exits 0', async () => {
    const ctx = captureContext();
    const code = await main(['node', 'mongo-bench', '--help'], ctx);
    expect(code).toBe(0);
    for (const name of ['run', 'scripts', 'report', 'matrix'])
      expect(ctx.stdout).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
  });

  it('rejects an unknown command with exit code 2 and a suggestion', async () => {
    const ctx = captureContext();
    const code = await main(['node', 'mongo-bench', 'rn'], ctx);
    expect(code).toBe(2);
    expect(ctx.stderr).toContain("unknown command 'rn'");
    expect(ctx.stderr).toContain('run');
  });
});
