// The CLI as a child process, like bin/mongo-bench.js but from the TypeScript sources (no build):
//   node --require tsx/cjs test/support/cli-entry.ts run ... (test/support/cli-child.ts starts it)
import { main } from '../../lib/cli/main';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
