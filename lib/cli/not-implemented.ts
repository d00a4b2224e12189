import { CliContext } from './context';
import { EXIT } from '../config/errors';

/** Placeholder action for a command whose issue has not landed yet. */
export function notImplemented(ctx: CliContext, name: string): void {
  ctx.err(`mongo-bench ${name}: not yet implemented`);
  ctx.exitCode = EXIT.usage;
}
