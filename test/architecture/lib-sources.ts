/**
 * What the architecture tests that read lib/'s source share: the list of lib/ TypeScript files (tracked, and
 * new ones git does not ignore) and how a property's value is told to be an option rather than a command.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import ts from 'typescript';

export const REPO_ROOT = join(__dirname, '..', '..');

/** lib/'s .ts files, relative to the repository root. */
export function libSourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'lib'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f.endsWith('.ts'));
}

/** `drop: true`, `drop: flags.drop === true`, `create: z.boolean()`: an option, not a command. */
export function isBooleanish(value: ts.Expression | undefined): boolean {
  if (!value) return false;
  if (value.kind === ts.SyntaxKind.TrueKeyword || value.kind === ts.SyntaxKind.FalseKeyword)
    return true;
  if (
    ts.isBinaryExpression(value) &&
    [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(
      value.operatorToken.kind,
    )
  )
    return true;
  return ts.isCallExpression(value) && /\bboolean\(/.test(value.getText());
}
