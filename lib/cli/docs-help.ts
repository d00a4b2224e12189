/**
 * Where the pages that --help names (docs/agents.md, docs/matrix.md, ...) are on this machine: the
 * package ships README.md and docs/, and a user of the installed CLI should not have to search
 * node_modules for them.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The package's root: dist/cli (installed) or lib/cli (a checkout) is two levels below it. */
export const PACKAGE_ROOT = resolve(__dirname, '..', '..');

export function docsHelp(root: string = PACKAGE_ROOT): string {
  const docs = join(root, 'docs');
  if (!existsSync(docs)) return '';
  return `\nDocumentation: ${join(root, 'README.md')}, and one page per part in ${docs}/ (the docs/*.md a command's help names)`;
}
