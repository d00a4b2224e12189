/**
 * The length of every function in lib/ (declarations, methods, constructors, accessors, arrow functions and
 * function expressions), read with TypeScript's parser: a function's lines run from its first to its last line,
 * nested functions included (a closure is part of the function that holds it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

export interface FunctionLength {
  /** repo-relative file and the line the function starts on, e.g. lib/run/benchmark.ts:42 */
  where: string;
  /** the function's name, or how it is bound (`const x = () =>`, `method`, `constructor`) */
  name: string;
  lines: number;
}

function nameOf(node: ts.Node): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name)))
    return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name))
    return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return '(anonymous)';
}

/** Every function in the given files with its length in lines. */
export function functionLengths(root: string, files: readonly string[]): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({ where: `${file}:${start + 1}`, name: nameOf(node), lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
